package mpi

import "fmt"

// Persistent collectives (MPI-4.0's MPI_Bcast_init and the others).
//
// Making one calls its start function once, while c records instead of
// running the nonblocking collective that the function starts: what
// operation, on which buffers, with which arguments. Each Start runs the
// recorded operation again, so each round moves what the buffers hold
// then. The rounds run on a private copy of the communicator: the same
// processes, ranks and topology under a context id of its own, agreed
// when the request is made, which is why making one is collective. Their
// messages are tagged from that copy's own sequence, in the order of the
// request's rounds, which every process shares: processes may start
// different persistent collectives in different orders, as MPI allows,
// and none of their messages mixes with the communicator's. Free gives
// the context id back once the last round has completed, without
// communication (context ids are agreed as free in every process before
// one is reused).

// captured is what a persistent collective's start function started,
// recorded by the communicator (Comm.capturing).
type captured struct {
	// relaunch starts a round of the operation on d, the private copy
	// of the communicator.
	relaunch func(d *Comm) *collRequest
	started  int // nonblocking collectives the start function started
}

// record notes relaunch as the operation the start function started on
// c, and returns the Request that the call returns instead of running it:
// complete at once.
func (cp *captured) record(c *Comm, relaunch func(d *Comm) *collRequest) *Request {
	cp.relaunch = relaunch
	cp.started++
	return &Request{c: c, null: true}
}

// PersistentCollective makes a persistent request for a collective
// operation of c (MPI-4.0's MPI_Bcast_init and the others): start starts
// the operation as a nonblocking collective of c (Ibcast, Iallreduce,
// IneighborAlltoall ...) on the buffers it names. It is called once, now,
// and the operation it starts is recorded, not run; each Start of the
// request runs it again, so that each round moves what the buffers hold
// when it starts. The request is inactive until Start, and Wait, Test
// and the others complete a round as they do a persistent send's.
//
// Making one is collective over c: every process makes its persistent
// collectives of c in the same order, as it calls c's collectives. Starts
// may come in any order. start must start exactly one nonblocking
// collective of c (of an intracommunicator), else the call fails with an
// error wrapping ErrRequest; the arguments are checked by each round, as
// a nonblocking collective's are when it runs.
func PersistentCollective(c *Comm, start func() (*Request, error)) (*Request, error) {
	const op = "PersistentCollective"
	if err := c.checkIntra(op); err != nil {
		return nil, err
	}
	if start == nil {
		return nil, fmt.Errorf("mpi: %s: no start function: %w", op, ErrRequest)
	}
	cp := new(captured)
	if !c.capturing.CompareAndSwap(nil, cp) {
		return nil, fmt.Errorf("mpi: %s: another is being made on the communicator at the same time: %w", op, ErrRequest)
	}
	_, err := start()
	c.capturing.Store(nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	case cp.started != 1:
		return nil, fmt.Errorf("mpi: %s: the start function started %d nonblocking collectives of the communicator, not one: %w", op, cp.started, ErrRequest)
	}
	d, err := c.privateCopy(op)
	if err != nil {
		return nil, err
	}
	return &Request{c: d, name: op, persistent: true, finished: true, restart: func() *collRequest { return cp.relaunch(d) }}, nil
}

// privateCopy returns a communicator of c's processes, ranks and
// topology under a context id of its own, with no barrier controller:
// the rounds of a persistent collective run on it. Collective over c.
func (c *Comm) privateCopy(op string) (*Comm, error) {
	id, err := c.allocContext(op)
	if err != nil {
		return nil, err
	}
	d := new(Comm)
	initComm(d, c.rt, id, c.rank, c.world)
	d.topo = c.topo
	return d, nil
}

// freeLocal frees c without communication: its context id goes back once
// its pending requests have finished. For a communicator no process
// sends on outside such requests (a persistent collective's copy).
func (c *Comm) freeLocal() {
	if c.freed.CompareAndSwap(false, true) {
		c.releaseWhenIdle()
	}
}

// failedColl returns the collRequest of an operation of c that failed
// with err before it started, counted as started so that its completion
// balances it.
func (c *Comm) failedColl(err error) *collRequest {
	cr := &collRequest{err: err}
	c.requestStarted()
	cr.done.Store(true)
	return cr
}
