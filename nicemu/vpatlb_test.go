package nicemu

import (
	"testing"
	"time"
)

// pushesFrom runs 8-byte PUSHes from process 0 of a fresh virtual segment
// into process 1's memory, from the source page of each entry of pages (an
// index into a buffer of several pages; -1 flushes the PATLB instead), and
// returns process 0's clock at the end.
func pushesFrom(t *testing.T, pages []int) time.Duration {
	seg := virtualSegment(t, 2, 0)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, b, 4096)
	buf := make([]byte, 4*PageSize)
	for _, p := range pages {
		if p < 0 {
			a.FlushPATLB()
			continue
		}
		if err := a.Push(1, sid, 64, buf[p*PageSize+PageSize/2:][:8], nil); err != nil {
			t.Fatal(err)
		}
	}
	return a.Clock().Now()
}

// TestVirtualPATLBDeterministic checks that in virtual time a request's
// time does not depend on where in the process's memory its source lies
// (a Go heap places buffers differently from run to run), and that a flush
// of the PATLB still makes the next request miss (Fig 7.9).
func TestVirtualPATLBDeterministic(t *testing.T) {
	same := pushesFrom(t, []int{0, 0, 0})
	fresh := pushesFrom(t, []int{0, 1, 2})
	if same != fresh {
		t.Errorf("three PUSHes from one source page took %v, from three pages %v", same, fresh)
	}
	flushed := pushesFrom(t, []int{0, -1, 0, 0})
	p, err := LookupProfile(ProfileMartini)
	if err != nil {
		t.Fatal(err)
	}
	refill := p.PATLBRefill
	if flushed-same < refill {
		t.Errorf("a flush of the PATLB between PUSHes added %v, want at least a refill (%v)", flushed-same, refill)
	}
}
