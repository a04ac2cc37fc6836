package pmi

import (
	"errors"
	"fmt"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
)

// Put publishes value under key. Other processes see it once this process
// and they have passed a fence (PMI's rule); this process sees it at once.
// A key is put once: a second Put of it with the same value does nothing,
// with another value it fails with ErrPutTwice. A key or value too long
// for the server once escaped fails with ErrTooLong.
func (c *Client) Put(key, value string) error {
	what := fmt.Sprintf("put %q", key)
	wkey, wval, err := c.encode(key, value)
	if err != nil {
		return c.errorf(what, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.begin(false); err != nil {
		return c.errorf(what, err)
	}
	if old, ok := c.own[key]; ok {
		if old == value {
			return nil
		}
		return c.errorf(what, ErrPutTwice)
	}
	if err := c.proto.put(wkey, wval); err != nil {
		return c.errorf(what, err)
	}
	c.own[key] = value
	c.pending = append(c.pending, wkey)
	return nil
}

// How often Get asks the server for a key it does not have yet.
const (
	firstPoll = time.Millisecond
	maxPoll   = 100 * time.Millisecond
)

// Get returns the value of key, asking the server again, less and less
// often, until it has the key (another process's key is there once that
// process and this one have passed a fence), for at most the Options'
// Timeout (and the answer to the last question, bounded by the Timeout
// too); then the error wraps datastore.ErrTimeout. A key this process
// put is answered at once. Values read are kept: a key's value never
// changes in PMI. Hydra's PMI-2 holds the answer for a missing key until
// every process has fenced as often as this one; if the Timeout expires
// first, the connection is left unusable.
func (c *Client) Get(key string) (string, error) {
	what := fmt.Sprintf("get %q", key)
	wkey, _, err := c.encode(key, "")
	if err != nil {
		return "", c.errorf(what, err)
	}
	var deadline time.Time
	if c.timeout > 0 {
		deadline = time.Now().Add(c.timeout)
	}
	poll := firstPoll
	for {
		v, found, err := c.getOnce(key, wkey, deadline)
		if err != nil {
			return "", c.errorf(what, err)
		}
		if found {
			return v, nil
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return "", c.errorf(what, fmt.Errorf("the server did not have it within %v: %w", c.timeout, datastore.ErrTimeout))
			}
			poll = min(poll, left)
		}
		t := time.NewTimer(poll)
		select {
		case <-c.closing:
			t.Stop()
			return "", c.errorf(what, datastore.ErrClosed)
		case <-t.C:
		}
		poll = min(2*poll, maxPoll)
	}
}

// getOnce looks key up in what this process knows, else asks the server
// once if deadline (zero: none) has not passed.
func (c *Client) getOnce(key, wkey string, deadline time.Time) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.begin(false); err != nil {
		return "", false, err
	}
	if v, ok := c.own[key]; ok {
		return v, true, nil
	}
	if v, ok := c.values[wkey]; ok {
		return v, true, nil
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		return "", false, nil
	}
	// A question gets the whole Timeout for its answer, not what is left
	// of the wait: a server slow to say "not yet" near the end of the
	// wait would otherwise leave the connection unusable.
	return c.fetch(wkey, c.timeout)
}

// fetch asks the server for the value of wkey and keeps it.
func (c *Client) fetch(wkey string, timeout time.Duration) (string, bool, error) {
	wv, found, err := c.proto.get(wkey, timeout)
	if err != nil || !found {
		return "", false, err
	}
	v, err := unescape(wv)
	if err != nil {
		return "", false, fmt.Errorf("%w: value of %s: %w", errProtocol, wkey, err)
	}
	c.values[wkey] = v
	return v, true, nil
}

// Fence waits until every process of the job has entered a fence (Fence
// or FenceCollect). It is not bounded by the Timeout; it fails instead of
// hanging when the connection to the server breaks, as it does when the
// launcher goes away (ErrServerLost). Hydra ends the whole job when a
// process leaves without finalize (Slurm with srun -K), so a fence does
// not wait for a dead process there.
func (c *Client) Fence() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.begin(true); err != nil {
		return c.errorf("fence", err)
	}
	defer c.endFence()
	if err := c.fence(); err != nil {
		return c.errorf("fence", err)
	}
	return nil
}

// fence publishes this process's index keys and waits at the barrier:
// the first time for at most the InitTimeout, which ends a job one of
// whose processes never comes (the launcher ends the job when a process
// dies, but not, Hydra, when it exits with success before its Init). The
// servers cannot tell which processes are missing: Hydra's hold the
// puts until every process has entered the barrier.
func (c *Client) fence() error {
	if err := c.publish(); err != nil {
		return err
	}
	if c.fenced {
		return c.proto.barrier(0)
	}
	err := c.proto.barrier(c.initTimeout)
	if errors.Is(err, datastore.ErrTimeout) {
		return fmt.Errorf("rank %d of %d: the job's other processes did not all come to their first fence (in Init) within %v (%s): one of them exited or hangs before its Init (PMI cannot tell which): %w",
			c.rank, c.size, c.initTimeout, EnvInitTimeout, err)
	}
	if err == nil {
		c.fenced = true
	}
	return err
}

// Abort asks the launcher to end the whole job; it does not wait for an
// answer, since there is none: the caller is expected to exit next. PMI-1
// carries code as the job's exit code and no message; PMI-2 carries msg
// (printable ASCII, other bytes as spaces) and no code. It is sent even
// while a fence of another goroutine waits.
func (c *Client) Abort(code int, msg string) error {
	c.state.Lock()
	closed := c.closed
	c.state.Unlock()
	if closed {
		return c.errorf("abort", datastore.ErrClosed)
	}
	if err := c.proto.abort(code, msg); err != nil {
		return c.errorf("abort", err)
	}
	return nil
}

// Close sends finalize, waits for the server's acknowledgement (within
// the Timeout) and closes the connection. A fence waiting in another
// goroutine is not waited for: the connection is closed under it and it
// fails with datastore.ErrClosed, without a finalize (Hydra then ends the
// job, as for a process that dies). Calls after Close fail with
// datastore.ErrClosed.
func (c *Client) Close() error {
	c.state.Lock()
	if c.closed {
		c.state.Unlock()
		return nil
	}
	c.closed = true
	close(c.closing)
	fencing := c.fencing
	c.state.Unlock()
	if c.onClose != nil {
		defer c.onClose()
	}
	if fencing {
		c.conn.shutdown()
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	if c.conn.usable() == nil {
		err = c.proto.finalize()
	}
	if cerr := c.conn.shutdown(); err == nil {
		err = cerr
	}
	if err != nil {
		return c.errorf("close", err)
	}
	return nil
}
