package nicemu

import "testing"

// TestVirtualDeadlocked checks that a job is deadlocked only while every
// process waits with nothing written to it that it has not seen: not while
// one runs (computes, or sleeps outside the communication layer), takes no
// part (in Finalize), or has a write it has not looked at.
func TestVirtualDeadlocked(t *testing.T) {
	seg := virtualSegment(t, 2, 0)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, a, 4096)
	ca, cb := a.Clock(), b.Clock()
	if ca.Deadlocked() {
		t.Fatal("deadlocked before any process takes part")
	}
	ca.Run()
	cb.Run()
	ca.Look()
	ca.Waiting(true)
	if ca.Deadlocked() || cb.Deadlocked() {
		t.Fatal("deadlocked while process 1 runs")
	}
	cb.Look()
	cb.Waiting(true)
	if !ca.Deadlocked() || !cb.Deadlocked() {
		t.Fatal("not deadlocked while both wait with nothing new")
	}
	// Process 1 runs again and writes to process 0, then waits: process
	// 0 has a write to look at.
	cb.Waiting(false)
	if err := b.Push(0, sid, 0, make([]byte, 8), nil); err != nil {
		t.Fatal(err)
	}
	cb.Look()
	cb.Waiting(true)
	if ca.Deadlocked() || cb.Deadlocked() {
		t.Fatal("deadlocked while process 0 has a write it has not seen")
	}
	ca.Look()
	ca.Waiting(true) // as if that look had taken nothing
	if !ca.Deadlocked() {
		t.Fatal("not deadlocked once process 0 has seen the write and waits")
	}
	cb.Stop() // Finalize
	if ca.Deadlocked() {
		t.Fatal("deadlocked while process 1 takes no part")
	}
}
