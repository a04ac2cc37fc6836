package llc

import "fmt"

// Unsolicited send and the event queue (LLC's Unsolicited-Send and
// event-queue notification user commands).
//
// An unsolicited message needs no posted receive: it lands in the
// receiver's ring, is copied into a buffer of the library, and is announced
// on the receiver's event queue, as control packets and active messages
// are. Sends and receives may also ask for a notification on the event
// queue when they complete (the buffer is reusable / the data arrived).

// recUnsolicited is the record kind of an unsolicited message.
const recUnsolicited uint8 = recPUT + 1

// NoteKind is the kind of an event-queue notification.
type NoteKind uint8

// Notification kinds.
const (
	// NoteUnsolicited: an unsolicited message arrived; Data holds it until
	// the notification is released.
	NoteUnsolicited NoteKind = iota + 1
	// NoteSendDone: a send that asked for it completed; its buffer is
	// reusable.
	NoteSendDone
	// NoteRecvDone: a receive that asked for it completed.
	NoteRecvDone
)

// Notification is one entry of the event queue.
type Notification struct {
	Kind   NoteKind
	Source int    // sender (NoteUnsolicited)
	Tag    int32  // tag (NoteUnsolicited)
	Data   []byte // message (NoteUnsolicited), valid until Release
	Send   *SendOp
	Recv   *RecvOp
}

// eventQueue is the event queue: notifications in order.
type eventQueue struct{ fifo[Notification] }

func (q *eventQueue) pop() (Notification, bool) {
	if q.n == 0 {
		return Notification{}, false
	}
	x := *q.front()
	q.fifo.pop()
	return x, true
}

func (e *Engine) unsolicitedTooLarge(op *SendOp) error {
	return fmt.Errorf("llc: unsolicited message of %d bytes exceeds the eager limit of %d bytes", len(op.Data), e.cfg.EagerLimit)
}

// NextEvent pops the oldest notification of the event queue.
func (e *Engine) NextEvent() (Notification, bool) { return e.events.pop() }

// Release returns the buffer of a NoteUnsolicited notification.
func (e *Engine) Release(n Notification) {
	if n.Kind == NoteUnsolicited && n.Data != nil {
		e.pool.put(n.Data)
	}
}

// onUnsolicited queues an arrived unsolicited message.
func (e *Engine) onUnsolicited(src int, tag int32, payload []byte) {
	d := e.pool.get(len(payload))
	copy(d, payload)
	e.events.push(Notification{Kind: NoteUnsolicited, Source: src, Tag: tag, Data: d})
}
