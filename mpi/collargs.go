package mpi

import (
	"fmt"

	"github.com/rhinet-go/martini/collectives"
)

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
	typed      collKind // argsTyped's: the collective it is a form of
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

// rooted reports whether a is a broadcast, a scatter, a reduction or a
// gather to a root, or a typed form of one: the collectives whose root
// sends and returns, or whose other processes do, where they run ahead
// of their argument check (Comm.queueable).
func (a *collArgs) rooted() bool {
	k := a.kind
	if k == argsTyped {
		k = a.typed
	}
	return k == argsBcast || k == argsScatter || k == argsReduce || k == argsGather
}

// empty reports whether the collective that a describes moves no data
// on c, its own arguments valid, where it would run on c's own Runner,
// which then returns at once (c.runner's Empty); a softRun's compares
// arguments by messages and runs every call.
func (a *collArgs) empty(c *Comm) bool {
	if int(a.kind) >= len(argsCollective) || a.err != nil || len(a.send) != 0 && len(a.recv) != 0 {
		return false // (an empty call has an empty buffer)
	}
	coll := argsCollective[a.kind]
	return coll != 0 && c.queueable(a) && c.runner.Empty(coll, a.send, a.recv, a.root, a.reducer)
}

// argsCollective names the collective of each kind of collArgs that
// the Runner's Empty answers for (0, no collective, for the others).
var argsCollective = [...]collectives.Collective{
	argsBcast: collectives.CollBcast, argsReduce: collectives.CollReduce,
	argsAllreduce: collectives.CollAllreduce, argsGather: collectives.CollGather,
	argsScatter: collectives.CollScatter, argsAllgather: collectives.CollAllgather,
	argsAlltoall: collectives.CollAlltoall,
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
// which every process shares. One that moves no data (empty), with none
// queued before it, takes its tag and completes at once.
func (c *Comm) startArgs(op string, a collArgs) (*Request, error) {
	if err := c.checkIntra(op); err != nil {
		return nil, err
	}
	if cp := c.capturing.Load(); cp != nil {
		captured := a // a copy: a's address, taken below, would move a to the heap
		return cp.record(c, func(d *Comm) *collRequest { return d.launchArgs(op, captured) }), nil
	}
	if a.empty(c) && c.queue.n.Load() == 0 && c.collMu.TryLock() {
		// Nothing to move, and nothing queued before it: c's Runner
		// returns from it at once (its Empty), keeping it for the next
		// call's check, and the Request completes from the start.
		c.net.tag = c.nextTag()
		err := a.run(&c.runner)
		c.collMu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("mpi: %s: %w", op, err)
		}
		r := newRequest()
		r.c, r.null = c, true
		return r, nil
	}
	if c.queueable(&a) {
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
