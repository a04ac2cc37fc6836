package bench

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// floorLineSize is the size of the shared mapping of the floor
// measurement: one page, so that the line at its start is alone in it and
// 64-byte aligned.
const floorLineSize = 4096

// floorStop is the value the measuring process stores in the shared line
// to end its child; it is odd, as the values the child answers are.
const floorStop = ^uint64(0)

// floorCheckEvery is how many polls of the shared line a waiting side
// makes between two looks at whether it should give up.
const floorCheckEvery = 4096

// errFloorAborted says that the measurement was given up while a side
// waited for the other: the child ended, or the context did.
var errFloorAborted = errors.New("the measurement was given up")

// sharedLine is the cache line the two processes of the floor
// measurement ping-pong a counter in: the first bytes of a page of an
// anonymous memory file (memfd) that both map. Nothing of it is left in
// the file system.
type sharedLine struct {
	file *os.File
	mem  []byte
}

// newSharedLine creates the memory file and maps it.
func newSharedLine() (*sharedLine, error) {
	fd, err := unix.MemfdCreate("mpibench-floor", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("bench: floor: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "mpibench-floor")
	if err := f.Truncate(floorLineSize); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: floor: size the shared line: %w", err)
	}
	return mapSharedLine(f)
}

// mapSharedLine maps the memory file f, inherited or created; the
// sharedLine takes f over, and closes it if the mapping fails.
func mapSharedLine(f *os.File) (*sharedLine, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: floor: the shared line's file: %w", err)
	}
	if st.Size < floorLineSize {
		f.Close()
		return nil, fmt.Errorf("bench: floor: the shared line's file has %d bytes, want %d", st.Size, floorLineSize)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, floorLineSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: floor: map the shared line: %w", err)
	}
	return &sharedLine{file: f, mem: mem}, nil
}

// counter is the counter at the start of the line (page aligned).
func (l *sharedLine) counter() *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&l.mem[0]))
}

// close unmaps the line and closes its file.
func (l *sharedLine) close() error {
	errMap := unix.Munmap(l.mem)
	errFile := l.file.Close()
	if err := errors.Join(errMap, errFile); err != nil {
		return fmt.Errorf("bench: floor: release the shared line: %w", err)
	}
	return nil
}

// pinger is the measuring side of the ping-pong: it stores odd values
// into the counter, each of which the child answers with the next one.
type pinger struct {
	c     *atomic.Uint64
	next  uint64       // the next odd value to store
	abort *atomic.Bool // set when the measurement is to be given up
}

// roundTrips makes n round trips; it fails with errFloorAborted when
// abort is set while it waits.
func (p *pinger) roundTrips(n int) error {
	for range n {
		v := p.next
		p.next += 2
		p.c.Store(v)
		for i := 1; p.c.Load() != v+1; i++ {
			if i%floorCheckEvery == 0 && p.abort.Load() {
				return errFloorAborted
			}
		}
	}
	return nil
}

// pong is the child's side: it answers every odd value with the next one
// until it reads floorStop. It has no way out but that value: the child
// dies with its parent (Pdeathsig).
func pong(c *atomic.Uint64) {
	for {
		v := c.Load()
		for v&1 == 0 {
			v = c.Load()
		}
		if v == floorStop {
			return
		}
		c.Store(v + 1)
	}
}
