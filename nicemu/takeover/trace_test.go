package takeover

import (
	"strings"
	"testing"
)

// TestEventStrings: every event of a busy scenario formats readably.
func TestEventStrings(t *testing.T) {
	w := newWorld(t, scenarioFirmware(nil))
	_ = w.nics[1].Module(RBend).SetBreakpoint(StateBDMA)
	_, tr := scenario(t, w)
	kinds := make(map[EventKind]bool)
	for _, e := range tr {
		kinds[e.Kind] = true
		s := e.String()
		if s == "" || strings.Contains(s, "EventKind(") || strings.Contains(s, "State(") {
			t.Errorf("%q", s)
		}
	}
	for k := EventTransition; k <= EventRefused; k++ {
		if !kinds[k] && k != EventWait && k != EventRefused {
			t.Errorf("scenario has no %v event", k)
		}
	}
	if s := (Event{Kind: EventWait, Module: RBend, From: StateBWAIT}).String(); s != "RBend wait in BWAIT" {
		t.Errorf("%q", s)
	}
	if s := (Event{Kind: EventRefused, Module: Initiator, Refusal: RefusedForeignJob}).String(); !strings.Contains(s, "another job") {
		t.Errorf("%q", s)
	}
}

// TestZeroMapEnv: a zero MapEnv is an empty environment.
func TestZeroMapEnv(t *testing.T) {
	var e MapEnv
	if _, _, ok := e.LookupPGIDTBL(1); ok || e.SameJob(1, 1) {
		t.Error("zero MapEnv knows a Window or a process")
	}
	e.BindWindow(1, 2, 3)
	e.Pin(3, 0x1000, 10, 0x5000)
	if pa, ok := e.Translate(3, 0x1004); !ok || pa != 0x5004 {
		t.Errorf("Translate: %#x %v", pa, ok)
	}
	if !e.RefillPATLB(2, 3, 0x1004) {
		t.Error("refill of a pinned page failed")
	}
	if pa, hit := e.LookupPATLB(2, 3, 0x1008); !hit || pa != 0x5008 {
		t.Errorf("lookup after refill: %#x %v", pa, hit)
	}
	if e.RefillPATLB(9, 3, 0x1004) {
		t.Error("refill for another job succeeded")
	}
}
