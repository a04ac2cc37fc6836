// Package fdio is what a translator whose network is reached through
// file descriptors (sockets, event channels) needs to move bytes and to
// let an idle process sleep: reads, writes and accepts of non-blocking
// descriptors made as raw system calls, the output queue of a byte stream
// (Queue) and what arrived on one (Stream), and a Sleeper that blocks in
// poll(2) on the translator's descriptors until one is ready or another
// goroutine wakes it through an eventfd. It knows no network: the
// translator says what it sends, how it parses what arrives, and which
// descriptors to wait on, for what.
package fdio

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The descriptors are all non-blocking, so their reads and writes return
// at once: they are made as raw system calls, which do not tell Go's
// scheduler that the thread may block. A process that polls its sockets
// makes system calls back to back; made the ordinary way, each one marked
// its processor as in a system call, which kept the runtime's monitor
// thread waking every few tens of microseconds to look, and taking turns
// on the CPUs with the ranks.

// rawIO makes the system call trap on fd with a buffer (or iovec array)
// p of n elements, again while interrupted; n is 0 on error. The error
// is the bare errno (0: none), so that the usual EAGAIN of a poll is
// compared, not boxed into an error.
func rawIO(trap uintptr, fd int, p unsafe.Pointer, n int) (int, unix.Errno) {
	for {
		r, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(p), uintptr(n))
		if e != unix.EINTR {
			if e != 0 {
				r = 0
			}
			return int(r), e
		}
	}
}

// Read reads from fd into b; n is 0 on error.
func Read(fd int, b []byte) (int, unix.Errno) {
	return rawIO(unix.SYS_READ, fd, unsafe.Pointer(unsafe.SliceData(b)), len(b))
}

// Write writes b to fd, or what fd takes of it.
func Write(fd int, b []byte) (int, unix.Errno) {
	return rawIO(unix.SYS_WRITE, fd, unsafe.Pointer(unsafe.SliceData(b)), len(b))
}

// Writev writes the buffers of iov to fd in order, or what fd takes of
// them.
func Writev(fd int, iov []unix.Iovec) (int, unix.Errno) {
	return rawIO(unix.SYS_WRITEV, fd, unsafe.Pointer(unsafe.SliceData(iov)), len(iov))
}

// Accept takes a connection from the listening socket lfd, as a
// non-blocking descriptor closed on exec; the peer's address is not
// asked for, so nothing is allocated.
func Accept(lfd int) (int, unix.Errno) {
	for {
		fd, _, e := unix.RawSyscall6(unix.SYS_ACCEPT4, uintptr(lfd), 0, 0, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
		if e != unix.EINTR {
			return int(fd), e
		}
	}
}

// Sleeper lets the goroutines of an idle process sleep until one of the
// translator's descriptors is ready, or Wake is called. The translator's
// own goroutine publishes the descriptors (Set) when they change; Arm,
// Sleep, Disarm and Wake are safe for concurrent use.
type Sleeper struct {
	timeout  time.Duration
	mu       sync.Mutex // guards fds and efd
	efd      int
	fds      []unix.PollFd // the eventfd first, then the translator's
	sleepers atomic.Int32
	wakes    atomic.Uint32
	sleeps   atomic.Uint64
}

// NewSleeper returns a Sleeper whose Sleep lasts at most timeout, as a
// safety net.
func NewSleeper(timeout time.Duration) (*Sleeper, error) {
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("making the wakeup eventfd: %w", err)
	}
	s := &Sleeper{timeout: timeout, efd: efd}
	s.Set(nil)
	return s, nil
}

// Set makes fds the descriptors Sleep waits on, with the events each
// waits for; the Sleeper keeps its own copy.
func (s *Sleeper) Set(fds []unix.PollFd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fds = append(append(s.fds[:0], unix.PollFd{Fd: int32(s.efd), Events: unix.POLLIN}), fds...)
}

// Arm announces that the caller may sleep and returns the ticket to pass
// to Sleep. After arming, the caller checks once more for work, then
// calls Sleep or Disarm.
func (s *Sleeper) Arm() uint32 {
	s.mu.Lock()
	s.sleepers.Add(1)
	ticket := s.wakes.Load()
	s.mu.Unlock()
	return ticket
}

// Sleep blocks until a descriptor is ready for what it waits for, or
// Wake is called after the Arm that returned ticket, or the timeout
// passes; then it disarms.
func (s *Sleeper) Sleep(ticket uint32) {
	defer s.Disarm()
	if s.wakes.Load() != ticket {
		return
	}
	s.sleeps.Add(1)
	s.mu.Lock()
	fds := slices.Clone(s.fds)
	s.mu.Unlock()
	unix.Poll(fds, int(s.timeout.Milliseconds()))
}

// Disarm withdraws an Arm. The last sleeper to leave empties the eventfd,
// under the lock that Arm takes, so that no wake meant for a later
// sleeper is lost.
func (s *Sleeper) Disarm() {
	s.mu.Lock()
	if s.sleepers.Add(-1) == 0 && s.efd >= 0 {
		var b [8]byte
		Read(s.efd, b[:])
	}
	s.mu.Unlock()
}

// Wake wakes the goroutines asleep in Sleep, so that they look again at
// what they wait for.
func (s *Sleeper) Wake() {
	s.wakes.Add(1)
	if s.sleepers.Load() == 0 {
		return
	}
	s.mu.Lock()
	if s.efd >= 0 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], 1)
		Write(s.efd, b[:])
	}
	s.mu.Unlock()
}

// Sleeps returns how many times Sleep has blocked.
func (s *Sleeper) Sleeps() uint64 { return s.sleeps.Load() }

// Close closes the eventfd; later Sleeps wait on nothing but their
// timeout.
func (s *Sleeper) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := unix.Close(s.efd)
	s.efd, s.fds = -1, nil
	return err
}
