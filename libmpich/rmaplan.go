package main

// One-sided operations of any datatypes. The origin's items move as one
// run of bytes: the program's own when they are contiguous, else a packed
// copy (a put's and an accumulate's packed at the call; a get's unpacked
// into the program's buffer once the operation has completed: at the
// window's synchronisation that completes it, or when the request of
// MPI_Rget completes). The target's items are the runs of bytes its
// datatype covers in the target's window (mpi.Datatype.Runs), each moved
// by an operation of its own: the origin knows the target datatype, as
// MPI requires.

import "C"

import (
	"sync"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// rmaPlan is a one-sided operation's origin bytes and where they go.
type rmaPlan struct {
	data   []byte
	runs   []rmaRun
	unpack func() // a get's into an origin that is not contiguous; else nil
}

// rmaRun is a run of the target's items: its byte displacement in the
// window and its length.
type rmaRun struct{ at, n int }

// planRMA resolves the buffers of a one-sided operation: count items of
// datatype dt at p on the origin (into which the operation writes if
// get is set), and tcount items of ttype at displacement tdisp of
// target's window, which must hold as many bytes.
func planRMA(o *winObj, p unsafe.Pointer, count, dt int32, get bool, target int32, tdisp int64, tcount, ttype int32) (rmaPlan, error) {
	plan, err := originPlan(p, count, dt, get)
	if err != nil {
		return rmaPlan{}, err
	}
	plan.runs, err = targetRuns(o, target, tdisp, tcount, ttype, len(plan.data))
	return plan, err
}

// originPlan resolves the origin's buffer of a one-sided operation,
// count items of datatype dt at p (into which the operation writes if
// get is set): a plan of its bytes, packed where they are not
// contiguous, and no runs.
func originPlan(p unsafe.Pointer, count, dt int32, get bool) (rmaPlan, error) {
	cb, err := bufOf(p, count, dt)
	if err != nil {
		return rmaPlan{}, err
	}
	plan := rmaPlan{data: cb.bytes()}
	switch {
	case cb.dt != nil && get:
		data := make([]byte, cb.count*cb.dt.Size())
		plan.data = data
		plan.unpack = func() { _, _ = mpi.Unpack(data, cb.bytes(), cb.count, cb.dt) }
	case cb.dt != nil:
		if plan.data, err = cb.packed(); err != nil {
			return rmaPlan{}, err
		}
	}
	return plan, nil
}

// targetRuns returns where count items of datatype ttype at displacement
// tdisp of target's window lie, as runs of bytes from the window's start;
// they must hold total bytes, the origin's.
func targetRuns(o *winObj, target int32, tdisp int64, count, ttype int32, total int) ([]rmaRun, error) {
	size, ok := dataSize(ttype)
	switch {
	case count < 0:
		return nil, errorf(errCount, "negative target count %d", count)
	case !ok:
		return nil, errorf(errType, "invalid target datatype %#x", uint32(ttype))
	case int(count)*size != total:
		return nil, errorf(errArg, "origin of %d bytes, target of %d", total, int(count)*size)
	}
	base := o.disp(target, tdisp)
	if _, ok := contiguousSize(ttype); ok {
		return []rmaRun{{base, total}}, nil
	}
	dt, _, err := typeBase(ttype)
	if neg := negBoundsOf(ttype); err == nil && neg != nil && count > 1 {
		// Items of a negative extent: one item of them all.
		dt, err = itemsOf(dt, int(count), neg.extent)
		count = 1
	}
	if err != nil {
		return nil, err
	}
	var runs []rmaRun
	for off, n := range dt.Runs(int(count)) {
		runs = append(runs, rmaRun{base + off, n})
	}
	return runs, nil
}

// each calls f with each run's bytes of the origin and its displacement
// in the target's window, and stops at the first error.
func (p *rmaPlan) each(f func(b []byte, at int) error) error {
	pos := 0
	for _, r := range p.runs {
		if err := f(p.data[pos:pos+r.n], r.at); err != nil {
			return err
		}
		pos += r.n
	}
	return nil
}

// whole reports whether the plan is one run straight into or from the
// program's buffer: its request form is package mpi's own.
func (p *rmaPlan) whole() bool { return len(p.runs) == 1 && p.unpack == nil }

// joined returns a request of o's communicator that completes once every
// request of rs has, then running after (if not nil): a request-based
// get of several runs.
func joined(o *winObj, rs []*mpi.Request, after func()) (*mpi.Request, error) {
	r, complete, err := mpi.GeneralizedRequest(o.comm.c)
	if err != nil {
		return nil, err
	}
	go func() {
		_, err := mpi.Waitall(rs)
		if err == nil && after != nil {
			after()
		}
		complete(mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}, err)
	}()
	return r, nil
}

// pendingUnpacks are the gets into origins that are not contiguous that
// wait for their window's synchronisation, by window.
type pendingUnpacks struct {
	mu   sync.Mutex
	gets []pendingGet
}

// pendingGet is one such get: its target and its unpacking.
type pendingGet struct {
	target int32
	unpack func()
}

// add notes that unpack must run once the operations to target have
// completed.
func (p *pendingUnpacks) add(target int32, unpack func()) {
	p.mu.Lock()
	p.gets = append(p.gets, pendingGet{target, unpack})
	p.mu.Unlock()
}

// done runs the unpacking of the gets to target (all targets if target
// is negative), whose operations a synchronisation has completed.
func (p *pendingUnpacks) done(target int32) {
	p.mu.Lock()
	var run []func()
	keep := p.gets[:0]
	for _, g := range p.gets {
		if target < 0 || g.target == target {
			run = append(run, g.unpack)
		} else {
			keep = append(keep, g)
		}
	}
	p.gets = keep
	p.mu.Unlock()
	for _, f := range run {
		f()
	}
}
