package nicemu

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// minorFaults returns the calling thread's minor page faults so far.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return ru.Minflt
}

// faultsWriting writes a byte into every page of mem and returns the page
// faults that took.
func faultsWriting(t *testing.T, mem []byte) int64 {
	t.Helper()
	before := minorFaults(t)
	for i := 0; i < len(mem); i += PageSize {
		mem[i] = 1
	}
	return minorFaults(t) - before
}

// TestPeerRegionMapped checks that a process maps a peer's segment region
// in whole on its first request to it (mapPeerRegion), so that its writes
// across the region then take no page faults, where a region it never
// addressed faults page by page.
func TestPeerRegionMapped(t *testing.T) {
	probe, err := unix.Mmap(-1, 0, PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(probe)
	if err := unix.Madvise(probe, unix.MADV_POPULATE_WRITE); err != nil {
		t.Skipf("madvise MADV_POPULATE_WRITE: %v (Linux 5.14 or later): regions fault in page by page", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	seg := newSegment(t, testConfig(2))
	owner := openNIC(t, seg, 0)
	// The peer maps the segment a second time, as another process would:
	// the owner's page tables are not its own.
	seg2 := attachAgain(t, seg)
	peer := openNIC(t, seg2, 1)

	const size = 64 * PageSize
	sid, _ := mustRegisterSegment(t, owner, size)
	unused, _ := mustRegisterSegment(t, owner, size) // never addressed by the peer
	view := func(s SID) []byte {
		v, ok := seg2.readSID(0, s)
		if !ok {
			t.Fatalf("SID %d not registered", s)
		}
		return seg2.mem[v.base : v.base+v.length]
	}
	control := faultsWriting(t, view(unused))
	if control < size/PageSize/2 {
		t.Skipf("writing %d unmapped pages took only %d page faults: this kernel maps shared memory ahead, nothing to compare", size/PageSize, control)
	}
	if err := peer.Push(0, sid, 0, make([]byte, 8), nil); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if f := faultsWriting(t, view(sid)); f > size/PageSize/8 {
		t.Errorf("writing the region of %d pages after a Push into it took %d page faults (an unmapped region: %d)", size/PageSize, f, control)
	}
}
