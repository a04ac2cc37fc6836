package datastore

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Local is an in-process Store for a job of a single rank, used when a
// program runs without a launcher (MPI singleton initialization). Fence and
// FenceCollect return at once and Abort only records the request. It is safe for
// concurrent use; a Get waits for a Put from another goroutine.
type Local struct {
	// Timeout bounds Get: zero means DefaultTimeout, negative no bound. Set
	// it before the store is used.
	Timeout time.Duration

	mu      sync.Mutex
	kv      map[string]string
	changed chan struct{} // closed and replaced by every Put and by Close
	closed  bool
	aborted *AbortRequest
}

var _ Store = (*Local)(nil)

// NewLocal returns an empty Local store.
func NewLocal() *Local {
	return &Local{kv: make(map[string]string), changed: make(chan struct{})}
}

// Put stores value under key.
func (l *Local) Put(key, value string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("datastore: put %q: %w", key, ErrClosed)
	}
	l.kv[key] = value
	close(l.changed)
	l.changed = make(chan struct{})
	return nil
}

// Get returns the value of key, waiting for at most Timeout until it is put.
func (l *Local) Get(key string) (string, error) {
	timeout := l.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		l.mu.Lock()
		v, ok := l.kv[key]
		closed, changed := l.closed, l.changed
		l.mu.Unlock()
		switch {
		case closed:
			return "", fmt.Errorf("datastore: get %q: %w", key, ErrClosed)
		case ok:
			return v, nil
		}
		select {
		case <-changed:
		case <-expired:
			return "", fmt.Errorf("datastore: get %q: no answer after %v: %w", key, timeout, ErrTimeout)
		}
	}
}

// Fence returns at once: the job has a single rank.
func (l *Local) Fence() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("datastore: fence: %w", ErrClosed)
	}
	return nil
}

// FenceCollect returns at once, with the pairs whose key begins with
// prefix: the job has a single rank.
func (l *Local) FenceCollect(prefix string) (map[string]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("datastore: collect %q: %w", prefix, ErrClosed)
	}
	kv := make(map[string]string)
	for k, v := range l.kv {
		if strings.HasPrefix(k, prefix) {
			kv[k] = v
		}
	}
	return kv, nil
}

// Abort records the request; there is no launcher to report it to.
func (l *Local) Abort(code int, msg string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("datastore: abort: %w", ErrClosed)
	}
	if l.aborted == nil {
		l.aborted = &AbortRequest{Rank: 0, Code: code, Msg: msg}
	}
	return nil
}

// Aborted returns the first Abort recorded, if any.
func (l *Local) Aborted() (AbortRequest, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.aborted == nil {
		return AbortRequest{}, false
	}
	return *l.aborted, true
}

// Close releases the store; pending and later calls fail with ErrClosed.
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.changed)
	}
	return nil
}
