package nicemu

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestLayout checks that the shared structures have the sizes the segment
// layout assumes and that the regions of a partition do not overlap.
func TestLayout(t *testing.T) {
	sizes := []struct {
		name      string
		got, want uintptr
	}{
		{"procEntry", unsafe.Sizeof(procEntry{}), procEntrySize},
		{"sidEntry", unsafe.Sizeof(sidEntry{}), sidEntrySize},
		{"windowRegs", unsafe.Sizeof(windowRegs{}), WindowSize},
		{"botfHeader", unsafe.Sizeof(botfHeader{}), 64},
	}
	for _, s := range sizes {
		if s.got != s.want {
			t.Errorf("sizeof(%s) = %d, want %d", s.name, s.got, s.want)
		}
	}
	if sz := unsafe.Sizeof(jobHeader{}); sz > PageSize {
		t.Errorf("jobHeader is %d bytes, more than a page", sz)
	}
	if sz := unsafe.Sizeof(mailbox{}); sz > aotfOffset {
		t.Errorf("mailbox (%d bytes) overlaps the AOTF header buffer at %d", sz, aotfOffset)
	}
	if end := aotfOffset + NumAOTFPages*unsafe.Sizeof(aotfHeader{}); end > PageSize {
		t.Errorf("AOTF header buffer ends at %d, past the control page", end)
	}
	if sz := NumWindows * 8 * 8; sz > PageSize {
		t.Errorf("contflags take %d bytes, more than a page", sz)
	}
	for _, off := range []int{partWindows, partCont, partSIDs, partBounce} {
		if off%PageSize != 0 {
			t.Errorf("partition region at %d is not page aligned", off)
		}
	}
	if partWindows+NumWindows*WindowSize > partCont || partCont+PageSize > partSIDs || partSIDs+NumSIDs*sidEntrySize > partBounce {
		t.Errorf("partition regions overlap")
	}
	if MaxBOTF != WindowSize-128-64 {
		t.Errorf("MaxBOTF = %d", MaxBOTF)
	}

	cfg := testConfig(3)
	seg := newSegment(t, cfg)
	part := partitionSize(cfg.HeapSize, cfg.BounceSize)
	if got, want := seg.Size(), PageSize+PageSize+3*part; got != want {
		t.Errorf("Size() = %d, want %d", got, want)
	}
	for p := range 3 {
		hb := seg.heapBase(p)
		if hb%PageSize != 0 || hb < seg.partBase(p)+partBounce+cfg.BounceSize {
			t.Errorf("PID %d: heap at %d overlaps the bounce buffer", p, hb)
		}
		if end := hb + cfg.HeapSize; end > seg.partBase(p)+part || end > seg.Size() {
			t.Errorf("PID %d: heap ends at %d, past its partition", p, end)
		}
	}
}

func TestCreateAttachSegment(t *testing.T) {
	cfg := testConfig(3)
	seg := newSegment(t, cfg)
	if seg.NProcs() != 3 || seg.PGID() != testPGID {
		t.Fatalf("NProcs, PGID = %d, %#x", seg.NProcs(), seg.PGID())
	}
	fi, err := seg.File().Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != int64(seg.Size()) {
		t.Fatalf("file is %d bytes, Size() = %d", fi.Size(), seg.Size())
	}
	seg2 := attachAgain(t, seg)
	if seg2.NProcs() != 3 || seg2.PGID() != testPGID || seg2.Size() != seg.Size() {
		t.Fatalf("attached: NProcs %d PGID %#x Size %d", seg2.NProcs(), seg2.PGID(), seg2.Size())
	}
	for p := range 3 {
		if seg.proc(p).pid != uint64(p) || seg2.proc(p).pgid != testPGID {
			t.Errorf("PGIDTBL[%d] = %+v", p, *seg2.proc(p))
		}
	}

	// A NIC opened on the attached mapping talks to one opened on the
	// creator's, and so does a second opening of the same slot.
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg2, 1)
	n1b := openNIC(t, seg2, 1)
	sid, mem := mustRegisterSegment(t, n1b, 256)
	want := pattern(100, 1)
	if err := n0.Push(1, sid, 10, want, nil); err != nil {
		t.Fatal(err)
	}
	checkBytes(t, "segment memory seen through the attached mapping", mem[10:110], want)
	if got := atomic.LoadUint64(&seg.proc(1).ospid); got != uint64(os.Getpid()) {
		t.Errorf("ospid of slot 1 = %d, want %d", got, os.Getpid())
	}

	// Closing the attached mapping leaves the creator's usable.
	n1.Close()
	n1b.Close()
	if err := seg2.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := seg2.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	atomic.StoreUint64(&seg.proc(1).heapTop, 7)
	if atomic.LoadUint64(&seg.proc(1).heapTop) != 7 || atomic.LoadUint64(&seg.proc(1).ospid) != uint64(os.Getpid()) {
		t.Errorf("creator's mapping broken after the other was closed")
	}
}

func TestCreateSegmentRejectsBadConfig(t *testing.T) {
	for _, cfg := range []JobConfig{
		{NProcs: 0},
		{NProcs: -1},
		{NProcs: 1, BounceSize: 100},
		{NProcs: 1, HeapSize: PageSize - 1},
	} {
		if seg, err := CreateSegment(cfg); err == nil {
			seg.Close()
			t.Errorf("CreateSegment(%+v) succeeded", cfg)
		}
	}
	if _, err := Open(newSegment(t, testConfig(2)), 2); err == nil {
		t.Errorf("Open of PID 2 in a 2-process job succeeded")
	}
	if _, err := Open(newSegment(t, testConfig(2)), -1); err == nil {
		t.Errorf("Open of PID -1 succeeded")
	}
}

// memfile returns an anonymous file of the given contents.
func memfile(t *testing.T, data []byte, size int64) *os.File {
	t.Helper()
	fd, err := unix.MemfdCreate("nicemu-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "nicemu-test")
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAttachSegmentRejects(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	good := make([]byte, seg.Size())
	copy(good, seg.mem)

	corrupt := func(f func(h *jobHeader)) []byte {
		b := slices.Clone(good)
		f((*jobHeader)(unsafe.Pointer(&b[0])))
		return b
	}
	cases := []struct {
		name string
		data []byte
		size int64
		want string
	}{
		{"empty", nil, 0, "too small"},
		{"too small", good[:100], 100, "too small"},
		{"just under a page", good[:PageSize-1], PageSize - 1, "too small"},
		{"zeros", nil, 4 * PageSize, "bad magic"},
		{"bad magic", corrupt(func(h *jobHeader) { h.magic ^= 1 }), int64(len(good)), "bad magic"},
		{"bad version", corrupt(func(h *jobHeader) { h.version = 99 }), int64(len(good)), "layout version 99"},
		{"truncated", good[:len(good)-PageSize], int64(len(good) - PageSize), "size"},
		{"grown", good, int64(len(good) + PageSize), "size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := memfile(t, c.data, c.size)
			s, err := AttachSegment(f)
			if err == nil {
				s.Close()
				t.Fatalf("AttachSegment accepted it")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
			// The file belongs to AttachSegment, on failure too.
			if err := f.Close(); err == nil {
				t.Errorf("AttachSegment left the file of a rejected segment open")
			}
		})
	}
	// The untouched copy is accepted.
	s, err := AttachSegment(memfile(t, good, int64(len(good))))
	if err != nil {
		t.Fatalf("AttachSegment of an intact copy: %v", err)
	}
	s.Close()
}

// TestNoDevShm checks that a segment is an anonymous memory file: nothing
// appears under /dev/shm and the descriptor names a memfd.
func TestNoDevShm(t *testing.T) {
	list := func() []string {
		ents, err := os.ReadDir("/dev/shm")
		if err != nil {
			return nil
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	before := list()
	seg, err := CreateSegment(testConfig(4))
	if err != nil {
		t.Fatal(err)
	}
	n := openNIC(t, seg, 0)
	mustRegisterSegment(t, n, 1<<20)
	during := list()
	link, err := os.Readlink(filepath.Join("/proc/self/fd", strconv.Itoa(int(seg.File().Fd()))))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, "/memfd:martini-segment") {
		t.Errorf("segment file is %q, want a memfd", link)
	}
	flags, err := unix.FcntlInt(seg.File().Fd(), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("segment descriptor not close-on-exec (flags %#x, %v)", flags, err)
	}
	n.Close()
	seg.Close()
	after := list()
	for _, name := range append(during, after...) {
		if !slices.Contains(before, name) {
			t.Errorf("/dev/shm/%s appeared", name)
		}
	}
}

// TestSegmentResident: a segment's resident memory counts the pages its
// processes touched, at most its size.
func TestSegmentResident(t *testing.T) {
	seg, err := CreateSegment(testConfig(2))
	if err != nil {
		t.Fatal(err)
	}
	n := openNIC(t, seg, 0)
	before, err := seg.Resident()
	if err != nil {
		t.Fatal(err)
	}
	const pages = 64
	_, mem := mustRegisterSegment(t, n, pages*PageSize)
	for i := 0; i < len(mem); i += PageSize {
		mem[i] = 1
	}
	after, err := seg.Resident()
	if err != nil {
		t.Fatal(err)
	}
	if after-before < pages*PageSize || after > int64(seg.Size()) {
		t.Errorf("resident %d bytes before touching %d pages, %d after; the segment has %d", before, pages, after, seg.Size())
	}
}
