package tcp

import (
	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/llc/fdio"
)

// One connection a pair. When both processes of a pair dialed each other
// at once, each sends on its own dial at first (see peer). But a
// connection that carries data one way has its segments acknowledged by
// packets of their own, where on one connection the replies carry the
// acknowledgements: a ping-pong over the two paid an extra packet a round
// trip (docs/decisions.md). So the pair converges on the lower rank's
// dial. The higher rank, once its own dial's welcome has come and nothing
// waits to be written on it, ends it with fSwitch and sends on the other
// from then on. The lower rank holds what comes on its dial after the
// welcome until the fSwitch has come on the other connection (holding),
// so that the frames keep their order; then it reads its dial alone.

// holding reports whether p's frames on this process's dial, after its
// welcome, wait for the peer's fSwitch on the other connection.
func (p *peer) holding() bool { return p.held && !p.welcome }

// converge moves p, the peer of a higher-ranked process that still sends
// on its own dial, to the peer's dial, when it can: its own dial's welcome
// has come and nothing waits to be written on it. The fSwitch ends the
// old connection, which is then closed; a part of it the socket did not
// take is written first (finishSwitch).
func (t *Transport) converge(p *peer) error {
	if !p.switching || p.welcome || p.hsOff < hdrSize || !p.out.Empty() || p.rfd < 0 {
		return nil
	}
	var b [hdrSize]byte
	h := header{kind: fSwitch}
	h.put(b[:])
	n, err := fdio.Write(p.fd, b[:])
	switch {
	case err == unix.EAGAIN:
		return nil
	case err != 0:
		return err
	}
	old := p.fd
	p.switching = false
	p.fd, p.in, p.rfd, p.rin = p.rfd, p.rin, -1, inbound{}
	p.sw, p.swOff, p.oldFD = b, n, old
	t.dirty = true
	return t.finishSwitch(p)
}

// finishSwitch writes what is left of the fSwitch on p's old connection,
// and closes it once written.
func (t *Transport) finishSwitch(p *peer) error {
	for p.oldFD >= 0 && p.swOff < hdrSize {
		n, err := fdio.Write(p.oldFD, p.sw[p.swOff:])
		switch {
		case err == unix.EAGAIN:
			return nil
		case err != 0:
			return err
		}
		p.swOff += n
	}
	if p.oldFD >= 0 {
		closeConn(p.oldFD)
		p.oldFD = -1
		t.dirty = true
	}
	return nil
}
