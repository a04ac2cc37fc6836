package mpirun

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/rhinet-go/martini/internal/netif"
	"github.com/rhinet-go/martini/llc/datastore"
	"golang.org/x/sys/unix"
)

// handshakeTimeout bounds the handshake of a data-store connection over
// TCP, so that a stray connection cannot hold a goroutine.
const handshakeTimeout = 10 * time.Second

// storeListener accepts the ranks' data-store connections over TCP, in a
// job across hosts: each proves the job's key and its rank
// (datastore.Check) and is then served by the job's data store. A wrong
// key, a rank out of range or a rank already connected is refused. It
// uses the socket calls directly, as mpirun does not link package net.
type storeListener struct {
	ln   *os.File // the listening socket
	addr netip.AddrPort
	key  []byte
	srv  *datastore.Server
	logf func(format string, a ...any) // with -v; nil without

	mu      sync.Mutex
	closed  bool
	claimed []bool
	pending map[*os.File]bool // connections in their handshake
	wg      sync.WaitGroup    // the accept loop and the handshakes
}

// listenStore listens on ip, on a port the system chooses, for the
// connections of the ranks of srv's job, whose key is key.
func listenStore(ip netip.Addr, key []byte, srv *datastore.Server, logf func(string, ...any)) (*storeListener, error) {
	family, sa := netif.Sockaddr(netip.AddrPortFrom(ip, 0))
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("data store: socket: %w", err)
	}
	if err := bindListen(fd, sa); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("data store: listen on %s: %w", ip, err)
	}
	local, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("data store: %w", err)
	}
	l := &storeListener{
		ln:      os.NewFile(uintptr(fd), "datastore-listener"),
		addr:    netip.AddrPortFrom(ip, uint16(sockaddrPort(local))),
		key:     key,
		srv:     srv,
		logf:    logf,
		claimed: make([]bool, srv.Size()),
		pending: make(map[*os.File]bool),
	}
	l.wg.Add(1)
	go l.serve()
	return l, nil
}

func bindListen(fd int, sa unix.Sockaddr) error {
	if err := unix.Bind(fd, sa); err != nil {
		return err
	}
	return unix.Listen(fd, unix.SOMAXCONN)
}

// serve accepts connections until the listener is closed.
func (l *storeListener) serve() {
	defer l.wg.Done()
	rc, err := l.ln.SyscallConn()
	if err != nil {
		l.log("data store: %v", err)
		return
	}
	for {
		var nfd int
		var aerr error
		err := rc.Read(func(fd uintptr) bool {
			nfd, _, aerr = unix.Accept4(int(fd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			return !errors.Is(aerr, unix.EAGAIN)
		})
		switch {
		case err != nil: // closed
			return
		case errors.Is(aerr, unix.ECONNABORTED), errors.Is(aerr, unix.EINTR):
			continue
		case aerr != nil:
			l.log("data store: accept: %v", aerr)
			return
		}
		unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		conn := os.NewFile(uintptr(nfd), "datastore-rank")
		if !l.track(conn) {
			conn.Close()
			return
		}
		go l.handshake(conn)
	}
}

// track records conn as in its handshake, unless the listener is closed.
func (l *storeListener) track(conn *os.File) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.pending[conn] = true
	l.wg.Add(1)
	return true
}

// handshake checks the key and rank that conn proves, and serves it.
func (l *storeListener) handshake(conn *os.File) {
	defer l.wg.Done()
	conn.SetDeadline(time.Now().Add(handshakeTimeout))
	rank, err := datastore.Check(conn, l.key, len(l.claimed), l.claim)
	conn.SetDeadline(time.Time{})
	l.mu.Lock()
	delete(l.pending, conn)
	if err != nil && rank >= 0 {
		l.claimed[rank] = false // accepted, but the rank never heard it
	}
	l.mu.Unlock()
	if err != nil {
		conn.Close()
		l.log("%v", err)
		return
	}
	go func() {
		if err := l.srv.Serve(rank, conn); err != nil && !errors.Is(err, datastore.ErrServerClosed) {
			l.log("rank %d: %v", rank, err)
		}
	}()
}

// claim takes rank for a connection, unless another connection has it.
func (l *storeListener) claim(rank int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.claimed[rank] {
		return fmt.Errorf("rank %d is already connected", rank)
	}
	l.claimed[rank] = true
	return nil
}

func (l *storeListener) log(format string, a ...any) {
	if l.logf != nil {
		l.logf(format, a...)
	}
}

// Close stops accepting connections and ends those in their handshake;
// those being served end with the data store (datastore.Server.Close).
func (l *storeListener) Close() {
	l.mu.Lock()
	l.closed = true
	for c := range l.pending {
		c.Close()
	}
	l.mu.Unlock()
	l.ln.Close()
	l.wg.Wait()
}

// sockaddrPort returns the port of an IPv4 or IPv6 socket address.
func sockaddrPort(sa unix.Sockaddr) int {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port
	case *unix.SockaddrInet6:
		return a.Port
	}
	return 0
}
