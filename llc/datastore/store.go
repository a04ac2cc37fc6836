// Package datastore is the management data store of a Martini job: a small
// key-value service through which the ranks exchange the information they
// need to connect (addresses, business cards) and synchronize during
// initialization and finalization, in the style of the PMI-like "data store"
// of the LLC paper.
//
// The launcher (mpirun) runs a Server with one connection per rank; every rank
// talks to it through a Client. A program started without a launcher uses
// Local, an in-process store for a job of size 1.
//
// The store is not a fast path: it is used a handful of times per job.
package datastore

import (
	"errors"
	"io"
	"time"
)

// Store is the view of the data store that a rank has.
type Store interface {
	// Put publishes value under key for every rank of the job. Putting a key
	// again replaces its value.
	Put(key, value string) error
	// Get returns the value of key, waiting until some rank has put it. The
	// wait is bounded by the store's timeout; the error names the key.
	Get(key string) (string, error)
	// Fence is a barrier across all ranks of the job: every rank calls it,
	// and it returns once all of them have. It fails instead of hanging when
	// a rank of the job is gone.
	Fence() error
	// FenceCollect is a Fence that also collects data, like PMIx_Fence with
	// PMIX_COLLECT_DATA: when every rank has entered the fence (by Fence or
	// FenceCollect), it returns every pair of the store whose key begins
	// with prefix, which includes what each rank put before it entered.
	// One FenceCollect thus replaces a Fence followed by a Get per key.
	FenceCollect(prefix string) (map[string]string, error)
	// Abort reports to the launcher that this rank called MPI Abort with the
	// given error code and message. The caller is expected to exit next.
	Abort(code int, msg string) error
	// Close releases the store. Calls after Close fail with ErrClosed.
	Close() error
}

// Conn is the stream connection between a rank's Client and the Server: a
// net.Conn, or an *os.File of a socket (what a rank inherits). The package
// does not need the net package, so that the ranks' programs, which import
// it, do not link it (and with it cgo).
type Conn interface {
	io.ReadWriteCloser
	// SetWriteDeadline bounds the writes to come, as net.Conn's does.
	SetWriteDeadline(t time.Time) error
}

// DefaultTimeout bounds Get (and the other requests except Fence) when a
// store is created without an explicit timeout.
const DefaultTimeout = 60 * time.Second

var (
	// ErrClosed is returned by calls on a closed store.
	ErrClosed = errors.New("store closed")
	// ErrTimeout is wrapped by errors of requests that were not answered in
	// time, such as a Get of a key that nobody put.
	ErrTimeout = errors.New("timed out")
	// ErrRankLost is wrapped by errors of requests that cannot complete
	// because a rank of the job disconnected from the data store, typically
	// because it died.
	ErrRankLost = errors.New("rank lost")
)
