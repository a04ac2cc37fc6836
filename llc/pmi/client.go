package pmi

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
)

var (
	// ErrServerLost is wrapped by errors of requests that failed because
	// the connection to the PMI server broke, typically because the
	// launcher went away.
	ErrServerLost = errors.New("connection to the PMI server lost")
	// ErrRefused is wrapped by errors of requests that the server answered
	// with a non-zero return code.
	ErrRefused = errors.New("PMI server refused the request")
	// ErrTooLong is wrapped by errors of a Put or Get whose key or value,
	// escaped for the wire, is longer than the server takes.
	ErrTooLong = errors.New("longer than the PMI server takes")
	// ErrPutTwice is wrapped by the error of a Put of a key that this
	// process already put with another value: PMI servers keep a key's
	// first value (RFC 13: a key is put once; Hydra answers a second put
	// with success and keeps the first).
	ErrPutTwice = errors.New("key already put with another value, and PMI keeps a key's first value")
)

// DefaultInitTimeout bounds the first fence of a client made without an
// InitTimeout. A job's processes reach it in their Init, within seconds
// of each other unless one exited or hangs before its Init; the bound
// leaves room for slow starts (many hosts, a slow file system) and work
// before Init, and still ends a job that cannot start.
const DefaultInitTimeout = 5 * time.Minute

// protocol is what the Client needs of a wire protocol. Keys and values
// are already escaped for the wire.
type protocol interface {
	name() string
	put(key, value string) error
	// get asks for key once; found is false if the server does not have
	// it. timeout bounds the exchange (0: no bound).
	get(key string, timeout time.Duration) (value string, found bool, err error)
	// barrier waits until every process has entered it, for at most
	// timeout (0: no bound).
	barrier(timeout time.Duration) error
	abort(code int, msg string) error
	finalize() error
}

// Options describe the client's side of a connection to a PMI server.
type Options struct {
	// Version is the protocol, 1 (PMI-1) or 2 (PMI-2).
	Version int
	// Rank and Size are the process's rank and the job's size, as the
	// launcher set them (PMI_RANK, PMI_SIZE). PMI-1 learns them only
	// here; PMI-2's fullinit reports them and they are checked against
	// these.
	Rank, Size int
	// JobID is the launcher's PMI_JOBID, passed on in PMI-2's fullinit
	// (Slurm requires it); empty if the launcher set none.
	JobID string
	// Port says that the connection was made to the server's port
	// (PMI_PORT) rather than inherited: the client introduces itself
	// with ID (PMI_ID) and learns its rank and size from the server,
	// ignoring Rank and Size. PMI-1 does so in an initack exchange
	// before its init, PMI-2 in its fullinit.
	Port bool
	ID   int
	// Timeout bounds every exchange but a fence's wait, and a Get's
	// wait for its key. Zero means datastore.DefaultTimeout, negative
	// no bound.
	Timeout time.Duration
	// InitTimeout bounds the wait of the client's first fence, where
	// every process meets the others as it starts (MPI's Init). Zero
	// means DefaultInitTimeout, negative no bound.
	InitTimeout time.Duration
}

// Client is a process's connection to the PMI server of its launcher, as
// a datastore.Store. See the package documentation for what the PMI
// protocols let it promise. It is safe for concurrent use; its requests
// go to the server one at a time, as PMI requires, except Abort, which
// is sent even while a fence waits.
type Client struct {
	conn    *conn
	proto   protocol
	timeout time.Duration // 0: none
	rank    int
	size    int
	version int
	jobID   string
	keyMax  int // longest wire key the server takes
	valMax  int // longest wire value
	// initTimeout bounds the first fence (0: none); fenced is set once
	// one has completed.
	initTimeout time.Duration
	fenced      bool

	state   sync.Mutex
	closed  bool          // Close was called
	fencing bool          // a Fence or FenceCollect holds mu
	closing chan struct{} // closed by Close: ends Get's waits
	onClose func()        // if not nil, called once the connection is closed

	mu sync.Mutex // serializes the requests; guards index
	index
}

var _ datastore.Store = (*Client)(nil)

// Open initializes a client on rw, which it takes ownership of (it
// closes rw if it fails), and returns it once the server has answered
// the protocol's initialization.
func Open(rw Conn, opts Options) (*Client, error) {
	c, err := open(rw, opts)
	if err != nil {
		rw.Close()
		return nil, fmt.Errorf("pmi-%d: %w", opts.Version, err)
	}
	return c, nil
}

func open(rw Conn, opts Options) (*Client, error) {
	if !opts.Port && (opts.Size < 1 || opts.Rank < 0 || opts.Rank >= opts.Size) {
		return nil, fmt.Errorf("rank %d of %d processes: out of range", opts.Rank, opts.Size)
	}
	if opts.Port && opts.ID < 0 {
		return nil, fmt.Errorf("PMI id %d: negative", opts.ID)
	}
	timeout := opts.Timeout
	switch {
	case timeout == 0:
		timeout = datastore.DefaultTimeout
	case timeout < 0:
		timeout = 0
	}
	cl := &Client{
		conn: newConn(rw), timeout: timeout, rank: opts.Rank, size: opts.Size,
		version: opts.Version, closing: make(chan struct{}), initTimeout: opts.InitTimeout,
	}
	switch {
	case cl.initTimeout == 0:
		cl.initTimeout = DefaultInitTimeout
	case cl.initTimeout < 0:
		cl.initTimeout = 0
	}
	var err error
	switch opts.Version {
	case 1:
		err = cl.open1(opts)
	case 2:
		err = cl.open2(opts)
	default:
		return nil, fmt.Errorf("no PMI version %d: 1 or 2", opts.Version)
	}
	if err != nil {
		return nil, err
	}
	if cl.size < 1 || cl.rank < 0 || cl.rank >= cl.size {
		return nil, fmt.Errorf("%w: the server says rank %d of %d processes: out of range", errProtocol, cl.rank, cl.size)
	}
	cl.index = newIndex(cl.rank, cl.size)
	return cl, nil
}

// open1 initializes the PMI-1 protocol, after the initack exchange that
// tells the rank and size on a connection made to the server's port.
func (cl *Client) open1(opts Options) error {
	if opts.Port {
		rank, size, err := initack(cl.conn, opts.ID, cl.timeout)
		if err != nil {
			return err
		}
		cl.rank, cl.size = rank, size
	}
	p, keyMax, valMax, err := open1(cl.conn, cl.timeout)
	if err != nil {
		return err
	}
	cl.proto, cl.keyMax, cl.valMax, cl.jobID = p, keyMax, valMax, p.kvsname
	return nil
}

// open2 initializes the PMI-2 protocol, whose fullinit names the process
// by its rank, or on a connection made to the server's port by its id.
func (cl *Client) open2(opts Options) error {
	id := opts.Rank
	if opts.Port {
		id = opts.ID
	}
	p, rank, size, job, err := open2(cl.conn, id, opts.JobID, cl.timeout)
	if err != nil {
		return err
	}
	if !opts.Port && (rank != opts.Rank || size != opts.Size) {
		return fmt.Errorf("fullinit: the server says rank %d of %d, the environment rank %d of %d", rank, size, opts.Rank, opts.Size)
	}
	cl.rank, cl.size = rank, size
	cl.proto, cl.keyMax, cl.valMax, cl.jobID = p, keyMax2, valMax2, job
	return nil
}

// Rank returns the process's rank.
func (c *Client) Rank() int { return c.rank }

// Size returns the number of processes of the job.
func (c *Client) Size() int { return c.size }

// Version returns the protocol: 1 or 2.
func (c *Client) Version() int { return c.version }

// JobID returns the name the server gives the job's key-value space
// (PMI-1's kvsname, PMI-2's jobid): the same for every process of the
// job, different between jobs.
func (c *Client) JobID() string { return c.jobID }

// errorf returns err in the context of the request what.
func (c *Client) errorf(what string, err error) error {
	return fmt.Errorf("%s: %s: %w", c.proto.name(), what, err)
}

// encode returns key and value escaped for the wire, checked against the
// server's limits.
func (c *Client) encode(key, value string) (wkey, wval string, err error) {
	if key == "" {
		return "", "", errors.New("empty key: PMI cannot carry one")
	}
	wkey, wval = wireKey(key), escape(value)
	if len(wkey) > c.keyMax {
		return "", "", fmt.Errorf("key of %d bytes is %d escaped for the wire, %w (%d)", len(key), len(wkey), ErrTooLong, c.keyMax)
	}
	if len(wval) > c.valMax {
		return "", "", fmt.Errorf("value of %d bytes is %d escaped for the wire, %w (%d)", len(value), len(wval), ErrTooLong, c.valMax)
	}
	return wkey, wval, nil
}

// begin starts a request, under mu; fence says whether it is a fence,
// which Close ends instead of waiting for it. A fence calls endFence when
// done.
func (c *Client) begin(fence bool) error {
	c.state.Lock()
	defer c.state.Unlock()
	if c.closed {
		return datastore.ErrClosed
	}
	c.fencing = fence
	return nil
}

func (c *Client) endFence() {
	c.state.Lock()
	c.fencing = false
	c.state.Unlock()
}
