package datastore

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Client is a rank's connection to the Server of its job. It is safe for
// concurrent use by several goroutines: requests are multiplexed on the
// connection, so a Get blocked in one goroutine does not hold up a Put in
// another.
type Client struct {
	// Timeout bounds every request except Fence; a Get that times out names
	// its key and wraps ErrTimeout. Zero means DefaultTimeout, negative
	// means no bound. Set it before the Client is used.
	Timeout time.Duration

	conn    Conn
	wmu     sync.Mutex // serializes writes to conn
	done    chan struct{}
	closing sync.Once

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan frame
	err     error // why the connection ended; set before done is closed
	closed  bool
}

var _ Store = (*Client)(nil)

// NewClient returns a Client talking to a Server over conn, which it takes
// ownership of.
func NewClient(conn Conn) *Client {
	c := &Client{
		conn:    conn,
		done:    make(chan struct{}),
		pending: make(map[uint64]chan frame),
	}
	go c.read()
	return c
}

func (c *Client) read() {
	r := bufio.NewReader(c.conn)
	var err error
	for {
		var f frame
		f, err = readFrame(r)
		if err != nil {
			break
		}
		c.mu.Lock()
		ch := c.pending[f.id]
		delete(c.pending, f.id)
		c.mu.Unlock()
		if ch != nil {
			ch <- f // buffered
		}
	}
	c.mu.Lock()
	if c.closed {
		c.err = ErrClosed
	} else {
		c.err = fmt.Errorf("connection to the launcher lost: %w", err)
	}
	c.mu.Unlock()
	close(c.done)
}

func (c *Client) timeout() time.Duration {
	switch {
	case c.Timeout == 0:
		return DefaultTimeout
	case c.Timeout < 0:
		return 0
	}
	return c.Timeout
}

func (c *Client) write(f frame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return writeFrame(c.conn, f)
}

// call sends a request and waits for its response, for at most timeout
// (0: no bound), and returns the response's first field. what describes
// the request in errors.
func (c *Client) call(what string, op byte, timeout time.Duration, fields ...string) (string, error) {
	f, err := c.roundTrip(what, op, timeout, fields...)
	return f.field(0), err
}

// roundTrip sends a request and waits for its ok response, for at most
// timeout (0: no bound).
func (c *Client) roundTrip(what string, op byte, timeout time.Duration, fields ...string) (frame, error) {
	ch := make(chan frame, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return frame{}, fmt.Errorf("%s: %w", what, ErrClosed)
	}
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return frame{}, fmt.Errorf("%s: %w", what, err)
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.write(frame{kind: op, id: id, fields: fields}); err != nil {
		c.forget(id)
		return frame{}, fmt.Errorf("%s: send request: %w", what, err)
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case f := <-ch:
		return response(what, f)
	case <-c.done:
		select {
		case f := <-ch:
			return response(what, f)
		default:
		}
		return frame{}, fmt.Errorf("%s: %w", what, c.err)
	case <-expired:
		c.forget(id)
		if op == opGet {
			// Best effort: let the server drop the waiting Get.
			c.write(frame{kind: opCancel, id: id})
		}
		return frame{}, fmt.Errorf("%s: no answer after %v: %w", what, timeout, ErrTimeout)
	}
}

func (c *Client) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func response(what string, f frame) (frame, error) {
	switch f.kind {
	case stOK:
		return f, nil
	case stLost:
		return frame{}, fmt.Errorf("%s: %s: %w", what, f.field(0), ErrRankLost)
	case stErr:
		return frame{}, fmt.Errorf("%s: %s", what, f.field(0))
	}
	return frame{}, fmt.Errorf("%s: unexpected response %q", what, f.kind)
}

// Put publishes value under key for every rank of the job.
func (c *Client) Put(key, value string) error {
	_, err := c.call(fmt.Sprintf("datastore: put %q", key), opPut, c.timeout(), key, value)
	return err
}

// Get returns the value of key, waiting until some rank has put it, for at
// most the client's Timeout.
func (c *Client) Get(key string) (string, error) {
	return c.call(fmt.Sprintf("datastore: get %q", key), opGet, c.timeout(), key)
}

// Fence waits until every rank of the job has called Fence. It is not bounded
// by Timeout; it fails with ErrRankLost if a rank of the job is gone.
func (c *Client) Fence() error {
	_, err := c.call("datastore: fence", opFence, 0)
	return err
}

// FenceCollect waits until every rank of the job has entered the fence and
// returns the pairs whose key begins with prefix, all in one response. Like
// Fence, it is not bounded by Timeout and fails with ErrRankLost if a rank
// of the job is gone.
func (c *Client) FenceCollect(prefix string) (map[string]string, error) {
	what := fmt.Sprintf("datastore: collect %q", prefix)
	f, err := c.roundTrip(what, opCollect, 0, prefix)
	if err != nil {
		return nil, err
	}
	if len(f.fields)%2 != 0 {
		return nil, fmt.Errorf("%s: %w: %d fields, want key-value pairs", what, errBadFrame, len(f.fields))
	}
	kv := make(map[string]string, len(f.fields)/2)
	for i := 0; i < len(f.fields); i += 2 {
		kv[f.fields[i]] = f.fields[i+1]
	}
	return kv, nil
}

// Abort reports to the launcher that this rank called MPI Abort, and returns
// once the launcher has taken note.
func (c *Client) Abort(code int, msg string) error {
	_, err := c.call("datastore: abort", opAbort, c.timeout(), strconv.Itoa(code), msg)
	return err
}

// Close tells the server that the rank leaves cleanly and closes the
// connection. Pending requests fail with ErrClosed.
func (c *Client) Close() error {
	var err error
	c.closing.Do(func() {
		c.mu.Lock()
		c.closed = true
		healthy := c.err == nil
		c.mu.Unlock()
		var berr error
		if healthy {
			c.conn.SetWriteDeadline(time.Now().Add(closeGrace))
			berr = c.write(frame{kind: opBye})
		}
		if cerr := c.conn.Close(); cerr != nil || berr != nil {
			err = fmt.Errorf("datastore: close: %w", errors.Join(berr, cerr))
		}
		<-c.done
	})
	return err
}
