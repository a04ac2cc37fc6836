package llc

import (
	"errors"
	"fmt"
	"time"
)

// RegionID names registered memory of a process, as the network names it
// (a SID on Martini, an rkey on InfiniBand). 0 is never a valid region.
type RegionID uint32

// CmdKind is the kind of an IR command.
type CmdKind uint8

// IR commands the protocol engine emits. Every network offers them; the
// translator maps them to its own primitives.
const (
	// CmdWrite writes Head then Data at (Peer, Region, Off); if Signal is
	// not zero, it then writes the 8-byte word Signal at (Peer, Region,
	// SigOff), visible only after the data (a put with a completion flag).
	// When SigOff directly follows the data, a translator may send head,
	// data and signal as one transfer whose last word lands last.
	CmdWrite CmdKind = iota + 1
	// CmdRead reads len(Data) bytes at (Peer, Region, Off) into Data.
	// With Size ReadChanged (and 8 bytes of Data), the engine read the
	// word before as Old and waits for it to change (a ring's consumer
	// count): a transport may complete the read, when it finds the word
	// still equal to Old, only once the word's owner has changed it (a
	// network in virtual time waits for that as an event, rather than
	// have the engine read again and again at the process's clock);
	// others complete it at once, as any read.
	CmdRead
	// CmdCAS compares the word at (Peer, Region, Off) with Old and, if
	// equal, replaces it by New; the event's Value is the previous word.
	CmdCAS
	// CmdRegister registers Data (process memory) for remote access by
	// the processes the network reaches, Peer among them (one region
	// serves them all: a dynamic window registers an attachment once a
	// network); the event's Value is the new RegionID.
	CmdRegister
	// CmdAlloc allocates and registers Size bytes of zeroed memory that
	// process Peer can write (ring buffers, the bootstrap area); the event
	// carries Value (RegionID) and Mem.
	CmdAlloc
	// CmdRelease deregisters Region (and frees it if it came from
	// CmdAlloc); Peer is not used.
	CmdRelease
	// CmdAllocQueue makes this process's receive queue: Size bytes
	// (QueueHeader plus a power-of-two record space) that the network
	// fills with records from every sender, in arrival order (a VPUSH
	// queue on Martini; a transport whose stream carries records needs no
	// memory for it). The transport delivers each record as an EvRecord
	// and then frees its space. The event carries Value, the queue's
	// RegionID. A process has at most one queue.
	CmdAllocQueue
	// CmdEnqueue appends Head then Data to Peer's receive queue as one
	// record (at most Caps.MaxRecord bytes). Token must not be 0: the
	// event is EvDone once the record is in the queue, or EvError with an
	// error matching ErrQueueFull when the queue has no room for it (the
	// record was not written; send it again later), or another error.
	CmdEnqueue
	// CmdWatchRing tells the transport that Region, memory of this
	// process from CmdAlloc, is an eager ring into which process Peer
	// writes records (format in package llc/layout). The transport delivers each
	// record, in order, as an EvRecord and then frees its place in the
	// ring (see RingReader). No event of its own.
	CmdWatchRing
	// CmdWatchSlot asks for one EvSignal when the 8-byte signal word at
	// (this process's Region, Off) becomes non-zero: the event carries
	// Token, the word as Value and the Size-8 bytes that follow it as
	// Data. The transport then zeroes the word and forgets the watch.
	// Setting the watch has no event of its own (an EvError with Token
	// when it cannot be set).
	CmdWatchSlot
	// CmdFetchAdd adds New to the word at (Peer, Region, Off); the
	// event's Value is the previous word.
	CmdFetchAdd
	// CmdWatchLine tells a transport that shares memory (Caps.SharedLines)
	// that layout.LineHalf bytes at (Region, Off) are the half of a pair's shared
	// line into which process Peer writes its records (eager.go). Region
	// is this process's memory, or Peer's when Size is LineInPeer. The
	// transport delivers each record there as an EvRecord, in the order
	// of the ring from Peer (CmdWatchRing), whose sequence the records
	// share. No event of its own.
	CmdWatchLine
	// CmdWriteLine writes Data (at most layout.LineExtBody bytes) into
	// this process's extension of the half at Off (layout.LineExt: its
	// half of the shared extension line up to layout.LineExtShared
	// bytes, else its own extension lines), the HeadLen
	// bytes of Head at (Region, Off), then the word Signal at SigOff, into
	// this process's half of its shared line with Peer: memory of this process, or of Peer when Size
	// is LineInPeer. The transport then wakes Peer if Peer sleeps: the
	// write is for Peer to read, whoever's memory holds it.
	CmdWriteLine
	// CmdCombine asks Peer to combine Data into the bytes at (Region,
	// Off) of its memory with the Combiner of code New (combine.go),
	// under the ticket lock whose word is at (region Size, offset Old)
	// of its memory, or word by word, each word atomically, where Size
	// is 0 (CombineWords), and to send back the bytes before into
	// Result unless it is nil: len(Result) bytes when it is not nil,
	// else len(Data). Only transports that report Caps.Combine serve it.
	CmdCombine
)

// LineInPeer is the Size of a CmdWatchLine or CmdWriteLine whose Region
// is memory of the peer, not of this process.
const LineInPeer = 1

// ReadChanged is the Size of a CmdRead of a word that the engine waits to
// see change from Old (see CmdRead).
const ReadChanged = 1

var cmdNames = [...]string{"", "Write", "Read", "CAS", "Register", "Alloc", "Release", "AllocQueue", "Enqueue", "WatchRing", "WatchSlot", "FetchAdd", "WatchLine", "WriteLine", "Combine"}

// Receive queue layout (CmdAllocQueue), for transports that keep the
// queue in memory (shm.QueueReader reads it). The network writes, the
// transport of the owner reads:
//
//	[0, 8)            produced: bytes of records written (monotonic),
//	                  stored after the record's bytes
//	[QueueHeader, …)  record space of a power-of-two size
//
// A record at position pos (produced before it, modulo the record space)
// is a QueueRecordHeader-byte header, the little-endian uint32 length of
// Head+Data and the uint32 sending process, then Head+Data, padded to a
// multiple of QueueAlign. A record never wraps: when it does not fit
// before the end of the record space, the network writes the length
// QueueWrap at pos and the record starts at position 0; produced then
// counts the skipped bytes too. The owner's transport releases the bytes
// it consumed, skipped bytes included.
const (
	QueueHeader       = 64
	QueueRecordHeader = 8
	QueueAlign        = 8
	QueueWrap         = 0xffffffff
	// MaxQueueRecord is the largest Head+Data of one record: a record,
	// header included, is one 2 KB packet, as VPUSH carries (PM/RHiNET-VP's
	// largest message is 2040 bytes, thesis 8.4.3).
	MaxQueueRecord = 2048 - QueueRecordHeader
)

// ErrQueueFull is matched (errors.Is) by the EvError of a CmdEnqueue
// whose target queue had no room.
var ErrQueueFull = errors.New("receive queue full")

// HostWork is host processing that a message layer reports to its
// transport (see HostCharger).
type HostWork uint8

// Host work of the PM message layers (eager transports EagerPM and
// EagerQueue): what PM's library calls did on the host.
const (
	// WorkSend is one message handed to the network (pmSend).
	WorkSend HostWork = iota + 1
	// WorkRecv is one message taken from a receive buffer and released
	// (pmReceive, pmReleaseReceiveBuffer).
	WorkRecv
	// WorkPoll is one receive buffer checked for a new message.
	WorkPoll
	// WorkCopies is one message's payload copied between the user's
	// buffer and the layer's (MPICH-SCore's memory-to-memory copy into
	// PM's send buffer, or out of its receive buffer); WorkCopy counts
	// their bytes, so that a transport can tell a copy's size (bytes over
	// copies) from the batch.
	WorkCopies
	WorkCopy
	// WorkZero is a byte of a PM/RHiNET receive buffer zeroed on release
	// (EagerPM: its header and trailer polling needs a zeroed ring).
	WorkZero
)

// HostCharger is implemented by transports that charge host work, as a
// timing profile charges the thesis host's PM costs. Optional: an
// Endpoint whose transport does not implement it charges nothing.
type HostCharger interface {
	// Charge accounts n units of work w done just now.
	Charge(w HostWork, n int)
}

// Clock is the virtual clock of a network that runs in virtual time (the
// martini network under mpirun -clock virtual): the process's time as the
// modelled network and host see it. The endpoint tells it when its caller
// enters and leaves the communication layer, so that only the caller's
// computing between its calls moves the clock besides the network.
type Clock interface {
	// Now returns the process's virtual time.
	Now() time.Duration
	// Run makes the process take part in the network's ordering of
	// requests in virtual time (Bind does too).
	Run()
	// Bind makes the calling goroutine's thread the one whose CPU time
	// is computing, locking the goroutine to it; the caller is then
	// outside the communication layer.
	Bind()
	// Enter charges the bound thread's CPU time since Leave (or Bind)
	// as computing; on other threads it does nothing.
	Enter()
	// Leave starts counting the bound thread's CPU time as computing.
	Leave()
	// Waiting tells the network that the process waits for data (true:
	// the poll it just made found nothing) or goes on (false): the other
	// processes need not wait for its clock meanwhile.
	Waiting(bool)
	// Fence runs fence, a barrier of every process of the job, as a
	// wait the network's ordering sees; every process leaves it at the
	// same virtual time.
	Fence(fence func() error) error
	// Stop takes the process out of the network's ordering for good (at
	// the end of its job).
	Stop()
}

// YieldAdvisor is implemented by transports that can tell a waiting
// process whether giving up its processor may let another process of the
// job do something: one that may run on the same processor and is not
// itself waiting for something still missing (see nicemu.NIC.YieldHelps).
// Where it may not, a waiter polls on instead of yielding: the yield would
// only hand the processor to a process that hands it back.
type YieldAdvisor interface {
	YieldHelps() bool
}

// CPUPublisher is implemented by transports whose processes tell each
// other which CPU each is pinned to (the knowledge behind a
// YieldAdvisor's answer).
type CPUPublisher interface {
	// PublishCPU publishes the CPU this process is pinned to, -1 for
	// none.
	PublishCPU(cpu int)
	// PeerUnpinned reports whether this process is pinned to a CPU and
	// another that shares its processors has published that it is
	// pinned to none.
	PeerUnpinned() bool
	// CPUMates returns the CPU this process is pinned to, -1 for none,
	// and the operating system's process ids of the job's processes
	// pinned to it, this one's included.
	CPUMates() (cpu int, pids []int)
}

// Clocked is implemented by transports that may run in virtual time.
type Clocked interface {
	// VirtualClock returns the clock, or nil in real time.
	VirtualClock() Clock
}

func (k CmdKind) String() string {
	if int(k) < len(cmdNames) && k != 0 {
		return cmdNames[k]
	}
	return fmt.Sprintf("CmdKind(%d)", k)
}

// MaxHead is the size of a command's inline header.
const MaxHead = 56

// Command is one IR command. Commands are values; the engine never retains
// pointers to them after they are issued.
type Command struct {
	Kind    CmdKind
	Peer    int
	Region  RegionID
	Off     uint64
	HeadLen uint8
	Head    [MaxHead]byte // written before Data (CmdWrite)
	Data    []byte        // source (CmdWrite, CmdRegister) or destination (CmdRead)
	Signal  uint64        // CmdWrite: flag word written last, at SigOff
	SigOff  uint64
	Old     uint64 // CmdCAS; CmdRead with Size ReadChanged: the word read before; CmdCombine: the lock's offset
	New     uint64 // CmdCAS; CmdFetchAdd: the addend; CmdCombine: the code
	Size    int    // CmdAlloc, CmdAllocQueue, CmdWatchSlot; CmdWatchLine, CmdWriteLine: LineInPeer; CmdRead: ReadChanged; CmdCombine: the lock's region
	Token   uint64 // echoed in the completion event; 0: no event wanted
	Result  []byte // CmdCombine: where the bytes before go, or nil
	// Lazy marks a CmdWrite that nothing waits for before a later
	// command to the same Peer (a one-sided put, which a flush settles
	// with a read behind it): an asynchronous network may keep it in its
	// queue until its next command to Peer or its next Poll, and send the
	// two at once.
	Lazy bool
}

// EventKind is the kind of an IR event.
type EventKind uint8

// IR events delivered to the engine.
const (
	// EvNone: nothing to report now. What Transport.Execute's nil
	// stands for: the command succeeded, or, when its Token is not 0,
	// its completion will come later through Transport.Poll.
	EvNone  EventKind = iota
	EvDone            // the command with Token completed
	EvError           // the command failed (Token 0: one that asked for no event); Err says why
	// EvRecord: a record arrived from process Peer, through a ring
	// (CmdWatchRing) or the receive queue (CmdAllocQueue). Head is its
	// meta (RecordMeta bytes), Data its body; both are valid only during
	// the Step that delivers them.
	EvRecord
	// EvSignal: the slot of a CmdWatchSlot was signalled; Token is the
	// watch's, Value the signal word, Data the bytes after it (valid only
	// during the Step).
	EvSignal
	// EvLine: a record arrived from process Peer through the pair's
	// shared line (CmdWatchLine), its meta in the words that the line
	// carries it in, so that nobody writes it out to read it back: Token
	// holds the tag (low 32 bits) and the context (high 32); Value the
	// kind (bits 0-7), the flags (8-15), the body's length (16-31) and
	// the sender's acknowledgement (32-63). Data is the body, valid only
	// during the Step. A record of kind layout.KindLineAck is the
	// acknowledgement alone.
	EvLine
)

// Event is one IR event: the completion of a command, or an arrival.
type Event struct {
	Kind  EventKind
	Token uint64
	Value uint64 // CmdCAS, CmdFetchAdd: previous value; CmdRegister, CmdAlloc, CmdAllocQueue: RegionID; EvSignal: the signal word
	Mem   []byte // CmdAlloc: the local view of the memory
	Peer  int    // EvRecord, EvLine: the sending process
	Head  []byte // EvRecord: the record's meta, valid only during Step
	Data  []byte // EvRecord, EvLine, EvSignal: valid only during Step
	Err   error
	// Padding to 128 bytes, a whole number of 16-byte words. An Event is
	// returned on the stack and copied, in 16-byte stores and loads; at
	// 120 bytes the last word of each was placed 8 bytes into the one
	// before it, and a load that spans two stores cannot take its data
	// from them: the copy after every Transport.Execute waited for the
	// callee's stores to land.
	_ uint64
}

// Sink takes the events a transport delivers: the engine, through its one
// way in. *ev is valid only during the call, and the sink may change it
// (the mux.Mux names a record's sender in the job): a deliverer keeps the
// event of each kind of arrival and refills it, so that the path of every
// message neither copies nor allocates one.
type Sink interface {
	Step(ev *Event)
}

// Caps are the facts a transport reports about itself: what its network
// can do, never what it recommends. Thresholds are made from them once,
// at a process's start (package tuning).
type Caps struct {
	// Name names the network ("martini", "tcp").
	Name string
	// LoadStore reports that memory the network gives (CmdAlloc) is
	// shared with every peer as plain memory, so that copies between
	// processes are loads and stores: rings are the fast eager path, and
	// both processes of a rendezvous can copy at once.
	LoadStore bool
	// AnyLoadStore reports that some peers share memory so (LoadStore:
	// every peer): those a network that shares memory reaches, when a Mux
	// joins it with one that does not.
	AnyLoadStore bool
	// MaxRecord is the largest Head+Data of one CmdEnqueue record.
	MaxRecord int
	// MaxInline is the largest write that travels as one programmed-I/O
	// transfer without a DMA (0: none).
	MaxInline int
	// PackedRecords is the largest write, signal word included, that the
	// network delivers as one packet (or, as PM/RHiNET's pmSend, packets
	// in order) whose last word lands last, so that a ring record of that
	// size may be written so (Config.PackedRecords; 0: none).
	PackedRecords int
	// SharedLines reports that two processes may both load and store one
	// cache line of memory the network gives, so that each pair's small
	// records travel through one line (Config.SharedLines, CmdWatchLine).
	SharedLines bool
	// Offload reports a synchronisation network (barrier, multicast) the
	// collectives may use.
	Offload bool
	// Combine reports that the network serves CmdCombine: the target
	// applies a combination under a lock of its memory, in one round
	// trip (a network whose target serves one-sided operations in
	// software). Others take the lock, read and write with their own
	// operations.
	Combine bool
	// Async reports that commands may complete after Execute returns,
	// their events coming from Poll.
	Async bool
	// Modelled reports that the network's costs follow a timing model
	// (the Martini model) rather than the host's hardware, so that
	// thresholds measured on hardware do not apply.
	Modelled bool
	// Latency is the time a small write takes to reach its target, where
	// the network knows it (its timing model's); 0: not known.
	Latency time.Duration
	// Bandwidth is the rate, in bytes a second, of one long transfer,
	// where the network knows it (its timing model's); 0: not known.
	Bandwidth float64
}

// Stat is one transport counter, by name.
type Stat struct {
	Name  string
	Value uint64
}

// Transport turns IR commands into operations of one network. It is the
// only network-aware part of the layer.
//
// Ownership: Execute copies what it needs of the command itself (Head and
// the other fields). The Data of a command whose Token is 0 must be
// consumed (sent or copied) before Execute returns; a command with a Token
// may use its Data until its completion event. CmdRegister, CmdAlloc,
// CmdAllocQueue, CmdRelease, CmdWatchRing and CmdWatchSlot complete before
// Execute returns. Commands to one peer take effect in the order they were
// issued.
type Transport interface {
	// Caps reports the transport's capabilities.
	Caps() Caps
	// Execute issues cmd and returns its completion event, or nil when
	// there is nothing to report now (see EvNone). The event is the
	// transport's own, refilled: valid until its next Execute or Poll,
	// and the caller may change it (see Report). Returning an Event by
	// value would cost every message's command the stores and the copy
	// of one.
	Execute(cmd *Command) *Event
	// Poll does the transport's share of progress (serving requests that
	// need the target's help), delivers to sink the events that arrived:
	// records, signalled slots and late completions, and reports whether
	// it did anything. sink must not call the transport.
	Poll(sink Sink) bool
	// Arm, Sleep and Disarm let an idle process block until a peer writes
	// to it: Arm returns a ticket, the caller checks for work once more,
	// then calls Sleep(ticket) or Disarm. Safe for concurrent use.
	Arm() uint32
	Sleep(ticket uint32)
	Disarm()
}

// TimedSleeper is implemented by transports whose Sleep can be bounded
// per call.
type TimedSleeper interface {
	// SleepFor is Sleep, bounded by d.
	SleepFor(ticket uint32, d time.Duration)
}

// Waker is implemented by transports that can wake the process's
// goroutines asleep in Sleep.
type Waker interface {
	Wake()
}

// StatsReporter is implemented by transports that count what they do.
type StatsReporter interface {
	// Stats returns the transport's counters.
	Stats() []Stat
}

// Report is what a transport's Execute returns for ev, the completion
// event it made: nil when ev is of EvNone, else keep, the transport's own
// event, set to ev.
func Report(keep *Event, ev Event) *Event {
	if ev.Kind == EvNone {
		return nil
	}
	*keep = ev
	return keep
}

// Outcome returns the event that ev, a result of Transport.Execute, stands
// for: *ev, or an event of EvNone when ev is nil.
func Outcome(ev *Event) Event {
	if ev == nil {
		return Event{}
	}
	return *ev
}
