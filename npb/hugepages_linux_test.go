package npb

import (
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/hugepage"
)

// anonHugeKB returns the kilobytes of the mapping holding address a that
// lie in transparent huge pages.
func anonHugeKB(t *testing.T, a uintptr) int {
	t.Helper()
	kb, err := hugepage.AnonHugeKB(a)
	if err != nil {
		t.Skipf("no smaps to check against: %v", err)
	}
	return kb
}

// TestAdviseHugePagesCollapses checks that memory whose small pages are
// already in place (as the Go heap's zeroing of memory it hands out
// again leaves them) is in huge pages once advised: the mapping's
// AnonHugePages grows by the whole huge pages inside it. Where it does
// not, a collapse asked for again tells whether the kernel refuses them
// (the test is skipped) or adviseHugePages failed to ask.
func TestAdviseHugePagesCollapses(t *testing.T) {
	// A mapping of its own, which nothing else in the process changes.
	b, err := unix.Mmap(-1, 0, 4*hugepage.Size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(b)
	for i := range b {
		b[i] = byte(i)
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	lo := (p + hugepage.Size - 1) &^ (hugepage.Size - 1)
	whole := ((p+uintptr(len(b)))&^(hugepage.Size-1) - lo) / hugepage.Size
	before := anonHugeKB(t, lo)
	adviseHugePages(unsafe.Pointer(&b[0]), uintptr(len(b)))
	after := anonHugeKB(t, lo)
	if want := int(whole * hugepage.Size >> 10); after-before < want {
		region := b[lo-p:][:whole*hugepage.Size]
		if err := unix.Madvise(region, unix.MADV_COLLAPSE); err != nil {
			if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.ENOMEM) {
				t.Skipf("the kernel does not collapse here: %v", err)
			}
			t.Fatalf("madvise MADV_COLLAPSE: %v", err)
		}
		t.Errorf("the mapping's huge pages grew by %d kB, want %d: a collapse asked for again succeeds", after-before, want)
	}
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d is %d after the advice, want %d", i, b[i], byte(i))
		}
	}
}
