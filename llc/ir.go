package llc

import (
	"errors"
	"fmt"
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
	CmdRead
	// CmdCAS compares the word at (Peer, Region, Off) with Old and, if
	// equal, replaces it by New; the event's Value is the previous word.
	CmdCAS
	// CmdRegister registers Data (process memory) for remote access; the
	// event's Value is the new RegionID.
	CmdRegister
	// CmdAlloc allocates and registers Size bytes of zeroed memory that
	// peers can write with plain stores (ring buffers); the event carries
	// Value (RegionID) and Mem.
	CmdAlloc
	// CmdRelease deregisters Region (and frees it if it came from CmdAlloc).
	CmdRelease
	// CmdAllocQueue allocates this process's receive queue: Size bytes of
	// zeroed memory (QueueHeader plus a power-of-two record space) that
	// the network fills with records from every sender, in arrival order
	// (a VPUSH queue on Martini). The event carries Value (its RegionID)
	// and Mem. A process has at most one queue.
	CmdAllocQueue
	// CmdEnqueue appends Head then Data to Peer's receive queue as one
	// record (at most MaxQueueRecord bytes). Token must not be 0: the
	// event is EvDone once the record is in the queue, or EvError with an
	// error matching ErrQueueFull when the queue has no room for it (the
	// record was not written; send it again later), or another error.
	CmdEnqueue
	// CmdQueueRelease tells the network that this process has consumed
	// its receive queue up to Off (bytes of records, monotonic), which
	// frees that space for senders.
	CmdQueueRelease
)

var cmdNames = [...]string{"", "Write", "Read", "CAS", "Register", "Alloc", "Release", "AllocQueue", "Enqueue", "QueueRelease"}

// Receive queue layout (CmdAllocQueue). The network writes, the owner
// reads:
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
// counts the skipped bytes too. The owner releases (CmdQueueRelease) the
// bytes it consumed, skipped bytes included.
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
)

// HostCharger is implemented by transports that charge host work, as a
// timing profile charges the thesis host's PM costs. Optional: an
// Endpoint whose transport does not implement it charges nothing.
type HostCharger interface {
	// Charge accounts n units of work w done just now.
	Charge(w HostWork, n int)
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
	Old     uint64 // CmdCAS
	New     uint64 // CmdCAS
	Size    int    // CmdAlloc
	Token   uint64 // echoed in the completion event; 0: no event wanted
}

// EventKind is the kind of an IR event.
type EventKind uint8

// IR events delivered to the engine.
const (
	EvNone  EventKind = iota // no completion to report
	EvDone                   // the command with Token completed
	EvError                  // the command failed; Err says why
)

// Event is one IR event: the completion of a command.
type Event struct {
	Kind  EventKind
	Token uint64
	Value uint64 // CmdCAS: previous value; CmdRegister/CmdAlloc: RegionID
	Mem   []byte // CmdAlloc: the local view of the memory
	Err   error
}

// Transport turns IR commands into operations of one network. It is the
// only network-aware part of the layer.
type Transport interface {
	// Execute performs cmd and returns its completion event (EvNone when
	// cmd.Token is 0 and it succeeded). Transports over hardware that
	// completes later would queue the event for Poll; the emulated Martini
	// completes every request before returning.
	Execute(cmd *Command) Event
	// Poll does the transport's share of progress (serving requests that
	// need the target's help) and reports whether it did anything.
	Poll() bool
	// Arm, Sleep and Disarm let an idle process block until a peer writes
	// to it: Arm returns a ticket, the caller checks for work once more,
	// then calls Sleep(ticket) or Disarm. Safe for concurrent use.
	Arm() uint32
	Sleep(ticket uint32)
	Disarm()
}
