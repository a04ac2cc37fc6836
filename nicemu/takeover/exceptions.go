package takeover

import "fmt"

// Cause is the content of a module's cause register: why it entered MISS.
// The exceptions are those of Table 7.1 (thesis l.1837-1845) plus
// Breakpoint (§7.4.1, l.1847).
type Cause uint8

// The causes of a suspension.
const (
	// CauseNone: the module has never been suspended.
	CauseNone Cause = iota
	// CauseSpecialRequest (Initiator, IDLE): the kicked request is not a
	// PUSH, PULL or BOTF handled in hardware; firmware performs it.
	CauseSpecialRequest
	// CauseProtectionViolation (Initiator, PGID): the Window has no
	// PGIDTBL entry, or the target is not in the requester's job.
	CauseProtectionViolation
	// CausePATLBMiss (Initiator IPA2, RBend BPA2, Replier RPA2): the
	// PATLB holds no translation for the page.
	CausePATLBMiss
	// CauseSpecialPacket (RFend FLIT1, FLIT3): a network-control packet,
	// or a packet type without a hardware path.
	CauseSpecialPacket
	// CauseRVATLBMiss (RFend RVA, AOTFR): the RVATLB holds no entry for
	// (PGID, PID, SID), or the access does not fit the cached segment.
	CauseRVATLBMiss
	// CauseTimeout (every module): the module waited more than the NIC's
	// TimeoutSteps for its partner (a DMA completion, a busy module).
	CauseTimeout
	// CauseBreakpoint: the module entered a state carrying a breakpoint.
	CauseBreakpoint
)

// NumCauses is the number of causes, CauseNone included.
const NumCauses = 8

// String returns the cause's name.
func (c Cause) String() string {
	switch c {
	case CauseNone:
		return "none"
	case CauseSpecialRequest:
		return "SpecialRequest"
	case CauseProtectionViolation:
		return "ProtectionViolation"
	case CausePATLBMiss:
		return "PATLBMiss"
	case CauseSpecialPacket:
		return "SpecialPacket"
	case CauseRVATLBMiss:
		return "RVATLBMiss"
	case CauseTimeout:
		return "Timeout"
	case CauseBreakpoint:
		return "Breakpoint"
	}
	return fmt.Sprintf("Cause(%d)", uint8(c))
}

// CauseSet is a set of causes.
type CauseSet uint16

// Has reports whether c is in the set.
func (cs CauseSet) Has(c Cause) bool { return c < NumCauses && cs&(1<<c) != 0 }

func causes(cs ...Cause) CauseSet {
	var set CauseSet
	for _, c := range cs {
		set |= 1 << c
	}
	return set
}

// Raises is the exception map of the model: the causes other than
// Breakpoint that module id can raise in state s. It follows Table 7.1 and
// the last-state lists of §7.4.2 (Initiator IDLE, PGID, IPA2; RFend FLIT1,
// FLIT3, RVA); the timeout states and the states of RBend, Replier and the
// AOTF path are this package's. A module raises an exception only where
// Raises says so; the tests hold the hardware to it.
func Raises(id ModuleID, s State) CauseSet {
	switch id {
	case Initiator:
		switch s {
		case StateIdle:
			return causes(CauseSpecialRequest)
		case StatePGID:
			return causes(CauseProtectionViolation)
		case StateIPA2:
			return causes(CausePATLBMiss)
		case StateCHK2:
			return causes(CauseTimeout)
		}
	case RFend:
		switch s {
		case StateFLIT1, StateFLIT3:
			return causes(CauseSpecialPacket)
		case StateRVA, StateAOTFR:
			return causes(CauseRVATLBMiss, CauseTimeout)
		}
	case RBend:
		switch s {
		case StateBPA2:
			return causes(CausePATLBMiss)
		case StateBWAIT, StateBHAND:
			return causes(CauseTimeout)
		}
	case Replier:
		switch s {
		case StateRPA2:
			return causes(CausePATLBMiss)
		case StateRWAIT:
			return causes(CauseTimeout)
		}
	}
	return 0
}

// Suspendable reports whether state s of module id is suspendable: the
// module can be stopped there and later resumed there with the hardware
// continuing correctly (thesis §7.3.1). As in Martini (l.1847), exactly the
// states that can raise an exception are suspendable. Breakpoints may be
// set on any state, but resuming from a non-suspendable one is unsafe: the
// module's partners may have moved on (VPUSH, for instance, must cancel
// the Replier it stopped at RACK).
func Suspendable(id ModuleID, s State) bool { return Raises(id, s) != 0 }
