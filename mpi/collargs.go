package mpi

import "github.com/rhinet-go/martini/collectives"

// collArgs are a nonblocking collective, kept in the softRun that carries
// the operation (Comm.startArgs): for the commonest kinds (Ibarrier,
// Ibcast, Ireduce, Iallreduce, Igather, Iscatter, Iallgather, Ialltoall)
// their arguments, where a body bound to them would be a closure
// allocated by every call, two for a reduction (callgrind: some 500
// instructions an Iallreduce); for the others a body (Comm.start). The
// buffers are converted to bytes, and the reduction's Reducer looked up,
// when the call starts.
type collArgs struct {
	kind       collKind
	body       collBody // argsBody's and argsTyped's
	send, recv []byte
	root, elem int
	reducer    *collectives.Reducer
	// err is the Reducer's lookup's error, which run publishes to the
	// other processes as a blocking call's body does (reducer).
	err error
}

// collKind is the collective that collArgs describes.
type collKind uint8

const (
	argsNone collKind = iota
	argsBody
	// argsTyped is the body of a typed form (IbcastType ...) of one of
	// the kinds below, run as that kind is: in the communicator's queue
	// where that kind queues (Comm.queueable), so that a process's call
	// of the one form meets another's of the other, as MPI lets them.
	argsTyped
	argsBarrier
	argsBcast
	argsReduce
	argsAllreduce
	argsGather
	argsScatter
	argsAllgather
	argsAlltoall
)

// run runs the collective that a describes on u.
func (a *collArgs) run(u *collectives.Runner) error {
	switch a.kind {
	case argsBody, argsTyped:
		return a.body(u)
	case argsBarrier:
		return u.Barrier()
	case argsBcast:
		return u.Bcast(a.recv, a.root, a.elem)
	case argsReduce:
		if a.err != nil {
			return u.Fail(collectives.CollReduce, a.err)
		}
		return u.Reduce(a.send, a.recv, *a.reducer, a.root)
	case argsAllreduce:
		if a.err != nil {
			return u.Fail(collectives.CollAllreduce, a.err)
		}
		return u.Allreduce(a.send, a.recv, *a.reducer)
	case argsGather:
		return u.Gather(a.send, a.recv, a.root, a.elem)
	case argsScatter:
		return u.Scatter(a.send, a.recv, a.root, a.elem)
	case argsAllgather:
		return u.Allgather(a.send, a.recv, a.elem)
	case argsAlltoall:
		return u.Alltoall(a.send, a.recv, a.elem)
	}
	return nil
}

// reductionArgs returns the collArgs of a reduction of kind with op on
// elements of T.
func reductionArgs[T Type](kind collKind, send, recv []T, op Op, root int) collArgs {
	r, err := collectives.ReducerRef[T](op)
	return collArgs{kind: kind, send: inPlace(send), recv: asBytes(recv), root: root, reducer: r, err: err}
}

// startArgs starts the collective that a describes and returns its
// Request: in c's queue, to run on c's own Runner as a blocking call does,
// where c has a synchronisation network and its processes a core each
// (collqueue.go), else on a softRun of its own, with the software
// algorithms (launchArgs). The operation's
// messages get their tag now, in the caller's order of collective calls,
// which every process shares.
func (c *Comm) startArgs(op string, a collArgs) (*Request, error) {
	if err := c.checkIntra(op); err != nil {
		return nil, err
	}
	if cp := c.capturing.Load(); cp != nil {
		return cp.record(c, func(d *Comm) *collRequest { return d.launchArgs(op, a) }), nil
	}
	if c.queueable(a.kind) {
		return c.request(c.enqueue(op, a)), nil
	}
	return c.request(c.launchArgs(op, a)), nil
}

// launchArgs starts the operation that a describes, of c, on a softRun of
// its own (give), and returns its collRequest.
func (c *Comm) launchArgs(op string, a collArgs) *collRequest {
	sr := c.softRunner()
	sr.args = a
	cr := newCollRequest()
	cr.soft, cr.op, cr.c = sr, op, c
	return c.give(cr)
}
