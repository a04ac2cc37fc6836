package tcp

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"
)

// Sockets are raw non-blocking descriptors: no goroutine, no netpoller,
// no allocation on the way of a frame.

// parseAddr returns the socket address of "ip:port".
func parseAddr(s string) (unix.Sockaddr, error) {
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return nil, fmt.Errorf("address %q: want ip:port: %w", s, err)
	}
	if a := ap.Addr().Unmap(); a.Is4() {
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: a.As4()}, nil
	}
	return &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}, nil
}

// sockaddrString formats a socket address as "ip:port".
func sockaddrString(sa unix.Sockaddr) string {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)).String()
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port)).String()
	}
	return fmt.Sprint(sa)
}

// socket returns a non-blocking TCP socket for addresses like sa.
func socket(sa unix.Sockaddr) (int, error) {
	family := unix.AF_INET
	if _, ok := sa.(*unix.SockaddrInet6); ok {
		family = unix.AF_INET6
	}
	return unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
}

// listen returns a listening socket bound to sa.
func listen(sa unix.Sockaddr, backlog int) (int, error) {
	fd, err := socket(sa)
	if err != nil {
		return -1, err
	}
	if err = unix.Bind(fd, sa); err == nil {
		err = unix.Listen(fd, backlog)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// setOptions sets the options of a connection's socket: no Nagle's delay,
// the send buffer of o.SendBuffer, and the bound of a stall: what is sent
// fails once unacknowledged for o.StallTimeout (TCP_USER_TIMEOUT), and an
// idle connection sends keepalive probes from a quarter of it on, every
// eighth (at least a second each), so that it fails too once they go
// unanswered for the whole.
func setOptions(fd int, o *Options) {
	stall := o.StallTimeout
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(stall.Milliseconds()))
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, max(1, int(stall/4/time.Second)))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, max(1, int(stall/8/time.Second)))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 9)
	if o.SendBuffer > 0 {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, o.SendBuffer)
	}
}

// retryPause is how long a dial to an unreachable host waits before it
// tries again.
const retryPause = 100 * time.Millisecond

// connect connects to sa, with setOptions' options of o, waiting at most
// o.StallTimeout (stall) for the connection to complete: the peer's kernel completes
// it, from the backlog of the peer's listener, whatever the peer's
// process does. A host that cannot be reached (no route: a link down) is
// tried again until stall has passed, so that an outage shorter than the
// bound is survived by a dial as by a connection.
func connect(sa unix.Sockaddr, o *Options) (int, error) {
	stall := o.StallTimeout
	deadline := time.Now().Add(stall)
	for {
		fd, err := connectOnce(sa, o, time.Until(deadline))
		switch {
		case err == nil:
			return fd, nil
		case !unreachable(err):
			return -1, err
		case time.Until(deadline) < retryPause:
			return -1, fmt.Errorf("unreachable for %v: %w", stall, err)
		}
		time.Sleep(retryPause)
	}
}

// unreachable reports whether err says that the peer's host cannot be
// reached for now.
func unreachable(err error) bool {
	return errors.Is(err, unix.ENETUNREACH) || errors.Is(err, unix.EHOSTUNREACH) ||
		errors.Is(err, unix.ENETDOWN) || errors.Is(err, unix.EHOSTDOWN)
}

// connectOnce makes one try of connect, waiting at most wait.
func connectOnce(sa unix.Sockaddr, o *Options, wait time.Duration) (int, error) {
	fd, err := socket(sa)
	if err != nil {
		return -1, err
	}
	setOptions(fd, o)
	err = unix.Connect(fd, sa)
	if err == unix.EINPROGRESS {
		err = waitConnected(fd, wait)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// waitConnected waits at most timeout for the connection that fd started
// to complete, and returns why it failed.
func waitConnected(fd int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("not connected within %v", timeout)
		}
		fds := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds[:], int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n > 0 {
			break
		}
	}
	e, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return err
	}
	if e != 0 {
		return unix.Errno(e)
	}
	return nil
}
