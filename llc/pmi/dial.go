package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// hostsFile is where dialPort looks up host names.
var hostsFile = "/etc/hosts"

// dialPort connects to the PMI server at addr, "host:port", within
// timeout (0: no bound). The server is the launcher's proxy on this host
// (Hydra's listens on every address). The host is resolved without the
// system's resolver, which would bring cgo (see fdConn): an IP address,
// a name of /etc/hosts, or this host's own name, which is reached on
// loopback. Each address found is tried in turn.
func dialPort(addr string, timeout time.Duration) (*os.File, error) {
	host, p, _ := splitHostPort(addr)
	port, err := strconv.Atoi(p)
	if err != nil {
		return nil, fmt.Errorf("port %q: not a number", p)
	}
	ips, err := resolve(host)
	if err != nil {
		return nil, err
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	var errs []error
	for _, ip := range ips {
		f, err := connect(netip.AddrPortFrom(ip, uint16(port)), deadline)
		if err == nil {
			return f, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", ip, err))
	}
	return nil, errors.Join(errs...)
}

// splitHostPort splits "host:port" at its last colon, so that the host
// may be an IPv6 address in brackets; ok is false without a colon.
func splitHostPort(addr string) (host, port string, ok bool) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return addr, "", false
	}
	return addr[:i], addr[i+1:], true
}

// resolve returns the addresses of host (see dialPort).
func resolve(host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip}, nil
	}
	if f, err := os.Open(hostsFile); err == nil {
		ips := lookupHosts(f, host)
		f.Close()
		if len(ips) > 0 {
			return ips, nil
		}
	}
	if own, err := os.Hostname(); err == nil && strings.EqualFold(own, host) {
		return []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1})}, nil
	}
	return nil, fmt.Errorf("host %q: not an IP address, not in %s and not this host's name (the system's resolver is not used)", host, hostsFile)
}

// lookupHosts returns the addresses that the hosts file r gives host, in
// the file's order.
func lookupHosts(r io.Reader, host string) []netip.Addr {
	var ips []netip.Addr
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		ip, err := netip.ParseAddr(f[0])
		if err != nil {
			continue
		}
		for _, name := range f[1:] {
			if strings.EqualFold(name, host) {
				ips = append(ips, ip)
				break
			}
		}
	}
	return ips
}

// connect connects a TCP socket to ap by deadline (zero: no bound) and
// returns it non-blocking, served by the runtime's poller. It uses the
// socket calls directly rather than package net (see fdConn).
func connect(ap netip.AddrPort, deadline time.Time) (*os.File, error) {
	ip := ap.Addr().Unmap()
	family, sa := unix.AF_INET, unix.Sockaddr(&unix.SockaddrInet4{Port: int(ap.Port()), Addr: ip.As4()})
	if !ip.Is4() {
		family, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ip.As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := unix.Connect(fd, sa); err != nil && !errors.Is(err, unix.EINPROGRESS) {
		unix.Close(fd)
		return nil, fmt.Errorf("connect: %w", err)
	}
	if err := awaitConnect(fd, deadline); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("connect: %w", err)
	}
	// PMI's requests are small and answered one by one.
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return os.NewFile(uintptr(fd), "pmi"), nil
}

// awaitConnect waits until the non-blocking connect of fd has completed,
// or deadline has passed, and returns how it ended.
func awaitConnect(fd int, deadline time.Time) error {
	for {
		wait := -1
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return fmt.Errorf("no connection: %w", os.ErrDeadlineExceeded)
			}
			wait = int(left.Milliseconds()) + 1
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(pfd, wait)
		if errors.Is(err, unix.EINTR) || (err == nil && n == 0) {
			continue
		}
		if err != nil {
			return err
		}
		v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err != nil {
			return err
		}
		if v != 0 {
			return unix.Errno(v)
		}
		return nil
	}
}
