package takeover

import "fmt"

// State is a state of one of the four modules. All modules share IDLE and
// the suspended state MISS; every other state belongs to exactly one module.
// String returns the name the thesis uses (Fig 7.5, Fig 7.6) or, for the
// states the thesis does not name, the name this package gives them.
type State uint8

// Common states.
const (
	// StateIdle: the module waits for work (a kicked Window, an arriving
	// packet, a hand-over from another module).
	StateIdle State = iota
	// StateMiss is the suspended state (サスペンデッドステート, thesis
	// §7.3.1, l.1739): the module makes no transition and holds no
	// resource; its registers, its last-state register and its cause
	// register belong to the firmware until the firmware acts.
	StateMiss
)

// Initiator states (Fig 7.5, thesis l.1857-1872; PHDR and BHDR are this
// package's own names for the PULL and BOTF paths the text does not name).
const (
	// StatePGID looks the Window up in the PGIDTBL (PGID, PID) and checks
	// that the target belongs to the same job.
	StatePGID State = iota + StateMiss + 1
	// StateIPA starts the PATLB lookup of the current page of the source.
	StateIPA
	// StateIPA2 checks the PATLB result: a miss suspends here.
	StateIPA2
	// StateCHK1 issues the DMA read of one piece (at most the rest of the
	// page) of the current packet; loops to IPA while the packet needs
	// more pieces.
	StateCHK1
	// StateCHK2 waits for the DMA reads of the packet, then hands header
	// and payload to the network; loops to IPA while the request needs
	// more packets.
	StateCHK2
	// StateCONT writes the Window's contflag (the address comes from the
	// CONTTBL, untranslated) telling the process the Window may be reused.
	StateCONT
	// StatePHDR builds and sends the header-only pull-request packet.
	StatePHDR
	// StateBHDR overwrites the PGID field of the BOTF packet image with
	// the PGIDTBL value and sends the image.
	StateBHDR
)

// RFend states (Fig 7.6, thesis l.1876-1891).
const (
	// StateFLIT0 reads the first header flit (routing, packet type).
	StateFLIT0 State = iota + StateBHDR + 1
	// StateFLIT1 reads the second flit: a network-control packet suspends.
	StateFLIT1
	// StateFLIT2 reads the third flit (destination PID, SID).
	StateFLIT2
	// StateFLIT3 reads the last flit (offset, length, ack and reply
	// addresses): a packet type without a hardware path suspends.
	StateFLIT3
	// StateRVACHK starts the RVATLB lookup of (PGID, PID, SID).
	StateRVACHK
	// StateRVACHK2 repeats the RVATLB lookup; it exists so that the
	// hardware can resume safely after firmware refilled the RVATLB.
	StateRVACHK2
	// StateRVA checks the RVATLB result (a miss suspends), forms the
	// virtual address and reserves the back-end module.
	StateRVA
	// StateSET1 passes destination process and virtual address.
	StateSET1
	// StateSET2 passes length and flag address.
	StateSET2
	// StateSET3 passes the reply information (source PGID/PID, ack).
	StateSET3
	// StateSET4 starts the back-end module (RBend or Replier).
	StateSET4
	// StateAOTF decodes an AOTF packet and starts its RVATLB lookup.
	StateAOTF
	// StateAOTFR checks the lookup and hands the 8-byte write to RBend.
	StateAOTFR
)

// RBend states: the thesis does not name them; these are this package's.
const (
	// StateBPA starts the PATLB lookup of the current receive page.
	StateBPA State = iota + StateAOTFR + 1
	// StateBPA2 checks the PATLB result: a miss suspends here.
	StateBPA2
	// StateBDMA issues the DMA write of one piece (payload or flag);
	// loops to BPA while pieces remain.
	StateBDMA
	// StateBWAIT waits for the DMA writes to complete.
	StateBWAIT
	// StateBHAND hands a push that asked for an ack over to the Replier.
	StateBHAND
)

// Replier states: the thesis does not name them; these are this package's.
const (
	// StateRACK decides on and builds the ack for a push just written.
	// Not suspendable (thesis l.2068): VPUSH's breakpoint here can only
	// be followed by a cancellation.
	StateRACK State = iota + StateBHAND + 1
	// StateRPA starts the PATLB lookup of the current page of a pull
	// source.
	StateRPA
	// StateRPA2 checks the PATLB result: a miss suspends here.
	StateRPA2
	// StateRDMA issues the DMA read of one piece of the reply packet;
	// loops to RPA while the packet needs more pieces.
	StateRDMA
	// StateRWAIT waits for the DMA reads of the reply packet.
	StateRWAIT
	// StateRSEND sends the ack or the pull-reply packet; loops to RPA
	// while the pull needs more packets.
	StateRSEND
)

// numStates is the number of states; every state fits in a stateSet.
const numStates = int(StateRSEND) + 1

// stateNames are the states' names, indexed by state.
var stateNames = [...]string{
	StateIdle:    "IDLE",
	StateMiss:    "MISS",
	StatePGID:    "PGID",
	StateIPA:     "IPA",
	StateIPA2:    "IPA2",
	StateCHK1:    "CHK1",
	StateCHK2:    "CHK2",
	StateCONT:    "CONT",
	StatePHDR:    "PHDR",
	StateBHDR:    "BHDR",
	StateFLIT0:   "FLIT0",
	StateFLIT1:   "FLIT1",
	StateFLIT2:   "FLIT2",
	StateFLIT3:   "FLIT3",
	StateRVACHK:  "RVACHK",
	StateRVACHK2: "RVACHK2",
	StateRVA:     "RVA",
	StateSET1:    "SET1",
	StateSET2:    "SET2",
	StateSET3:    "SET3",
	StateSET4:    "SET4",
	StateAOTF:    "AOTF",
	StateAOTFR:   "AOTFR",
	StateBPA:     "BPA",
	StateBPA2:    "BPA2",
	StateBDMA:    "BDMA",
	StateBWAIT:   "BWAIT",
	StateBHAND:   "BHAND",
	StateRACK:    "RACK",
	StateRPA:     "RPA",
	StateRPA2:    "RPA2",
	StateRDMA:    "RDMA",
	StateRWAIT:   "RWAIT",
	StateRSEND:   "RSEND",
}

// String returns the state's name.
func (s State) String() string {
	if int(s) < len(stateNames) && stateNames[s] != "" {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// stateSet is a set of states (one bit each).
type stateSet uint64

func (ss stateSet) has(s State) bool { return int(s) < numStates && ss&(1<<s) != 0 }

func stateRange(first, last State) stateSet {
	var ss stateSet
	for s := first; s <= last; s++ {
		ss |= 1 << s
	}
	return ss
}

// statesOf is the set of states of module id (IDLE and MISS included).
func statesOf(id ModuleID) stateSet {
	common := stateSet(1<<StateIdle | 1<<StateMiss)
	switch id {
	case Initiator:
		return common | stateRange(StatePGID, StateBHDR)
	case RFend:
		return common | stateRange(StateFLIT0, StateAOTFR)
	case RBend:
		return common | stateRange(StateBPA, StateBHAND)
	case Replier:
		return common | stateRange(StateRACK, StateRSEND)
	}
	return 0
}

// ValidState reports whether s is a state of module id. MISS is a state of
// every module, but no firmware action may name it as a target.
func ValidState(id ModuleID, s State) bool { return statesOf(id).has(s) }

// StatesOf returns the states of module id in numeric order, IDLE and MISS
// first. It returns nil for an unknown module.
func StatesOf(id ModuleID) []State {
	ss := statesOf(id)
	var out []State
	for s := State(0); int(s) < numStates; s++ {
		if ss.has(s) {
			out = append(out, s)
		}
	}
	return out
}
