package mpi_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/mpi"
)

// Messages of 4 GiB and more: the rendezvous grants and split points
// travel as 64-bit fields (they were 32-bit, and such messages arrived
// corrupted with no error under the split and push rendezvous).

// hugeSize is just above 4 GiB, and not a multiple of a page.
const hugeSize = 4<<30 + 12345

func init() { scenarios["huge"] = scenarioHuge }

func TestHugeMessage(t *testing.T) {
	switch avail := memAvailable(); {
	case testing.Short():
		t.Skip("-short: a message of 4 GiB")
	case raceEnabled:
		t.Skip("a message of 4 GiB under the race detector")
	case avail < 3*hugeSize:
		t.Skipf("needs %d GiB of available memory for a message of 4 GiB at each end, the machine has %d GiB", 3*hugeSize>>30, avail>>30)
	}
	t.Parallel() // its two processes keep a CPU busy, not both
	// Filling, moving and checking 8 GiB takes tens of seconds where first
	// touches of memory are slow: a timeout of its own. Split only, the
	// default, which carries both the grant and the split point;
	// TestCTSEncoding covers push's fields.
	const timeout = 5 * time.Minute
	for _, rndv := range []string{"split"} {
		t.Run(rndv, func(t *testing.T) {
			r := mpirunWithin(t, timeout+30*time.Second, []string{envScenario + "=huge"},
				"-np", "2", "-timeout", timeout.String(), "-rndv", rndv, self)
			if r.code != 0 || strings.Count(r.stdout, "scenario huge: rank") != 2 {
				t.Fatalf("scenario huge failed:\n%v", r)
			}
		})
	}
}

// scenarioHuge sends hugeSize bytes from rank 0 to rank 1, which checks
// every word and the status.
func scenarioHuge(w *mpi.Comm) error {
	if w.Size() != 2 {
		return fmt.Errorf("huge: %d ranks, want 2", w.Size())
	}
	buf, err := hugeBuffer()
	if err != nil {
		return err
	}
	defer unix.Munmap(buf)
	words := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(buf))), hugeSize/8)
	if w.Rank() == 0 {
		for i := range words {
			words[i] = hugeWord(i)
		}
		for i := len(words) * 8; i < len(buf); i++ {
			buf[i] = byte(i)
		}
		return mpi.Send(w, buf, 1, 9)
	}
	st, err := mpi.Recv(w, buf, 0, 9)
	if err != nil {
		return fmt.Errorf("huge: Recv: %w", err)
	}
	if err := checkStatus("huge", st, 0, 9, hugeSize, hugeSize); err != nil {
		return err
	}
	for i, v := range words {
		if v != hugeWord(i) {
			return fmt.Errorf("huge: byte %d: word %#x, want %#x", i*8, v, hugeWord(i))
		}
	}
	for i := len(words) * 8; i < len(buf); i++ {
		if buf[i] != byte(i) {
			return fmt.Errorf("huge: byte %d: %#x, want %#x", i, buf[i], byte(i))
		}
	}
	return nil
}

// hugeBuffer maps hugeSize bytes and asks for transparent huge pages
// (advice, which a kernel may ignore): a page fault every 2 MiB rather
// than every 4 KiB, whose faults took most of the test's time.
func hugeBuffer() ([]byte, error) {
	buf, err := unix.Mmap(-1, 0, hugeSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("huge: mmap of %d bytes: %w", hugeSize, err)
	}
	_ = unix.Madvise(buf, unix.MADV_HUGEPAGE)
	return buf, nil
}

// hugeWord is word i of the message: different across the 4 GiB
// boundary, so that a wrapped offset shows.
func hugeWord(i int) uint64 { return uint64(i)*0x9E3779B97F4A7C15 + 1 }

// memAvailable returns the memory the kernel says is available for new
// allocations, or 0 when it cannot be read.
func memAvailable() int {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
