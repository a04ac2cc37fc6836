package nicemu

import (
	"strings"
	"testing"
)

// The view of another process's segment region is the same memory: a
// store through it is what the owner loads, and the other way round;
// process memory, unregistered SIDs and absent processes are refused.
func TestSharedRegion(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0, n1 := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, n1, 4096)
	view, err := n0.SharedRegion(1, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(view) != 4096 || cap(view) != 4096 {
		t.Fatalf("view of %d bytes (capacity %d), want 4096", len(view), cap(view))
	}
	view[100] = 7
	mem[4095] = 9
	if mem[100] != 7 || view[4095] != 9 {
		t.Errorf("owner reads %d (want 7), the view reads %d (want 9)", mem[100], view[4095])
	}
	own := mustRegisterMemory(t, n1, make([]byte, 64))
	for _, c := range []struct {
		dst  int
		sid  SID
		want string
	}{
		{1, own, "process memory"},
		{1, 0, "not registered"},
		{2, sid, "no such process"},
	} {
		if _, err := n0.SharedRegion(c.dst, c.sid); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SharedRegion(%d, %d): %v, want an error saying %q", c.dst, c.sid, err, c.want)
		}
	}
	if err := n1.Deregister(sid); err != nil {
		t.Fatal(err)
	}
	if _, err := n0.SharedRegion(1, sid); err == nil {
		t.Error("a deregistered region is still shared")
	}
}
