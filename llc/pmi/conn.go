package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
)

// Conn is the stream between a client and its PMI server: the inherited
// PMI_FD as an *os.File of a non-blocking socket, or a net.Conn. The
// deadlines bound the exchanges.
type Conn interface {
	io.ReadWriteCloser
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
}

// conn runs the exchanges of a client with its server. PMI is lock-step:
// one request at a time, each answered before the next is sent (RFC 13),
// so an exchange holds the connection until its answer has come. Abort,
// which has no answer, may be written while an exchange waits.
//
// A failed exchange leaves the connection unusable: after a timeout or a
// malformed answer, the next answer read could belong to the earlier
// request.
type conn struct {
	rw    Conn
	r     *bufio.Reader
	codec codec // wire1; wire2 once a PMI-2 init has succeeded

	xmu sync.Mutex // held for a whole exchange
	wmu sync.Mutex // held for a write

	mu       sync.Mutex
	closed   bool  // shutdown was called
	broken   error // why the connection is unusable
	rwClosed bool
}

func newConn(rw Conn) *conn {
	return &conn{rw: rw, r: bufio.NewReader(rw), codec: wire1{}}
}

// call sends req and returns the answer, which must be the command want.
// timeout bounds the exchange; 0 means no bound.
func (c *conn) call(req message, want string, timeout time.Duration) (message, error) {
	ms, err := c.callMulti(req, []string{want}, timeout)
	if err != nil {
		return message{}, err
	}
	return ms[0], nil
}

// callMulti sends req and returns its answer of several messages, whose
// commands must be those of want, in order. timeout bounds the whole
// exchange; 0 means no bound.
func (c *conn) callMulti(req message, want []string, timeout time.Duration) ([]message, error) {
	c.xmu.Lock()
	defer c.xmu.Unlock()
	if err := c.write(req, timeout); err != nil {
		return nil, err
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	if err := c.rw.SetReadDeadline(deadline); err != nil {
		return nil, c.fail(err, timeout)
	}
	ms := make([]message, len(want))
	for i, w := range want {
		m, err := c.codec.decode(c.r)
		if err != nil {
			return nil, c.fail(err, timeout)
		}
		if m.cmd != w {
			return nil, c.fail(fmt.Errorf("%w: answer %q to %s, want %s", errProtocol, m.cmd, req.cmd, w), timeout)
		}
		ms[i] = m
	}
	return ms, nil
}

// send writes req, which has no answer.
func (c *conn) send(req message, timeout time.Duration) error {
	return c.write(req, timeout)
}

func (c *conn) write(req message, timeout time.Duration) error {
	if err := c.usable(); err != nil {
		return err
	}
	b, err := c.codec.encode(req)
	if err != nil {
		return err // nothing was sent: the connection stays usable
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	if err := c.rw.SetWriteDeadline(deadline); err != nil {
		return c.fail(err, timeout)
	}
	if _, err := c.rw.Write(b); err != nil {
		return c.fail(err, timeout)
	}
	return nil
}

// usable returns why the connection cannot carry a request, or nil.
func (c *conn) usable() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return datastore.ErrClosed
	case c.broken != nil:
		return fmt.Errorf("connection unusable after an earlier failure: %w", c.broken)
	}
	return nil
}

// fail makes the connection unusable because of err, met by an exchange
// bounded by timeout, and returns err as the exchange reports it.
func (c *conn) fail(err error, timeout time.Duration) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("no answer after %v: %w", timeout, datastore.ErrTimeout)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%w: it closed the connection", ErrServerLost)
	case !errors.Is(err, errProtocol):
		err = fmt.Errorf("%w: %w", ErrServerLost, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return datastore.ErrClosed // the failure is the shutdown's doing
	}
	if c.broken == nil {
		c.broken = err
	}
	if !errors.Is(err, datastore.ErrTimeout) {
		// After a timeout the connection stays open, unusable, until
		// Close: Hydra ends the job, killing every process, as soon as
		// one closes it, and the process would not get to say why.
		c.closeRW()
	}
	return err
}

// shutdown makes every exchange, waiting or to come, fail with
// datastore.ErrClosed, and closes the stream.
func (c *conn) shutdown() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return c.closeRW()
}

func (c *conn) closeRW() error {
	if c.rwClosed {
		return nil
	}
	c.rwClosed = true
	return c.rw.Close()
}
