package mpi

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
)

// LockType is the kind of a passive-target lock.
type LockType int

// Lock types (MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED).
const (
	LockExclusive LockType = iota + 1
	LockShared
)

func (l LockType) String() string {
	switch l {
	case LockExclusive:
		return "exclusive"
	case LockShared:
		return "shared"
	}
	return fmt.Sprintf("LockType(%d)", int(l))
}

// winSync is the synchronization state of a window at this process.
type winSync struct {
	fence bool // a fence epoch is open
	// locks holds the LockType held, by target (0: none), and lockAll
	// whether LockAll holds a shared lock on every target. Written under
	// Win.mu; atomic, because the checks of every operation and flush in
	// a passive-target epoch read them without it (heldPassive): a lock's
	// locked instructions wait for the operations' stores into the
	// target's memory.
	locks   []atomic.Int32
	lockAll atomic.Bool
	// access marks the targets of a PSCW access epoch (nil: none);
	// exposing tells an exposure epoch, to origins of them.
	access   []bool
	exposing bool
	origins  int
	// pending are the operations issued and not flushed yet, by target:
	// their errors are reported by the flush that completes them, which
	// then recycles them. snap is how many of each a flush takes.
	pending [][]*llc.RMAOp
	snap    []int
}

func (s *winSync) init(n int) {
	s.locks = make([]atomic.Int32, n)
	s.pending = make([][]*llc.RMAOp, n)
	s.snap = make([]int, n)
}

// busy describes why the window cannot be freed or fenced now, or is "".
func (s *winSync) busy() string {
	switch {
	case s.lockAll.Load():
		return "LockAll holds the window"
	case s.access != nil:
		return "a Start is not completed"
	case s.exposing:
		return "a Post is not waited for"
	}
	for t := range s.locks {
		switch s.lock(t) {
		case LockExclusive:
			return fmt.Sprintf("an exclusive lock on rank %d is held", t)
		case LockShared:
			return fmt.Sprintf("a shared lock on rank %d is held", t)
		}
	}
	return ""
}

// lock returns the lock this process holds on target (0: none).
func (s *winSync) lock(target int) LockType { return LockType(s.locks[target].Load()) }

// passive reports whether a passive-target epoch (Lock, LockAll) holds
// target.
func (s *winSync) passive(target int) bool { return s.lockAll.Load() || s.lock(target) != 0 }

// canAccess reports whether an epoch open at this process allows
// operations on target.
func (s *winSync) canAccess(target int) bool {
	return s.fence || s.passive(target) || (s.access != nil && s.access[target])
}

// start checks that an operation of op may access target: a rank of the
// window in an open epoch, or ProcNull (then skip is true).
func (w *Win) start(op string, target int) (skip bool, err error) {
	return w.startEpoch(op, target, false)
}

// startEpoch is start; passive asks for a passive-target epoch (Lock or
// LockAll), which the request-based operations need.
func (w *Win) startEpoch(op string, target int, passive bool) (skip bool, err error) {
	if w == nil {
		return false, w.check(op)
	}
	valid := target >= 0 && target < w.c.size
	if valid && w.heldPassive(target) {
		return false, w.c.checkLive(op)
	}
	var ok, locked bool
	w.mu.Lock()
	err = w.live(op)
	if err == nil && valid {
		ok = w.sync.canAccess(target)
		locked = w.sync.passive(target)
	}
	w.mu.Unlock()
	switch {
	case err != nil:
		return false, err
	case target == ProcNull:
		return true, nil
	case !valid:
		return false, fmt.Errorf("mpi: %s at rank %d: %w (window of %d processes)", op, target, ErrRank, w.c.size)
	case passive && !locked:
		return false, fmt.Errorf("mpi: %s at rank %d outside a passive-target epoch (no Lock or LockAll before it): %w", op, target, ErrRMASync)
	case !ok:
		return false, fmt.Errorf("mpi: %s at rank %d outside an access epoch (no Fence, Lock, LockAll or Start before it): %w", op, target, ErrRMASync)
	}
	return false, nil
}

// issue starts op, an operation on target, and keeps it until a flush
// (which recycles it), or in q (a request's operations, which its
// request completes) unless q is nil; it returns the error of an
// operation that failed at once, and then recycles it. Without q, an
// operation done at once (on a host's shared memory, all of them) is
// recycled at once: a flush has nothing of it to complete or report.
func (w *Win) issue(target int, op *llc.RMAOp, q *rmaRequest) error {
	if w.ep.RMA(op) && (q == nil || op.Err() != nil) {
		err := op.Err()
		w.recycle(op)
		return err
	}
	if q != nil {
		q.ops = append(q.ops, op)
		return nil
	}
	w.mu.Lock()
	w.sync.pending[target] = append(w.sync.pending[target], op)
	w.kept.Add(1)
	w.mu.Unlock()
	return nil
}

// do runs op on target and waits for it.
func (w *Win) do(op *llc.RMAOp) error {
	if !w.ep.RMA(op) {
		w.ep.Wait(op)
	}
	return op.Err()
}

// run is do for an operation of newOp, which it recycles: it returns
// the operation's result.
func (w *Win) run(op *llc.RMAOp) (uint64, error) {
	err := w.do(op)
	res := op.Result
	w.recycle(op)
	return res, err
}

// rmaOps are the one-sided operations of the process's windows to reuse
// (Win.newOp): the operations on the path of every Put, Get and
// Accumulate allocate nothing, and taking one and giving it back takes
// no lock (a window's lock, taken and released twice an operation, cost
// about as much as the rest of a Put on a host).
var rmaOps = sync.Pool{New: func() any { return new(llc.RMAOp) }}

// newOp returns a zero operation to fill, recycled if possible.
func (w *Win) newOp() *llc.RMAOp {
	return rmaOps.Get().(*llc.RMAOp)
}

// recycle gives back op, done and no longer referenced, to newOp.
func (w *Win) recycle(op *llc.RMAOp) {
	*op = llc.RMAOp{}
	rmaOps.Put(op)
}

// ctlOp returns an atomic operation on control word i of target.
func (w *Win) ctlOp(target int, kind llc.RMAKind, i int, compare, operand uint64) *llc.RMAOp {
	t := &w.targets[target]
	op := w.newOp() // zero: its fields set one by one (see newSendOp)
	op.Kind, op.Peer, op.Region, op.Off = kind, w.c.toWorld(target), t.ctl, uint64(8*i)
	op.Limit, op.Compare, op.Operand = uint64(ctlSize(w.c.size)), compare, operand
	return op
}

// localCtl returns control word i of this process.
func (w *Win) localCtl(i int) *uint64 {
	return (*uint64)(unsafe.Pointer(&w.ctl.Mem[8*i]))
}

// flush completes the operations to target (every target when
// negative) at their targets, returns their errors and recycles them.
// Flushes take turns: each recycles the operations it counted.
func (w *Win) flush(target int) error {
	peer := -1
	if target >= 0 {
		peer = w.targets[target].peer
	}
	if w.kept.Load() == 0 && w.dyn == nil {
		if w.allDirect || target >= 0 && w.directTo(target) != nil {
			return nil // every operation to them completed in its call
		}
		// Nothing kept to complete or report: the network's flush alone.
		return w.ep.RMAFlush(peer)
	}
	w.flushing.Lock()
	defer w.flushing.Unlock()
	lo, hi := 0, w.c.size
	if target >= 0 {
		lo, hi = target, target+1
	}
	w.recheck(lo, hi)
	snap := w.sync.snap
	w.mu.Lock()
	for t := lo; t < hi; t++ {
		snap[t] = len(w.sync.pending[t])
	}
	w.mu.Unlock()
	var errs []error
	if err := w.ep.RMAFlush(peer); err != nil {
		errs = append(errs, err)
	}
	w.mu.Lock()
	for t := lo; t < hi; t++ {
		list, k := w.sync.pending[t], snap[t]
		for _, op := range list[:k] {
			if op.Err() != nil {
				errs = append(errs, op.Err())
			}
			w.recycle(op)
		}
		w.kept.Add(int64(-k))
		n := copy(list, list[k:])
		clear(list[n:])
		w.sync.pending[t] = list[:n]
	}
	w.mu.Unlock()
	return errors.Join(errs...)
}

// Fence closes the fence epoch of every process of the window and opens
// the next (MPI_Win_fence): every operation of every process started
// before it is complete at its target. Collective over the window's
// processes.
func (w *Win) Fence() error {
	if err := w.check("Win.Fence"); err != nil {
		return err
	}
	w.mu.Lock()
	busy := w.sync.busy()
	w.mu.Unlock()
	if busy != "" {
		return fmt.Errorf("mpi: Win.Fence: %s: %w", busy, ErrRMASync)
	}
	err := w.flush(-1)
	if berr := w.c.manage("Win.Fence", func(u *collectives.Runner) error { return u.Barrier() }); berr != nil {
		err = errors.Join(err, berr)
	}
	w.mu.Lock()
	w.sync.fence = true
	w.mu.Unlock()
	if err != nil {
		return fmt.Errorf("mpi: Win.Fence: %w", err)
	}
	return nil
}

// Lock takes a lock of the given type on target's window and opens an
// access epoch to it (MPI_Win_lock): an exclusive lock excludes every
// other lock, shared ones only exclusive ones. It waits until granted,
// without the target's help: the lock is a word of the target's control
// memory changed by the network's atomics (the processor's, where the
// target's memory is mapped here).
func (w *Win) Lock(lock LockType, target int) error {
	if w == nil {
		return w.check("Win.Lock")
	}
	valid := target >= 0 && target < w.c.size
	w.mu.Lock() // once for the checks: each lock waits for the stores before it
	err := w.live("Win.Lock")
	held := err == nil && valid && w.sync.passive(target)
	w.mu.Unlock()
	switch {
	case err != nil:
		return err
	case !valid:
		return fmt.Errorf("mpi: Win.Lock of rank %d: %w (window of %d processes)", target, ErrRank, w.c.size)
	case lock != LockExclusive && lock != LockShared:
		return fmt.Errorf("mpi: Win.Lock of rank %d: lock type %v: %w", target, lock, ErrWin)
	case held:
		return fmt.Errorf("mpi: Win.Lock of rank %d: already locked by this process: %w", target, ErrRMASync)
	}
	if err := w.acquire(lock, target); err != nil {
		return fmt.Errorf("mpi: Win.Lock of rank %d: %w", target, err)
	}
	w.mu.Lock()
	w.sync.locks[target].Store(int32(lock))
	w.mu.Unlock()
	return nil
}

// acquire takes the lock word of target.
func (w *Win) acquire(lock LockType, target int) error {
	for tries := 0; ; tries++ {
		if lock == LockExclusive {
			old, err := w.ctlAtomic(target, llc.RMACompareSwap, ctlLock, 0, lockExclusive)
			if err != nil || old == 0 {
				return err
			}
		} else {
			old, err := w.ctlAtomic(target, llc.RMAFetchAdd, ctlLock, 0, 1)
			if err != nil || old&lockExclusive == 0 {
				return err
			}
			// An exclusive holder: withdraw and try again.
			if _, err := w.ctlAtomic(target, llc.RMAFetchAdd, ctlLock, 0, ^uint64(0)); err != nil {
				return err
			}
		}
		w.backoff(tries)
	}
}

// backoff lets others progress between attempts at a held word: this
// process serves requests (a transport whose target serves them), yields
// the processor, then sleeps a little longer each time, so that the
// holder runs even when processes outnumber the cores.
func (w *Win) backoff(tries int) {
	w.ep.Progress()
	if tries < 8 {
		runtime.Gosched()
		return
	}
	time.Sleep(time.Duration(min(tries, 200)) * time.Microsecond)
}

// Unlock completes every operation to target and releases the lock Lock
// took (MPI_Win_unlock).
func (w *Win) Unlock(target int) error {
	if w == nil {
		return w.check("Win.Unlock")
	}
	valid := target >= 0 && target < w.c.size
	var lock LockType
	w.mu.Lock()
	err := w.live("Win.Unlock")
	if err == nil && valid {
		lock = w.sync.lock(target)
		w.sync.locks[target].Store(0)
	}
	w.mu.Unlock()
	switch {
	case err != nil:
		return err
	case !valid:
		return fmt.Errorf("mpi: Win.Unlock of rank %d: %w (window of %d processes)", target, ErrRank, w.c.size)
	case lock == 0:
		return fmt.Errorf("mpi: Win.Unlock of rank %d: not locked by this process: %w", target, ErrRMASync)
	}
	err = w.flush(target)
	if rerr := w.releaseLock(lock, target); rerr != nil {
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return fmt.Errorf("mpi: Win.Unlock of rank %d: %w", target, err)
	}
	return nil
}

// releaseLock gives back the lock word of target.
func (w *Win) releaseLock(lock LockType, target int) error {
	var back uint64 = lockExclusive
	if lock == LockShared {
		back = 1
	}
	_, err := w.ctlAtomic(target, llc.RMAFetchAdd, ctlLock, 0, -back)
	return err
}

// LockAll takes a shared lock on every process of the window
// (MPI_Win_lock_all).
func (w *Win) LockAll() error {
	if err := w.check("Win.LockAll"); err != nil {
		return err
	}
	w.mu.Lock()
	busy := w.sync.busy()
	w.mu.Unlock()
	if busy != "" {
		return fmt.Errorf("mpi: Win.LockAll: %s: %w", busy, ErrRMASync)
	}
	for t := range w.c.size {
		if err := w.acquire(LockShared, t); err != nil {
			for u := range t {
				w.releaseLock(LockShared, u)
			}
			return fmt.Errorf("mpi: Win.LockAll: rank %d: %w", t, err)
		}
	}
	w.mu.Lock()
	w.sync.lockAll.Store(true)
	w.mu.Unlock()
	return nil
}

// UnlockAll completes every operation and releases the locks of LockAll
// (MPI_Win_unlock_all).
func (w *Win) UnlockAll() error {
	if err := w.check("Win.UnlockAll"); err != nil {
		return err
	}
	w.mu.Lock()
	held := w.sync.lockAll.Swap(false)
	w.mu.Unlock()
	if !held {
		return fmt.Errorf("mpi: Win.UnlockAll: no LockAll: %w", ErrRMASync)
	}
	err := w.flush(-1)
	for t := range w.c.size {
		if rerr := w.releaseLock(LockShared, t); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	if err != nil {
		return fmt.Errorf("mpi: Win.UnlockAll: %w", err)
	}
	return nil
}

// Flush completes every operation of this process to target at the
// target, within a passive-target epoch (MPI_Win_flush).
func (w *Win) Flush(target int) error { return w.flushCall("Win.Flush", target) }

// FlushAll is Flush to every target (MPI_Win_flush_all).
func (w *Win) FlushAll() error { return w.flushCall("Win.FlushAll", -1) }

// FlushLocal completes the operations to target at this process, so that
// their origin buffers may be reused (MPI_Win_flush_local). It completes
// them at the target too, which is no slower on these networks.
func (w *Win) FlushLocal(target int) error { return w.flushCall("Win.FlushLocal", target) }

// FlushLocalAll is FlushLocal to every target (MPI_Win_flush_local_all).
func (w *Win) FlushLocalAll() error { return w.flushCall("Win.FlushLocalAll", -1) }

func (w *Win) flushCall(op string, target int) error {
	if w == nil {
		return w.check(op)
	}
	valid := target < w.c.size && target >= -1
	if target >= 0 && valid && w.heldPassive(target) {
		if err := w.c.checkLive(op); err != nil {
			return err
		}
		return w.flushOf(op, target)
	}
	var ok bool
	w.mu.Lock()
	err := w.live(op)
	if err == nil && valid {
		ok = w.sync.lockAll.Load() || (target >= 0 && w.sync.lock(target) != 0)
		if target < 0 {
			ok = ok || w.sync.busy() != ""
		}
	}
	w.mu.Unlock()
	switch {
	case err != nil:
		return err
	case !valid:
		return fmt.Errorf("mpi: %s of rank %d: %w (window of %d processes)", op, target, ErrRank, w.c.size)
	case !ok:
		return fmt.Errorf("mpi: %s: not in a passive-target epoch (Lock or LockAll): %w", op, ErrRMASync)
	}
	return w.flushOf(op, target)
}

// flushOf is flushCall's flush, its error named by op.
func (w *Win) flushOf(op string, target int) error {
	if err := w.flush(target); err != nil {
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	return nil
}

// heldPassive reports, without mu, whether a passive-target epoch holds
// target, a rank of the window, and the window is not freed: the checks'
// answer for every operation and flush in such an epoch.
func (w *Win) heldPassive(target int) bool {
	return !w.freed.Load() && w.sync.passive(target)
}

// atomicAdd adds d to a word of this process's control memory, which
// peers change with the network's atomics too.
func atomicAdd(p *uint64, d uint64) { atomic.AddUint64(p, d) }
