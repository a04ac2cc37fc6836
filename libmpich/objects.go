package main

import (
	"sync"
	"sync/atomic"

	"github.com/rhinet-go/martini/mpi"
)

// commObj is what a communicator handle names: the communicator and the
// error handler the program set on it.
type commObj struct {
	c    *mpi.Comm
	errh atomic.Int32

	mu    sync.Mutex
	attrs map[int32]uintptr // the attributes the program cached, by keyval
	order []int32           // their keyvals in the order first set
}

// newCommObj returns c with the default error handler,
// MPI_ERRORS_ARE_FATAL.
func newCommObj(c *mpi.Comm) *commObj {
	o := &commObj{c: c}
	o.errh.Store(errorsAreFatal)
	return o
}

// reqObj is what a request handle names; the handle table holds it by
// value, so that a request's handle allocates nothing.
type reqObj struct {
	r *mpi.Request
	// persistent requests stay allocated when they complete.
	persistent bool
	// comm is the communicator whose error handler handles the request's
	// errors (nil: MPI_COMM_WORLD's), and commH its handle.
	comm  *commObj
	commH int32
	// onDone, when set, runs once when the request completes successfully
	// (a nonblocking reduction of pairs converts its result back).
	onDone func()
	// beforeStart, when set, runs before MPI_Start starts the inactive
	// persistent request (a persistent collective packs its staged
	// copies again).
	beforeStart func()
	// greq, for a generalized request, is the program's functions.
	greq *greqObj
}

// setFrom copies src into o field by field (see reqTable.load).
func (o *reqObj) setFrom(src *reqObj) {
	o.r, o.persistent, o.comm, o.commH = src.r, src.persistent, src.comm, src.commH
	o.onDone, o.beforeStart, o.greq = src.onDone, src.beforeStart, src.greq
}

// reset sets o to zero field by field: a zero reqObj stored whole is
// cleared by a call into the runtime (memclrHasPointers and its write
// barrier's check; see gathered.done for what that cost).
func (o *reqObj) reset() {
	o.r, o.persistent, o.comm, o.commH = nil, false, nil, 0
	o.onDone, o.beforeStart, o.greq = nil, nil, nil
}

// The handle tables and the predefined communicators. world and self are
// set by MPI_Init; before it, and after MPI_Finalize, the handles name no
// communicator.
var (
	world    atomic.Pointer[commObj]
	self     atomic.Pointer[commObj]
	comms    = newTable[*commObj](kindComm)
	groups   = newTable[mpi.Group](kindGroup)
	requests reqTable
	userOps  = newTable[*opObj](kindOp)
	errhs    = newTable[uintptr](kindErrhandler)
)

// lookupComm returns the communicator of handle h.
func lookupComm(h int32) (*commObj, bool) {
	switch h {
	case commWorld:
		o := world.Load()
		return o, o != nil
	case commSelf:
		o := self.Load()
		return o, o != nil
	}
	return comms.get(h)
}

// lookupGroup returns the group of handle h; MPI_GROUP_EMPTY is the group
// of no process.
func lookupGroup(h int32) (mpi.Group, bool) {
	if h == groupEmpty {
		w := mpi.World() // a session's too: not only MPI_COMM_WORLD's
		if w == nil {
			return mpi.Group{}, false
		}
		g, err := w.Group().Incl()
		return g, err == nil
	}
	return groups.get(h)
}

// addGroup returns a handle for g.
func addGroup(g mpi.Group) (int32, bool) {
	if g.Size() == 0 {
		return groupEmpty, true
	}
	return groups.add(g)
}

// mapRank converts a C rank argument (MPI_PROC_NULL, MPI_ANY_SOURCE,
// MPI_ROOT or a rank) to package mpi's.
func mapRank(r int32) int {
	if r >= 0 {
		return int(r)
	}
	switch r {
	case cProcNull:
		return mpi.ProcNull
	case cAnySource:
		return mpi.AnySource
	case cRoot:
		return mpi.Root
	}
	return int(r)
}

// unmapRank converts a rank of package mpi to its C value.
func unmapRank(r int) int32 {
	switch r {
	case mpi.ProcNull:
		return cProcNull
	case mpi.AnySource:
		return cAnySource
	}
	return int32(r)
}

// mapTag converts a C tag (MPI_ANY_TAG or a tag) to package mpi's.
func mapTag(t int32) int {
	if t == cAnyTag {
		return mpi.AnyTag
	}
	return int(t)
}
