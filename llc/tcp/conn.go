package tcp

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/fdio"
	"github.com/rhinet-go/martini/llc/softmem"
)

// connState is where the connection to one peer is.
type connState uint8

const (
	stIdle connState = iota // none yet: the first command to the peer dials
	stUp                    // frames flow
	stLost                  // closed, reset or refused: commands to the peer fail
)

// peer is this process's side of the connection to another process.
//
// A dial completes in the peer's kernel, from its listener's backlog, and
// the dialer sends its hello and then its frames at once, without waiting
// for the welcome: nothing the dialer sends waits for the peer's process
// to answer, so that a process whose call has returned owes its peers
// nothing (the peer's welcome, or its refusal, arrives first on the
// connection, and is read when it comes). Each process sends on one
// connection, fd: its own dial, or the peer's if that came first. When
// both dialed at once, each accepts the other's dial as rfd, which it only
// reads: the peer's frames come on it, in order, since the peer too sends
// on its own dial alone, until the pair converges on one connection
// (converge.go).
type peer struct {
	id  int
	fd  int // the connection this process sends on, and reads; -1: none
	rfd int // the peer's dial when fd is this process's own: read only; -1: none
	// dialEnded is set once the peer's dial, accepted as rfd, was read to
	// its end.
	dialEnded bool
	// switching (the higher rank of a pair that dialed each other at
	// once) is set until this process moves to the peer's dial; held (the
	// lower rank) until the peer's frames come on this process's dial.
	switching, held bool
	// oldFD is the dial a switching process left, while the rest of its
	// fSwitch, sw[swOff:], is written (-1: none).
	oldFD   int
	sw      [hdrSize]byte
	swOff   int
	state   connState
	err     error         // stLost: why
	hs      [hdrSize]byte // the hello or welcome to send first
	hsOff   int           // hs[hsOff:] is not sent yet
	welcome bool          // fd is this process's dial, whose welcome has not arrived
	wantOut bool          // the pollset waits for fd to take more
	out     fdio.Queue
	in      inbound          // from fd
	rin     inbound          // from rfd
	pend    softmem.Requests // requests waiting for answers
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

// dial connects to p, waiting for the peer's kernel to complete the
// connection (at most Options.StallTimeout), and sends the hello: frames can
// follow it at once.
func (t *Transport) dial(p *peer) error {
	if t.addrs == nil {
		return fmt.Errorf("tcp: connecting to process %d: no peer addresses (SetPeers was not called)", p.id)
	}
	fd, err := connect(t.addrs[p.id], &t.opt)
	if err != nil {
		return fmt.Errorf("tcp: connecting to %s: %w", t.where(p), err)
	}
	h := header{kind: fHello, off: helloMagic, a: t.opt.Key, b: uint64(t.self)<<32 | uint64(p.id), c: uint64(t.size)}
	h.put(p.hs[:])
	p.fd, p.hsOff, p.welcome = fd, 0, true
	t.stats.dialed++
	return t.connected(p)
}

// where names process p and its address.
func (t *Transport) where(p *peer) string {
	if t.addrs == nil {
		return fmt.Sprintf("process %d", p.id)
	}
	return fmt.Sprintf("process %d at %s", p.id, sockaddrString(t.addrs[p.id]))
}

// connErr is err, which the connection to p met, naming p and its
// address, and saying that its host stopped answering when the error says
// so: the stall bound ran out, or the host became unreachable.
func (t *Transport) connErr(p *peer, err error) error {
	if errors.Is(err, unix.ETIMEDOUT) || unreachable(err) {
		return fmt.Errorf("tcp: connection to %s: stalled: its host acknowledged nothing for %v (the stall bound): %w",
			t.where(p), t.opt.StallTimeout, err)
	}
	return fmt.Errorf("tcp: connection to %s: %w", t.where(p), err)
}

// errRefused marks the refusal of a dial by the process dialed.
var errRefused = errors.New("refused the connection")

// welcomed acts on the welcome on p's dial.
func (t *Transport) welcomed(p *peer, h *header) error {
	if h.status != welcomeOK {
		return fmt.Errorf("tcp: %s %w: not a process of this job (key %#x, %d processes), or connected already",
			t.where(p), errRefused, t.opt.Key, t.size)
	}
	p.welcome = false
	return nil
}

// accept takes new connections and reads their hellos; it reports whether
// anything happened.
func (t *Transport) accept() bool {
	progressed := false
	for {
		fd, err := fdio.Accept(t.lfd)
		if err != 0 {
			break
		}
		setOptions(fd, &t.opt)
		t.incoming = append(t.incoming, incoming{fd: fd})
		progressed, t.dirty = true, true
	}
	for i := 0; i < len(t.incoming); i++ {
		c := &t.incoming[i]
		n, err := fdio.Read(c.fd, c.buf[c.got:])
		if err == unix.EAGAIN {
			continue
		}
		progressed = true
		if c.got += n; err == 0 && n > 0 && c.got < hdrSize {
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

// hello answers the hello of c: it makes c the connection to its process
// (or, when this process dialed it too, the second one, read only), or
// refuses it.
func (t *Transport) hello(c *incoming) {
	var h header
	h.get(c.buf[:])
	from, to := int(h.b>>32), int(uint32(h.b))
	status := uint8(welcomeRefused)
	var p *peer
	if h.kind == fHello && h.off == helloMagic && h.a == t.opt.Key && h.c == uint64(t.size) &&
		to == t.self && from >= 0 && from < t.size && from != t.self {
		p = &t.peers[from]
		if p.state == stIdle || p.state == stUp && p.rfd < 0 {
			status = welcomeOK
		}
	}
	w := header{kind: fWelcome, status: status}
	if status != welcomeOK || p.state == stUp {
		// A refusal, or the welcome on a connection this process only
		// reads: the first bytes of a new socket, which takes them.
		w.put(c.buf[:])
		fdio.Write(c.fd, c.buf[:])
	}
	switch {
	case status != welcomeOK:
		t.stats.refused++
		unix.Close(c.fd)
	case p.state == stUp:
		p.rfd = c.fd
		p.switching, p.held = t.self > p.id, t.self < p.id
		t.stats.accepted++
	default:
		w.put(p.hs[:])
		p.fd, p.hsOff = c.fd, 0
		t.stats.accepted++
		if err := t.connected(p); err != nil {
			t.lose(p, err)
		}
	}
}

// connected makes p's connection the one frames flow on, and sends its
// first header (the hello or the welcome) and what waited for it.
func (t *Transport) connected(p *peer) error {
	p.state, t.dirty = stUp, true // a new descriptor for the pollset
	p.in.Alloc(inBufSize)
	if err := t.flush(p); err != nil {
		return t.connErr(p, err)
	}
	return nil
}

// ended closes the connection of a peer that said goodbye (fBye) on it
// and then closed it; the second, if any, is read to its end, in its
// place. The peer's own dial, when its goodbye says its frames went there
// and this process has not accepted it yet (nor read it to its end
// already: the two connections may end in either order), is waited for:
// until then fd is -1, and what is sent to the peer waits. When no
// connection is left, later commands to the peer fail, but the engine
// does not stop (a process that finalized is no failure of the job).
func (t *Transport) ended(p *peer, second bool) {
	p.switching, p.held = false, false // no switch comes, or none is needed
	switch {
	case second && p.fd >= 0, !second && p.rfd >= 0:
		if second {
			unix.Close(p.rfd)
			p.dialEnded = true
		} else {
			unix.Close(p.fd)
			p.fd, p.in, p.welcome, p.hsOff = p.rfd, p.rin, false, hdrSize
		}
		p.rfd, p.rin = -1, inbound{}
	case !second && p.in.elsewhere && !p.dialEnded:
		unix.Close(p.fd)
		p.fd, p.in, p.welcome = -1, inbound{}, false
	default:
		t.drop(p, fmt.Errorf("tcp: process %d closed its network (it finalized)", p.id))
		return
	}
	t.track(p)
	t.dirty = true
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
	if p.rfd >= 0 {
		unix.Close(p.rfd)
	}
	if p.oldFD >= 0 {
		unix.Close(p.oldFD)
	}
	p.fd, p.rfd, p.oldFD, p.state, p.err = -1, -1, -1, stLost, err
	p.out.Fail(err, &t.late)
	p.pend.Fail(err, &t.late)
	t.orphan(&p.in)
	t.orphan(&p.rin)
	p.in, p.rin = inbound{}, inbound{}
	t.track(p)
	t.dirty = true
}
