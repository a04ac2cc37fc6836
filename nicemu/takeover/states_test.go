package takeover

import (
	"reflect"
	"strings"
	"testing"
)

func TestStateNames(t *testing.T) {
	want := map[State]string{
		StateIdle: "IDLE", StateMiss: "MISS",
		StatePGID: "PGID", StateIPA: "IPA", StateIPA2: "IPA2", StateCHK1: "CHK1", StateCHK2: "CHK2", StateCONT: "CONT",
		StatePHDR: "PHDR", StateBHDR: "BHDR",
		StateFLIT0: "FLIT0", StateFLIT1: "FLIT1", StateFLIT2: "FLIT2", StateFLIT3: "FLIT3",
		StateRVACHK: "RVACHK", StateRVACHK2: "RVACHK2", StateRVA: "RVA",
		StateSET1: "SET1", StateSET2: "SET2", StateSET3: "SET3", StateSET4: "SET4",
		StateAOTF: "AOTF", StateAOTFR: "AOTFR",
		StateBPA: "BPA", StateBPA2: "BPA2", StateBDMA: "BDMA", StateBWAIT: "BWAIT", StateBHAND: "BHAND",
		StateRACK: "RACK", StateRPA: "RPA", StateRPA2: "RPA2", StateRDMA: "RDMA", StateRWAIT: "RWAIT", StateRSEND: "RSEND",
	}
	if len(want) != numStates {
		t.Fatalf("%d names for %d states", len(want), numStates)
	}
	for s, name := range want {
		if got := s.String(); got != name {
			t.Errorf("State %d is %q, want %q", s, got, name)
		}
	}
	if got := State(200).String(); !strings.HasPrefix(got, "State(") {
		t.Errorf("unknown state prints %q", got)
	}
}

func TestStatesOfModules(t *testing.T) {
	want := map[ModuleID][]State{
		Initiator: {StateIdle, StateMiss, StatePGID, StateIPA, StateIPA2, StateCHK1, StateCHK2, StateCONT, StatePHDR, StateBHDR},
		RFend: {StateIdle, StateMiss, StateFLIT0, StateFLIT1, StateFLIT2, StateFLIT3, StateRVACHK, StateRVACHK2, StateRVA,
			StateSET1, StateSET2, StateSET3, StateSET4, StateAOTF, StateAOTFR},
		RBend:   {StateIdle, StateMiss, StateBPA, StateBPA2, StateBDMA, StateBWAIT, StateBHAND},
		Replier: {StateIdle, StateMiss, StateRACK, StateRPA, StateRPA2, StateRDMA, StateRWAIT, StateRSEND},
	}
	owners := make(map[State]int)
	for id, states := range want {
		if got := StatesOf(id); !reflect.DeepEqual(got, states) {
			t.Errorf("StatesOf(%v) = %v, want %v", id, got, states)
		}
		for _, s := range states {
			owners[s]++
		}
	}
	for s := State(0); int(s) < numStates; s++ {
		n := owners[s]
		if (s == StateIdle || s == StateMiss) && n != NumModules || s > StateMiss && n != 1 {
			t.Errorf("state %v belongs to %d modules", s, n)
		}
	}
	if StatesOf(ModuleID(9)) != nil || ValidState(ModuleID(9), StateIdle) {
		t.Error("an unknown module has states")
	}
}

// TestRaisesTable pins the exception map: Table 7.1 and the last states of
// §7.4.2, plus this package's timeout and RBend/Replier states.
func TestRaisesTable(t *testing.T) {
	t.Run("per state", checkRaisesPerState)
	t.Run("Table 7.1", checkRaisersPerCause)
	// Thesis l.1991 and l.2068: nothing after RVA is suspendable, nor the
	// Replier's ack path.
	t.Run("not suspendable", checkUnsuspendableStates)
}

// raisingStates maps each module's states that raise exceptions to the
// causes they raise.
func raisingStates() map[ModuleID]map[State]CauseSet {
	return map[ModuleID]map[State]CauseSet{
		Initiator: {
			StateIdle: causes(CauseSpecialRequest),
			StatePGID: causes(CauseProtectionViolation),
			StateIPA2: causes(CausePATLBMiss),
			StateCHK2: causes(CauseTimeout),
		},
		RFend: {
			StateFLIT1: causes(CauseSpecialPacket),
			StateFLIT3: causes(CauseSpecialPacket),
			StateRVA:   causes(CauseRVATLBMiss, CauseTimeout),
			StateAOTFR: causes(CauseRVATLBMiss, CauseTimeout),
		},
		RBend: {
			StateBPA2:  causes(CausePATLBMiss),
			StateBWAIT: causes(CauseTimeout),
			StateBHAND: causes(CauseTimeout),
		},
		Replier: {
			StateRPA2:  causes(CausePATLBMiss),
			StateRWAIT: causes(CauseTimeout),
		},
	}
}

// checkRaisesPerState: every state of every module raises what
// raisingStates says, none for an invalid state, and is suspendable
// exactly when it raises something.
func checkRaisesPerState(t *testing.T) {
	want := raisingStates()
	for id := ModuleID(0); id < NumModules; id++ {
		for s := State(0); int(s) < numStates; s++ {
			exp := want[id][s]
			if !ValidState(id, s) {
				exp = 0
			}
			if got := Raises(id, s); got != exp {
				t.Errorf("Raises(%v, %v) = %b, want %b", id, s, got, exp)
			}
			if Suspendable(id, s) != (exp != 0) {
				t.Errorf("Suspendable(%v, %v) = %v", id, s, Suspendable(id, s))
			}
		}
	}
}

// checkRaisersPerCause: the modules raising each exception are those of
// Table 7.1.
func checkRaisersPerCause(t *testing.T) {
	table := map[Cause][]ModuleID{
		CauseSpecialRequest:      {Initiator},
		CauseProtectionViolation: {Initiator},
		CausePATLBMiss:           {Initiator, Replier, RBend},
		CauseSpecialPacket:       {RFend},
		CauseRVATLBMiss:          {RFend},
		CauseTimeout:             {Initiator, Replier, RFend, RBend},
	}
	for c, mods := range table {
		var got []ModuleID
		for id := ModuleID(0); id < NumModules; id++ {
			for s := State(0); int(s) < numStates; s++ {
				if Raises(id, s).Has(c) {
					got = append(got, id)
					break
				}
			}
		}
		if !reflect.DeepEqual(got, mods) {
			t.Errorf("%v raised by %v, Table 7.1 says %v", c, got, mods)
		}
	}
}

// checkUnsuspendableStates: the RFend's SET states and the Replier's RACK
// are not suspendable.
func checkUnsuspendableStates(t *testing.T) {
	for _, s := range []State{StateSET1, StateSET2, StateSET3, StateSET4} {
		if Suspendable(RFend, s) {
			t.Errorf("RFend %v suspendable", s)
		}
	}
	if Suspendable(Replier, StateRACK) {
		t.Error("Replier RACK suspendable")
	}
}

func TestNamesOfEnums(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Initiator.String(), "Initiator"}, {Replier.String(), "Replier"}, {RFend.String(), "RFend"}, {RBend.String(), "RBend"},
		{CausePATLBMiss.String(), "PATLBMiss"}, {CauseRVATLBMiss.String(), "RVATLBMiss"}, {CauseBreakpoint.String(), "Breakpoint"},
		{ModeHard.String(), "HARD"}, {ModeSoft.String(), "SOFT"},
		{RequestPush.String(), "PUSH"}, {PacketPullReply.String(), "pull-reply"},
		{ActionCompleteSoft.String(), "complete-soft"}, {EffectContFlag.String(), "contflag"},
		{OpRefillRVATLB.String(), "refill-rvatlb"}, {EventTakeover.String(), "takeover"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for r := Refusal(0); r < NumRefusals; r++ {
		if strings.HasPrefix(r.String(), "Refusal(") {
			t.Errorf("refusal %d has no name", r)
		}
	}
	for c := Cause(0); c < NumCauses; c++ {
		if strings.HasPrefix(c.String(), "Cause(") {
			t.Errorf("cause %d has no name", c)
		}
	}
}
