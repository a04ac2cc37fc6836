package nicemu

import (
	"math"
	"testing"
	"time"
)

// TestVirtualWriteCountedOnceLanded checks that a write into a process's
// memory counts (lowers the floor of a process that waits having seen
// every write) only once its data has landed, not when its cells are
// stamped: a process that looked between the two counted the write as
// seen, found no data, and waited with no floor, so that the others went
// on ahead of the time at which it then took the data (IS class S over
// PM/RHiNET moved by 3% from run to run).
func TestVirtualWriteCountedOnceLanded(t *testing.T) {
	seg := virtualSegment(t, 2, 0)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, b, 4096)
	c := b.Clock()
	c.Reach(time.Second) // later than the PUSH below: its sender need not wait for b
	c.Run()
	c.Look()
	c.Waiting(true)
	if f := seg.floor(1); f != math.MaxInt64 {
		t.Fatalf("a process waiting with every write seen has floor %d, want none", f)
	}
	at := uint64(b.segRegions[sid].off) + 64
	seg.stamp(1, at, 8, 1000) // the first half of a write: the data has not landed
	if f := seg.floor(1); f != math.MaxInt64 {
		t.Errorf("cells stamped, data not landed: floor %d, want none (a look now would count a write whose data it cannot find)", f)
	}
	if err := a.Push(1, sid, 64, []byte{1, 2, 3, 4, 5, 6, 7, 8}, nil); err != nil {
		t.Fatal(err)
	}
	if mem[64] != 1 {
		t.Fatal("the PUSH did not land")
	}
	if f := seg.floor(1); f != int64(c.Now()) {
		t.Errorf("a write landed in a waiting process's memory: floor %d, want its clock %d", f, c.Now())
	}
}
