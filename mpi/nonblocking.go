package mpi

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/internal/memorder"
)

// collRequest is the state of a nonblocking collective operation. It runs
// on a goroutine of backgroundWorkers, which drives the endpoint while it
// waits, so the operation progresses while the caller computes; or, if
// the caller waits for it before a worker has begun it, on the caller's.
type collRequest struct {
	done atomic.Bool
	// finished, made by the first wait that blocks (awaitDone), is
	// closed when done; mu orders the two. A wait that runs the
	// operation itself makes none.
	mu       sync.Mutex
	finished chan struct{}
	err      error // valid once done
	// status, if set, is the operation's status, valid once done
	// (Isendrecv's, its receive's).
	status *Status

	// A body given to backgroundWorkers (give), run once by whoever claims
	// it first: the operation op of c, body or, on a softRun of its own,
	// the softRun's args. soft stays set once its softRun is given back
	// (claim reads it): only the claimer's run uses it.
	body    func() error
	soft    *softRun
	op      string
	c       *Comm
	claimed atomic.Bool
	inline  bool // a wait claimed it (set by the claimer, before run)

	// queued: the operation, args, runs on c.runner in the order of c's
	// queue (collqueue.go), with its tag taken at its start; next is the
	// next one in the queue.
	queued bool
	args   collArgs
	tag    int32
	next   *collRequest
	// retired is set (1) once markDone is over, the last use of a
	// collRequest by whoever ran it, and inPool while backgroundWorkers
	// holds it (give to left): once the one is set and the other clear,
	// it may go back with its Request (Release) for the next nonblocking
	// collective (newCollRequest). One released before then goes to the
	// garbage collector. Release stores (internal/memorder) set them,
	// read atomically: no locked instruction.
	retired, inPool uint32
}

// wait waits until cr's operation is done. One whose worker has not begun
// it yet runs on the caller's goroutine: a caller that waits at once
// would otherwise pay the hand-off to a worker and back, two switches of
// goroutines or wake-ups of threads.
func (cr *collRequest) wait() {
	if cr.queued {
		cr.c.runQueued(cr)
		return
	}
	if cr.claim() {
		backgroundWorkers.withdraw(cr) // the pool lets go of it: Release may keep it
		// Not in the background any more: the caller's waits spin and
		// yield as a blocking call's do (llc.Endpoint.SpinBusy).
		cr.inline = true
		cr.c.rt.ep.EndBackground()
		cr.run()
		return
	}
	cr.awaitDone()
}

// awaitDone blocks until cr's operation is done.
func (cr *collRequest) awaitDone() {
	if cr.done.Load() {
		return
	}
	cr.mu.Lock()
	if cr.done.Load() {
		cr.mu.Unlock()
		return
	}
	if cr.finished == nil {
		cr.finished = make(chan struct{})
	}
	ch := cr.finished
	cr.mu.Unlock()
	<-ch
}

// markDone records that cr's operation is done, its err and status set,
// and wakes the waits for it: those in awaitDone and, through c's
// network, a Waitany asleep on the doorbell.
func (cr *collRequest) markDone(c *Comm) {
	cr.mu.Lock()
	cr.done.Store(true)
	if cr.finished != nil {
		close(cr.finished)
	}
	cr.mu.Unlock()
	memorder.StoreRelease32(&cr.retired, 1)
	c.rt.net.Wake()
}

// left records that backgroundWorkers holds cr no more (poolJob).
func (cr *collRequest) left() { memorder.StoreRelease32(&cr.inPool, 0) }

// claim reports whether the caller is the one to run cr's body (poolJob).
func (cr *collRequest) claim() bool {
	return (cr.body != nil || cr.soft != nil) && !cr.claimed.Load() && cr.claimed.CompareAndSwap(false, true)
}

// run runs cr's body and completes cr (poolJob).
func (cr *collRequest) run() {
	c := cr.c
	var err error
	if sr := cr.soft; sr != nil {
		err = sr.args.run(&sr.u)
		sr.release()
	} else {
		err = cr.body()
	}
	if err != nil {
		cr.err = fmt.Errorf("mpi: %s: %w", cr.op, err)
	}
	if !cr.inline {
		c.rt.ep.EndBackground()
	}
	cr.markDone(c)
}

// start starts the collective f of c in the background and returns its
// Request (startArgs, with f as the operation's body).
func (c *Comm) start(op string, f collBody) (*Request, error) {
	return c.startArgs(op, collArgs{kind: argsBody, body: f})
}

// startTyped starts f, the body of a typed form of the collective that
// collArgs describes as of (IbcastType's argsBcast ...), as startArgs
// starts that collective (argsTyped).
func (c *Comm) startTyped(op string, of collKind, f collBody) (*Request, error) {
	return c.startArgs(op, collArgs{kind: argsTyped, typed: of, body: f})
}

// softRun is a Runner of its own for one collective operation, with the
// software algorithms only, and the commNet it sends through.
type softRun struct {
	u    collectives.Runner
	net  commNet
	args collArgs // the operation (Comm.startArgs)
	// serial is the communicator u is set up for (Comm.serial), 0 for
	// none: a Runner serves one communicator's calls one after another
	// as they are, as Comm.runner does.
	serial uint64
}

// softRunner returns a softRun for one collective operation of c, with
// the operation's tag taken now: one that a finished operation gave back
// (softRunners), as it is if it served c, else set anew but for its
// scratch memory and its exchanges' slices; or a new one. release gives
// it back.
func (c *Comm) softRunner() *softRun {
	sr, ok := softRunners.Get().(*softRun)
	if !ok {
		sr = new(softRun)
	}
	sr.net.c, sr.net.tag = c, c.nextTag()
	if sr.serial != c.serial {
		u := &sr.u
		scratch := u.Scratch()
		*u = collectives.Runner{Net: &sr.net, Check: c.runner.Check,
			Force: c.rt.softForce, Stats: c.runner.Stats, LinearExchanges: c.runner.LinearExchanges,
			Processors: c.runner.Processors, Tuning: c.runner.Tuning}
		u.SetScratch(scratch)
		sr.serial = c.serial
	}
	return sr
}

// softRunners keeps the softRuns of finished nonblocking collectives, with
// their scratch memory, for the next ones: without it, every operation
// would allocate a Runner (1.3 KiB) and a commNet and clear the Runner's
// scratch memory, some 4 KiB and room for the longest record an exchange
// may bring.
var softRunners sync.Pool // of *softRun

// release gives sr, whose operation has returned and which nothing uses
// any more, back to softRunners, keeping neither the communicator nor a
// wait's functions.
func (sr *softRun) release() {
	sr.net.c, sr.net.stop, sr.net.sw = nil, nil, stopWait{}
	sr.args = collArgs{}
	softRunners.Put(sr)
}

// launch runs f, the body of the nonblocking operation op of c, on a
// goroutine of backgroundWorkers, or on the goroutine of a wait that comes
// before a worker has begun it (collRequest.wait), and returns its
// Request.
func (c *Comm) launch(op string, f func() error) *Request {
	cr := newCollRequest()
	cr.body, cr.op, cr.c = f, op, c
	return c.request(c.give(cr))
}

// request returns the Request of cr, an operation of c, from the
// processor's cache (newRequest).
func (c *Comm) request(cr *collRequest) *Request {
	r := newRequest()
	r.c, r.coll = c, cr
	return r
}

// give hands cr, its body set, to backgroundWorkers and returns it.
func (c *Comm) give(cr *collRequest) *collRequest {
	c.requestStarted()
	c.rt.ep.StartBackground()
	cr.inPool = 1
	backgroundWorkers.Go(cr)
	return cr
}

// Ibarrier starts a barrier of c (MPI_Ibarrier): its Request completes
// once every process of c has called Ibarrier.
func Ibarrier(c *Comm) (*Request, error) {
	if c.IsInter() {
		return c.interIbarrier()
	}
	return c.startArgs("Ibarrier", collArgs{kind: argsBarrier})
}

// Ibarrier is [Ibarrier](c).
//
// Deprecated: call the function [Ibarrier], the form every collective
// takes (the generic ones cannot be methods).
func (c *Comm) Ibarrier() (*Request, error) { return Ibarrier(c) }

// Ibcast starts broadcasting buf of rank root to every process of c
// (MPI_Ibcast). buf must not be touched until the Request completes; the
// same holds for the buffers, counts and displacements of every
// nonblocking collective below.
func Ibcast[T Type](c *Comm, buf []T, root int) (*Request, error) {
	if c.IsInter() {
		return interBcast(c, "Ibcast", false, buf, root)
	}
	return c.startArgs("Ibcast", collArgs{kind: argsBcast, recv: asBytes(buf), root: root, elem: sizeOf[T]()})
}

// Ireduce starts Reduce (MPI_Ireduce).
func Ireduce[T Type](c *Comm, send, recv []T, op Op, root int) (*Request, error) {
	if c.IsInter() {
		return interReduce(c, "Ireduce", false, send, recv, op, root)
	}
	return c.startArgs("Ireduce", reductionArgs(argsReduce, send, recv, op, root))
}

// Iallreduce starts Allreduce (MPI_Iallreduce).
func Iallreduce[T Type](c *Comm, send, recv []T, op Op) (*Request, error) {
	if c.IsInter() {
		return interIallreduce(c, send, recv, op)
	}
	return c.startArgs("Iallreduce", reductionArgs(argsAllreduce, send, recv, op, -1))
}

// Igather starts Gather (MPI_Igather).
func Igather[T Type](c *Comm, send, recv []T, root int) (*Request, error) {
	if c.IsInter() {
		return interGatherv(c, "Igather", false, send, recv, nil, nil, root)
	}
	return c.startArgs("Igather", collArgs{kind: argsGather, send: inPlace(send), recv: asBytes(recv), root: root, elem: sizeOf[T]()})
}

// Igatherv starts Gatherv (MPI_Igatherv).
func Igatherv[T Type](c *Comm, send, recv []T, counts, displs []int, root int) (*Request, error) {
	if c.IsInter() {
		return interGatherv(c, "Igatherv", false, send, recv, counts, displs, root)
	}
	return c.start("Igatherv", gathervBody(send, recv, counts, displs, root))
}

// Iscatter starts Scatter (MPI_Iscatter).
func Iscatter[T Type](c *Comm, send, recv []T, root int) (*Request, error) {
	if c.IsInter() {
		return interScatterv(c, "Iscatter", false, send, nil, nil, recv, root)
	}
	return c.startArgs("Iscatter", collArgs{kind: argsScatter, send: asBytes(send), recv: inPlace(recv), root: root, elem: sizeOf[T]()})
}

// Iscatterv starts Scatterv (MPI_Iscatterv).
func Iscatterv[T Type](c *Comm, send []T, counts, displs []int, recv []T, root int) (*Request, error) {
	if c.IsInter() {
		return interScatterv(c, "Iscatterv", false, send, counts, displs, recv, root)
	}
	return c.start("Iscatterv", scattervBody(send, counts, displs, recv, root))
}

// Iallgather starts Allgather (MPI_Iallgather).
func Iallgather[T Type](c *Comm, send, recv []T) (*Request, error) {
	if c.IsInter() {
		return interIallgather(c, send, recv)
	}
	return c.startArgs("Iallgather", collArgs{kind: argsAllgather, send: inPlace(send), recv: asBytes(recv), elem: sizeOf[T]()})
}

// Iallgatherv starts Allgatherv (MPI_Iallgatherv).
func Iallgatherv[T Type](c *Comm, send, recv []T, counts, displs []int) (*Request, error) {
	if c.IsInter() {
		return interAllgatherv(c, "Iallgatherv", false, send, recv, counts, displs)
	}
	return c.start("Iallgatherv", allgathervBody(send, recv, counts, displs))
}

// Ialltoall starts Alltoall (MPI_Ialltoall).
func Ialltoall[T Type](c *Comm, send, recv []T) (*Request, error) {
	if c.IsInter() {
		return interAlltoallv(c, "Ialltoall", false, send, nil, nil, recv, nil, nil)
	}
	return c.startArgs("Ialltoall", collArgs{kind: argsAlltoall, send: inPlace(send), recv: asBytes(recv), elem: sizeOf[T]()})
}

// Ialltoallv starts Alltoallv (MPI_Ialltoallv).
func Ialltoallv[T Type](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) (*Request, error) {
	if c.IsInter() {
		return interAlltoallv(c, "Ialltoallv", false, send, scounts, sdispls, recv, rcounts, rdispls)
	}
	return c.start("Ialltoallv", alltoallvBody(send, scounts, sdispls, recv, rcounts, rdispls))
}

// IreduceScatterBlock starts ReduceScatterBlock (MPI_Ireduce_scatter_block).
func IreduceScatterBlock[T Type](c *Comm, send, recv []T, op Op) (*Request, error) {
	if c.IsInter() {
		return interReduceScatter(c, "IreduceScatterBlock", false, send, recv, blockCounts(c.Size(), len(recv)), op)
	}
	return c.start("IreduceScatterBlock", reduceScatterBlockBody(send, recv, op))
}

// IreduceScatter starts ReduceScatter (MPI_Ireduce_scatter).
func IreduceScatter[T Type](c *Comm, send, recv []T, counts []int, op Op) (*Request, error) {
	if c.IsInter() {
		return interReduceScatter(c, "IreduceScatter", false, send, recv, counts, op)
	}
	return c.start("IreduceScatter", reduceScatterBody(send, recv, counts, op))
}

// Iscan starts Scan (MPI_Iscan).
func Iscan[T Type](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.start("Iscan", scanBody(send, recv, op, false))
}

// Iexscan starts Exscan (MPI_Iexscan).
func Iexscan[T Type](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.start("Iexscan", scanBody(send, recv, op, true))
}
