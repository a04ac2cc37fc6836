package tcp

import (
	"golang.org/x/sys/unix"
)

// An idle process sleeps in poll(2) (fdio.Sleeper) on its sockets (for
// input, and for room where output waits) and its listener. The set is
// rebuilt by the goroutine that drives the transport when a descriptor or
// the output it waits to write changes (dirty).

// syncPollset publishes the descriptors Sleep waits on, if they changed.
func (t *Transport) syncPollset() {
	if !t.dirty {
		return
	}
	t.dirty = false
	fds := append(t.pollfds[:0], unix.PollFd{Fd: int32(t.lfd), Events: unix.POLLIN})
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
		if p.oldFD >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(p.oldFD), Events: unix.POLLOUT})
		}
	}
	for _, c := range t.incoming {
		fds = append(fds, unix.PollFd{Fd: int32(c.fd), Events: unix.POLLIN})
	}
	t.pollfds = fds
	t.sleeper.Set(fds)
}

// Arm announces that the caller may sleep and returns the ticket to pass
// to Sleep. After arming, the caller checks once more for work, then calls
// Sleep or Disarm. Safe for concurrent use.
func (t *Transport) Arm() uint32 { return t.sleeper.Arm() }

// Sleep blocks until a socket has input, or room for the output that
// waits, or a connection arrives, or Wake is called after the Arm that
// returned ticket, or Options.SleepTimeout passes; then it disarms. Safe
// for concurrent use.
func (t *Transport) Sleep(ticket uint32) { t.sleeper.Sleep(ticket) }

// Disarm withdraws an Arm. Safe for concurrent use.
func (t *Transport) Disarm() { t.sleeper.Disarm() }

// Wake wakes the goroutines asleep in Sleep, so that they look again at
// what they wait for. Safe for concurrent use.
func (t *Transport) Wake() { t.sleeper.Wake() }
