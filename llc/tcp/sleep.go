package tcp

import (
	"encoding/binary"
	"slices"

	"golang.org/x/sys/unix"
)

// An idle process sleeps in poll(2) on its sockets (for input, and for
// room where output waits), its listener and an eventfd that Wake writes.
// The pollset is rebuilt by the goroutine that drives the transport when
// a descriptor or the output it waits to write changes (dirty), under smu,
// from which sleepers copy it.

// syncPollset publishes the descriptors Sleep waits on, if they changed.
func (t *Transport) syncPollset() {
	if !t.dirty {
		return
	}
	t.dirty = false
	t.smu.Lock()
	defer t.smu.Unlock()
	fds := append(t.pollfds[:0], unix.PollFd{Fd: int32(t.efd), Events: unix.POLLIN}, unix.PollFd{Fd: int32(t.lfd), Events: unix.POLLIN})
	for i := range t.peers {
		p := &t.peers[i]
		if p.fd >= 0 {
			ev := int16(unix.POLLIN)
			if p.wantOut {
				ev |= unix.POLLOUT
			}
			fds = append(fds, unix.PollFd{Fd: int32(p.fd), Events: ev})
		}
		if p.rfd >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(p.rfd), Events: unix.POLLIN})
		}
	}
	for _, c := range t.incoming {
		fds = append(fds, unix.PollFd{Fd: int32(c.fd), Events: unix.POLLIN})
	}
	t.pollfds = fds
}

// Arm announces that the caller may sleep and returns the ticket to pass
// to Sleep. After arming, the caller checks once more for work, then calls
// Sleep or Disarm. Safe for concurrent use.
func (t *Transport) Arm() uint32 {
	t.smu.Lock()
	t.sleepers.Add(1)
	ticket := t.wakes.Load()
	t.smu.Unlock()
	return ticket
}

// Sleep blocks until a socket has input, or room for the output that
// waits, or a connection arrives, or Wake is called after the Arm that
// returned ticket, or Options.SleepTimeout passes; then it disarms. Safe
// for concurrent use.
func (t *Transport) Sleep(ticket uint32) {
	defer t.Disarm()
	if t.wakes.Load() != ticket {
		return
	}
	t.sleeps.Add(1)
	t.smu.Lock()
	fds := slices.Clone(t.pollfds)
	t.smu.Unlock()
	unix.Poll(fds, int(t.opt.SleepTimeout.Milliseconds()))
}

// Disarm withdraws an Arm. The last sleeper to leave empties the eventfd,
// under the lock that Arm takes, so that no wake meant for a later
// sleeper is lost.
func (t *Transport) Disarm() {
	t.smu.Lock()
	if t.sleepers.Add(-1) == 0 && t.efd >= 0 {
		var b [8]byte
		readFD(t.efd, b[:])
	}
	t.smu.Unlock()
}

// Wake wakes the goroutines asleep in Sleep, so that they look again at
// what they wait for. Safe for concurrent use.
func (t *Transport) Wake() {
	t.wakes.Add(1)
	if t.sleepers.Load() == 0 {
		return
	}
	t.smu.Lock()
	if t.efd >= 0 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], 1)
		write(t.efd, b[:])
	}
	t.smu.Unlock()
}
