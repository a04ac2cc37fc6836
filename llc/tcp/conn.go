package tcp

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/llc"
	"golang.org/x/sys/unix"
)

// connState is where the connection to one peer is.
type connState uint8

const (
	stIdle    connState = iota // none yet: the first command to the peer dials
	stDialing                  // dialed: sending the hello, waiting for the welcome
	stWaiting                  // the peer keeps its own dial to this process: waiting for it
	stUp                       // frames flow
	stLost                     // closed, reset or refused: commands to the peer fail
)

// peer is this process's side of the connection to another process.
// Frames queued before the connection is up wait in out; nothing but the
// handshake is written before the welcome, so a dial that loses to the
// peer's (both dialed at once) loses nothing.
type peer struct {
	id      int
	fd      int // -1: none
	state   connState
	err     error         // stLost: why
	hs      [hdrSize]byte // the hello or welcome to send first; then the welcome read
	hsOff   int           // hs[hsOff:] is not sent yet
	got     int           // stDialing: bytes of the welcome read into hs
	wantOut bool          // the pollset waits for fd to take more
	out     outQueue
	in      inbound
	pend    []pending // requests waiting for answers, oldest at ph
	ph      int
	bye     bool // the peer said it closes: its end of stream is no failure
}

// incoming is an accepted connection whose hello has not all arrived.
type incoming struct {
	fd  int
	buf [hdrSize]byte
	got int
}

// reach returns the peer of process i, dialing it if nothing connects
// them yet.
func (t *Transport) reach(i int) (*peer, error) {
	if i < 0 || i >= t.size {
		return nil, fmt.Errorf("tcp: no process %d in a job of %d", i, t.size)
	}
	p := &t.peers[i]
	switch p.state {
	case stLost:
		return nil, p.err
	case stIdle:
		if err := t.dial(p); err != nil {
			t.lose(p, err)
			return nil, err
		}
	}
	return p, nil
}

// dial starts a connection to p and queues its hello.
func (t *Transport) dial(p *peer) error {
	if t.addrs == nil {
		return fmt.Errorf("tcp: connecting to process %d: no peer addresses (SetPeers was not called)", p.id)
	}
	fd, err := connect(t.addrs[p.id])
	if err != nil {
		return fmt.Errorf("tcp: connecting to %s: %w", t.where(p), err)
	}
	h := header{kind: fHello, off: helloMagic, a: t.opt.Key, b: uint64(t.self)<<32 | uint64(p.id), c: uint64(t.size)}
	h.put(p.hs[:])
	p.fd, p.state, p.hsOff, p.got = fd, stDialing, 0, 0
	t.stats.dialed++
	t.track(p)
	if err := t.flush(p); err != nil { // the hello, if the socket is connected already
		return fmt.Errorf("tcp: connecting to %s: %w", t.where(p), err)
	}
	return nil
}

// where names process p and its address.
func (t *Transport) where(p *peer) string {
	return fmt.Sprintf("process %d at %s", p.id, sockaddrString(t.addrs[p.id]))
}

// handshake advances p's dial: it sends the hello and reads the welcome.
// It reports whether anything happened.
func (t *Transport) handshake(p *peer) bool {
	if err := t.flush(p); err != nil {
		t.lose(p, fmt.Errorf("tcp: connecting to %s: %w", t.where(p), err))
		return true
	}
	if p.hsOff < hdrSize {
		return false
	}
	n, err := readFD(p.fd, p.hs[p.got:])
	switch {
	case errors.Is(err, unix.EAGAIN):
		return false
	case err != nil:
		t.lose(p, fmt.Errorf("tcp: connecting to %s: %w", t.where(p), err))
		return true
	case n == 0:
		t.lose(p, fmt.Errorf("tcp: connecting to %s: closed before its welcome", t.where(p)))
		return true
	}
	if p.got += n; p.got < hdrSize {
		return true
	}
	var h header
	h.get(p.hs[:])
	switch {
	case h.kind == fWelcome && h.status == welcomeOK:
		t.connected(p)
	case h.kind == fWelcome && h.status == welcomeDup:
		unix.Close(p.fd)
		p.fd, p.state = -1, stWaiting
		t.track(p)
	default:
		t.lose(p, fmt.Errorf("tcp: %s refused the connection: not a process of this job (key %#x, %d processes), or connected already", t.where(p), t.opt.Key, t.size))
	}
	return true
}

// accept takes new connections and reads their hellos; it reports whether
// anything happened.
func (t *Transport) accept() bool {
	progressed := false
	for {
		fd, _, err := unix.Accept4(t.lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			break
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		t.incoming = append(t.incoming, incoming{fd: fd})
		progressed, t.dirty = true, true
	}
	for i := 0; i < len(t.incoming); i++ {
		c := &t.incoming[i]
		n, err := readFD(c.fd, c.buf[c.got:])
		if errors.Is(err, unix.EAGAIN) {
			continue
		}
		progressed = true
		if c.got += n; err == nil && n > 0 && c.got < hdrSize {
			continue
		}
		if c.got == hdrSize {
			t.hello(c)
		} else {
			unix.Close(c.fd) // gone before its hello
		}
		t.incoming = append(t.incoming[:i], t.incoming[i+1:]...)
		i--
		t.dirty = true
	}
	return progressed
}

// hello answers the hello of c: it makes c the connection to its
// process, or refuses it. Of two processes that dialed each other at once,
// the one with the lower number keeps its dial.
func (t *Transport) hello(c *incoming) {
	var h header
	h.get(c.buf[:])
	from, to := int(h.b>>32), int(uint32(h.b))
	status := uint8(welcomeRefused)
	var p *peer
	if h.kind == fHello && h.off == helloMagic && h.a == t.opt.Key && h.c == uint64(t.size) &&
		to == t.self && from >= 0 && from < t.size && from != t.self {
		p = &t.peers[from]
		switch {
		case p.state == stIdle || p.state == stWaiting || p.state == stDialing && from < t.self:
			status = welcomeOK
		case p.state == stDialing:
			status = welcomeDup
		}
	}
	w := header{kind: fWelcome, status: status}
	if status != welcomeOK {
		t.stats.refused++
		w.put(c.buf[:])
		write(c.fd, c.buf[:])
		unix.Close(c.fd)
		return
	}
	if p.state == stDialing {
		unix.Close(p.fd) // the peer keeps its dial; it drops this one
	}
	w.put(p.hs[:])
	p.fd, p.hsOff = c.fd, 0
	t.stats.accepted++
	t.connected(p)
}

// connected makes p's connection the one frames flow on, and sends what
// waited for it.
func (t *Transport) connected(p *peer) {
	p.state = stUp
	if p.in.buf == nil {
		p.in.buf = make([]byte, inBufSize)
	}
	if err := t.flush(p); err != nil {
		t.lose(p, fmt.Errorf("tcp: connection to process %d: %w", p.id, err))
	}
}

// ended closes the connection of a peer that said goodbye (fBye) and
// then closed it: later commands to it fail, but the engine does not stop
// (a process that finalized is no failure of the job).
func (t *Transport) ended(p *peer) {
	t.drop(p, fmt.Errorf("tcp: process %d closed its network (it finalized)", p.id))
}

// lose closes p's connection for good: what waits for it and every later
// command to it fail with err, and err is delivered as an EvError of its
// own, so that the engine stops.
func (t *Transport) lose(p *peer, err error) {
	t.stats.lost++
	t.drop(p, err)
	t.late = append(t.late, llc.Event{Kind: llc.EvError, Err: err})
}

// drop closes p's connection for good: what waits for it and every later
// command to it fail with err.
func (t *Transport) drop(p *peer, err error) {
	if p.fd >= 0 {
		unix.Close(p.fd)
	}
	p.fd, p.state, p.err = -1, stLost, err
	for _, r := range p.out.refs[p.out.ref:] {
		if r.token != 0 {
			t.late = append(t.late, llc.Event{Kind: llc.EvError, Token: r.token, Err: err})
		}
	}
	for _, q := range p.pend[p.ph:] {
		if q.token != 0 {
			t.late = append(t.late, llc.Event{Kind: llc.EvError, Token: q.token, Err: err})
		}
	}
	p.out, p.in, p.pend, p.ph = outQueue{}, inbound{}, nil, 0
	t.track(p)
	t.dirty = true
}
