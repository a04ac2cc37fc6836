package takeover

import "fmt"

// PGID is a Process Group ID: it names one parallel job. The Initiator takes
// it from the PGIDTBL, never from the requesting process, so it cannot be
// forged (thesis §4.2.4).
type PGID uint32

// PID names a process within its job.
type PID uint32

// SID names a registered segment of a process (Segment ID). Remote memory
// is addressed as (PID, SID, offset); the receiver's RVATLB maps
// (PGID, PID, SID) to the segment's base virtual address (thesis §4.2.5).
type SID uint32

// Sizes the hardware works with. They are properties of the modelled chip,
// not costs.
const (
	// MTU is RHiNET-2's maximum payload per packet. PUSH and pull replies
	// longer than this are split into several packets.
	MTU = 2048
	// PageSize is the unit of PATLB translation: every DMA piece lies
	// inside one page.
	PageSize = 4096
	// FlagSize is the size of a completion flag (ack flag, pull completion
	// flag) written into host memory: one 8-byte word of value 1.
	FlagSize = 8
	// MaxVPUSH is the largest VPUSH message (thesis l.1995: the MTU, so
	// that messages of several senders never interleave in the queue).
	MaxVPUSH = 2048
)

// ModuleID names one of the four Martini modules that have the takeover
// mechanism (thesis §7.4, l.1829).
type ModuleID uint8

// The four modules. Initiator and Replier are in ICONT (the sender side);
// RFend and RBend are the front and back end of RCONT (the receiver side).
const (
	// Initiator processes requests written into Windows: PUSH, PULL, BOTF.
	Initiator ModuleID = iota
	// Replier generates ack packets and pull-reply packets.
	Replier
	// RFend analyses the headers of arriving packets and translates SIDs
	// through the RVATLB.
	RFend
	// RBend translates receive addresses through the PATLB and issues the
	// DMA writes into host memory.
	RBend
)

// NumModules is the number of modules with the takeover mechanism.
const NumModules = 4

// String returns the module's name as the thesis writes it.
func (id ModuleID) String() string {
	switch id {
	case Initiator:
		return "Initiator"
	case Replier:
		return "Replier"
	case RFend:
		return "RFend"
	case RBend:
		return "RBend"
	}
	return fmt.Sprintf("ModuleID(%d)", uint8(id))
}

// valid reports whether id names one of the four modules.
func (id ModuleID) valid() bool { return id < NumModules }
