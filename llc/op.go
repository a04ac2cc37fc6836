package llc

import (
	"fmt"

	"github.com/rhinet-go/martini/internal/memcopy"
)

// Status describes a received or probed message.
type Status struct {
	Source int   // sending process
	Tag    int32 // message tag
	Len    int   // message length in bytes (may exceed the buffer when truncated)
}

// SendOp is one send. The caller fills Peer, Tag, Ctx and Data; the engine
// completes it. Data must not be modified until the op is done.
type SendOp struct {
	Peer int
	Tag  int32
	Ctx  uint32
	Data []byte
	// Notify asks for a NoteSendDone notification (Ready.Notes).
	Notify bool
	// Sync asks for a synchronous send (MPI_Ssend): the op completes only
	// once the receiver has matched the message to a receive. A
	// rendezvous send completes so anyway; an eager one then waits for
	// the receiver's acknowledgement. Unsolicited sends ignore it.
	Sync bool
	// Rendezvous asks for a rendezvous whatever the message's length:
	// for a message whose receive is likely posted, one copy instead of
	// the eager path's two. Unsolicited sends ignore it.
	Rendezvous bool
	// Eager asks for the eager path above the eager limit, up to
	// Config.EagerHintLimit, to a process reached through rings: for a
	// sender that should not wait for its receiver, as a broadcast's
	// root. Rendezvous wins over it.
	Eager bool

	done        bool
	cancelled   bool
	unsolicited bool
	events      *eventQueue // where to notify, when Notify
	err         error
	id          uint64   // rendezvous id, or synchronous eager send id
	region      RegionID // registered send buffer (pull) or granted receive buffer (push)
	recvID      uint64   // push rendezvous: the receiver's id, echoed in PUT
	grant       int      // push rendezvous: bytes the receiver granted
	// split rendezvous: the sender writes the part the receiver does not
	// read; it completes after its write and the receiver's FIN.
	split, pushing, finned bool
	withdrawn              bool // a rendezvous send asked to be forgotten (CancelOp.Withdraw)
}

// Done reports whether the send completed.
func (s *SendOp) Done() bool { return s.done }

// Err returns the send's error once done.
func (s *SendOp) Err() error { return s.err }

// Cancelled reports whether the send was cancelled before it was sent
// (see CancelOp).
func (s *SendOp) Cancelled() bool { return s.cancelled }

func (s *SendOp) finish(err error) {
	s.done, s.err = true, err
	if s.events != nil {
		s.events.push(Notification{Kind: NoteSendDone, Send: s})
	}
}

// RecvOp is one receive. The caller fills Source (or AnySource), Tag (or
// AnyTag), Ctx and Buf; the engine completes it and fills Status.
type RecvOp struct {
	Source int
	Tag    int32
	Ctx    uint32
	Buf    []byte
	// Notify asks for a NoteRecvDone notification (Ready.Notes).
	Notify bool
	// Consume says the receiver reads the data right after the receive
	// (a reduction's operand): a split rendezvous of up to ConsumePullMax
	// bytes is then read by the receiver alone, so that the data lands in
	// its caches.
	Consume bool
	// Whole asks, as Consume does, that a split rendezvous of up to
	// WholePullMax bytes be read by the receiver alone: for the
	// messages of processes that all move messages at once where they
	// outnumber the cores, and the split's second copier has no core of
	// its own.
	Whole bool
	// Message, when set, is a message that a ProbeOp with Take took out
	// of the matching: the receive takes it, and Source, Tag and Ctx are
	// not used.
	Message *Matched

	Status    Status
	events    *eventQueue
	done      bool
	cancelled bool
	matched   bool // a rendezvous message matched it: its data is on the way
	err       error
	next      *RecvOp
	region    RegionID // push rendezvous: registered receive buffer
	sendID    uint64   // pull rendezvous: the sender's id, echoed in FIN
	// split rendezvous: the receiver completes after its read and the
	// sender's PUT.
	split, pulled, putDone bool
	srcRegion              RegionID
}

// Done reports whether the receive completed.
func (r *RecvOp) Done() bool { return r.done }

// Err returns the receive's error once done.
func (r *RecvOp) Err() error { return r.err }

// Cancelled reports whether the receive was cancelled before matching.
func (r *RecvOp) Cancelled() bool { return r.cancelled }

func (r *RecvOp) finish(err error) {
	r.done, r.err = true, err
	if r.events != nil {
		r.events.push(Notification{Kind: NoteRecvDone, Recv: r})
	}
}

// deliver completes r with an eager payload.
func (r *RecvOp) deliver(src int, tag int32, payload []byte) {
	r.Status = Status{Source: src, Tag: tag, Len: len(payload)}
	if len(payload) > len(r.Buf) {
		copy(r.Buf, payload)
		r.finish(truncation(src, tag, len(payload), len(r.Buf)))
		return
	}
	if len(payload) == 8 {
		// A word, the commonest small message: one move, without the
		// call to memmove that copy makes.
		*(*[8]byte)(r.Buf) = [8]byte(payload)
	} else {
		memcopy.Small(r.Buf, payload)
	}
	r.finish(nil)
}

func truncation(src int, tag int32, msg, buf int) error {
	if msg <= buf {
		return nil
	}
	return fmt.Errorf("%w: message from process %d with tag %d has %d bytes, receive buffer holds %d bytes",
		ErrTruncated, src, tag, msg, buf)
}

func (o *SendOp) submitTo(e *Engine) { e.submitSend(o) }

func (o *RecvOp) submitTo(e *Engine) { e.recv(o) }
