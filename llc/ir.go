package llc

import "fmt"

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
)

var cmdNames = [...]string{"", "Write", "Read", "CAS", "Register", "Alloc", "Release"}

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
