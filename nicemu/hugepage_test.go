package nicemu

import (
	"fmt"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/hugepage"
)

// fakeHuge returns a hugePages of 2 MiB pages whose collapses are
// recorded, and answered by answer, instead of made.
func fakeHuge(answer func(tries int) unix.Errno) (*hugePages, *[]uintptr) {
	var tried []uintptr
	h := &hugePages{size: 2 << 20, regions: make(map[uintptr]hugeRegion), stats: &Stats{}}
	h.collapse = func(r, size uintptr) unix.Errno {
		tried = append(tried, r)
		return answer(len(tried))
	}
	return h, &tried
}

// TestHugePagesCountByRegion checks that a buffer's bytes count toward
// each region it covers by the part it covers, and that a region is
// collapsed once, when it has carried collapseAfter bytes.
func TestHugePagesCountByRegion(t *testing.T) {
	h, tried := fakeHuge(func(int) unix.Errno { return 0 })
	const mb = 1 << 20
	base := uintptr(64 * mb) // a region boundary
	// 1 MiB at the end of the first region and 1 MiB at the start of the
	// second: each region carries 1 MiB a call.
	for range collapseAfter/mb - 1 {
		h.note(base+mb, 2*mb)
	}
	if len(*tried) != 0 {
		t.Fatalf("collapsed %x before the regions carried %d bytes", *tried, collapseAfter)
	}
	h.note(base+mb, 2*mb)
	if want := []uintptr{base, base + 2*mb}; fmt.Sprint(*tried) != fmt.Sprint(want) {
		t.Fatalf("collapsed %x, want %x", *tried, want)
	}
	for range 2 * collapseAfter / mb {
		h.note(base+mb, 2*mb)
	}
	if len(*tried) != 2 || h.stats.HugeCollapses != 2 || h.stats.HugeRefusals != 0 {
		t.Fatalf("after more traffic: tried %x, %d collapses, %d refusals; want the two regions once, 2 collapses",
			*tried, h.stats.HugeCollapses, h.stats.HugeRefusals)
	}
}

// TestHugePagesCountRemoteSide checks that only the memory a peer copies
// (a registration) counts toward a collapse, not the local side of the
// copies: a copy pins the remote pages one by one, while its local pages
// cost the same on 4 KiB pages as on huge ones (docs/decisions.md,
// transparent huge pages).
func TestHugePagesCountRemoteSide(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0, n1 := openNIC(t, seg, 0), openNIC(t, seg, 1)
	if !n0.CMA() {
		t.Skip("MARTINI_NO_CMA=1 in the environment")
	}
	local, tried := fakeHuge(func(int) unix.Errno { return 0 })
	remote, remoteTried := fakeHuge(func(int) unix.Errno { return 0 })
	n0.huge, n1.huge = local, remote
	const size = 1 << 20
	region := alignedRegion(size)
	sid := mustRegisterMemory(t, n1, region)
	buf := alignedRegion(size)
	for i := range collapseAfter / size {
		var flag uint64
		err := n0.Pull(1, sid, 0, buf, &flag)
		if err == nil {
			err = n0.Push(1, sid, 0, buf, &flag)
		}
		if err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
	}
	if len(*tried) != 0 {
		t.Errorf("%d MiB pulled into and pushed from a local buffer: collapse tried at %x, want none",
			2*collapseAfter>>20, *tried)
	}
	if len(*remoteTried) != 0 {
		t.Errorf("a region registered once: collapse tried at %x, want none", *remoteTried)
	}
	for range collapseAfter/size - 1 {
		mustRegisterMemory(t, n1, region)
	}
	if want := []uintptr{uintptr(unsafe.Pointer(&region[0]))}; fmt.Sprint(*remoteTried) != fmt.Sprint(want) {
		t.Errorf("a region registered %d times: collapses tried at %x, want %x", collapseAfter/size, *remoteTried, want)
	}
}

// alignedRegion returns size bytes of the heap that begin a 2 MiB region.
func alignedRegion(size int) []byte {
	const align = 2 << 20
	b := make([]byte, size+align)
	off := -int(uintptr(unsafe.Pointer(&b[0]))) & (align - 1)
	return b[off : off+size : off+size]
}

// TestHugePagesRetry checks that a region the kernel refuses for now
// (EAGAIN) is tried again after another collapseAfter bytes, collapseTries
// times in all, and that any other refusal is final.
func TestHugePagesRetry(t *testing.T) {
	const region = 2 << 20
	h, tried := fakeHuge(func(int) unix.Errno { return unix.EAGAIN })
	for range 2 * collapseTries * collapseAfter / region {
		h.note(0, region)
	}
	if len(*tried) != collapseTries || h.stats.HugeRefusals != 1 || h.stats.HugeDeferrals != collapseTries-1 {
		t.Fatalf("EAGAIN each time: %d tries, %d refusals, %d deferrals; want %d tries, 1 refusal, %d deferrals",
			len(*tried), h.stats.HugeRefusals, h.stats.HugeDeferrals, collapseTries, collapseTries-1)
	}
	h, tried = fakeHuge(func(int) unix.Errno { return unix.EINVAL })
	for range 3 * collapseAfter / region {
		h.note(0, region)
	}
	if len(*tried) != 1 || h.stats.HugeRefusals != 1 {
		t.Fatalf("EINVAL: %d tries, %d refusals; want 1 try, 1 refusal", len(*tried), h.stats.HugeRefusals)
	}
	var none *hugePages
	none.note(0, collapseAfter) // a NIC without huge pages: nothing, no panic
}

// TestHugePagesCollapse collapses a region of real memory the way a NIC
// does and checks with the kernel that it is then one huge page, its
// contents kept.
func TestHugePagesCollapse(t *testing.T) {
	var stats Stats
	h := newHugePages(&stats)
	if h == nil {
		t.Skip("the system offers no transparent huge pages")
	}
	mem, err := unix.Mmap(-1, 0, int(3*h.size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	base := uintptr(unsafe.Pointer(&mem[0]))
	off := int((h.size - base%h.size) % h.size)
	region := mem[off : off+int(h.size)]
	for i := range region {
		region[i] = byte(i * 7)
	}
	for range collapseAfter / h.size {
		h.note(uintptr(unsafe.Pointer(&region[0])), len(region))
	}
	switch {
	case stats.HugeRefusals == 1:
		t.Skip("the kernel refuses MADV_COLLAPSE here")
	case stats.HugeDeferrals == 1:
		t.Skip("the kernel refused the collapse for now (EAGAIN): the machine is busy")
	case stats.HugeCollapses != 1:
		t.Fatalf("%d collapses, %d refusals; want 1 collapse", stats.HugeCollapses, stats.HugeRefusals)
	}
	for i := range region {
		if region[i] != byte(i*7) {
			t.Fatalf("byte %d is %d after the collapse, want %d", i, region[i], byte(i*7))
		}
	}
	if kb := anonHugeKB(t, uintptr(unsafe.Pointer(&region[0]))); kb < int(h.size>>10) {
		t.Fatalf("the mapping has %d kB in huge pages after the collapse, want at least %d", kb, h.size>>10)
	}
}

// anonHugeKB returns the AnonHugePages of the mapping of this process
// that holds address a, from /proc/self/smaps.
func anonHugeKB(t *testing.T, a uintptr) int {
	kb, err := hugepage.AnonHugeKB(a)
	if err != nil {
		t.Skip(err)
	}
	return kb
}
