package mpi

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/network"
)

// One-sided communication (MPI-3.1 chapter 11) on the network's remote
// memory access: a Win exposes memory of every process of a communicator;
// Put is a remote write (PUSH on Martini), Get a remote read (PULL), and
// the accumulates of 8-byte elements in memory the network allocated
// (WinAllocate) are its compare-and-swap and fetch-and-add. Other
// accumulates take the target's accumulate lock, a word taken by
// compare-and-swap, read, combine and write back, so that they stay atomic
// per element with respect to each other (the lock is a ticket lock,
// so that origins take turns). Passive-target locks are words
// of the target's control memory changed by the same atomics: the target
// takes no part in them (on TCP its progress serves them, as every remote
// access). Where the network maps a target's memory into this process,
// the operations on it are loads, stores and the processor's atomics
// instead (win_direct.go).

// Errors of one-sided communication, matched with errors.Is.
var (
	// ErrWin: a window used after Free, or with an element type other
	// than the one it was made of where that matters (accumulates).
	ErrWin = errors.New("invalid window")
	// ErrRMASync: an operation outside an epoch that allows it (a Put
	// with no Fence, Lock or Start before it, an Unlock without Lock,
	// Free while locked, ...).
	ErrRMASync = errors.New("RMA synchronization error")
	// ErrRMARange: an access outside the target's window (of a dynamic
	// window: at an address no memory attached at the target covers).
	ErrRMARange = llc.ErrRMARange
	// ErrRMAAttach: memory that cannot be attached to a dynamic window
	// (the window is not dynamic, memory is attached at that address
	// already, or the network cannot register it).
	ErrRMAAttach = errors.New("memory cannot be attached to the window")
)

// Control words of a window, in memory the network allocates on every
// process (so that the network's atomics apply to them):
//
//	ctlLock      passive-target lock: lockExclusive, or the number of
//	             shared holders
//	ctlAcc       accumulate lock, a ticket lock (first come, first
//	             served): the next ticket to draw in the high 32 bits,
//	             the ticket that holds the lock in the low 32
//	ctlComplete  PSCW: Complete calls of the origins of this exposure
//	ctlPost+r    PSCW: Post calls of target rank r not yet started
//
// and, after them, the words by which a dynamic window publishes its
// attachments (win_dynamic.go): ctlDynGen(n), ctlDynCount(n) and
// ctlDynTable(n, r).
const (
	ctlLock = iota
	ctlAcc
	ctlComplete
	ctlPost
)

// lockExclusive is the lock word of an exclusive holder.
const lockExclusive = 1 << 62

// Win is a window: memory of each process of a communicator that the
// others access with one-sided operations (MPI_Win). Its methods are safe
// for concurrent use; synchronization calls follow MPI's rules.
type Win struct {
	c    *Comm // a duplicate of the creating communicator
	ep   *llc.Endpoint
	elem int          // displacement unit: the size of the element type
	kind reflect.Kind // the element type
	// native: 8-byte elements in network-allocated memory, accumulated
	// with the network's atomics.
	native bool

	mem     []byte          // the local window
	alloc   *llc.ExposeOp   // the local window's allocation (WinAllocate)
	regs    []*llc.ExposeOp // its registration for each peer (WinCreate)
	ctl     *llc.ExposeOp   // control words
	targets []winTarget     // by rank

	// allocErr is why WinAllocate could not allocate the local window.
	allocErr error
	// shared is every rank's window as this process's memory, by rank
	// (WinAllocateShared; nil otherwise).
	shared [][]byte
	// direct is every rank's part and control words as this process's
	// memory, by rank, where operations on it are loads and stores (nil:
	// through the network; win_direct.go), and allDirect whether every
	// rank's is.
	direct    []*winDirect
	allDirect bool

	// id numbers the window among those of this process, made by the
	// call madeBy (Win.String).
	id     int
	madeBy string

	mu   sync.Mutex
	sync winSync
	// freed: Free has run. Written under mu; atomic, as winSync's locks
	// are.
	freed atomic.Bool
	// flushing serialises the flushes (winSync.snap).
	flushing sync.Mutex
	// combining orders this process's accumulates to targets that apply
	// them (win_combine.go): those hold it shared while they issue their
	// combinations, one that takes a target's accumulate lock through
	// the network holds it alone until it releases the lock.
	combining sync.RWMutex
	// kept counts the operations in winSync.pending, so that a flush
	// with none to complete takes no lock of the window's.
	kept atomic.Int64
	// dyn is the attachments of a dynamic window (WinCreateDynamic;
	// nil otherwise).
	dyn *winDynamic
}

// winTarget is what a process published of its window.
type winTarget struct {
	region llc.RegionID // its window, registered for this process
	size   uint64       // bytes
	ctl    llc.RegionID // its control words
	// peer is the process (of the world) whose memory region is, and
	// base the offset of the target's part in it: the target and 0,
	// except in a contiguous shared-memory window, whose parts are all
	// of the memory of its rank 0.
	peer int
	base uint64
	// combine: the network that reaches the target serves combinations
	// (win_combine.go), and the target is another process.
	combine bool
}

// ctlSize is the size of the control words of a window of n processes.
func ctlSize(n int) int { return 8 * ctlDynTable(n, n) }

// WinCreate makes a window of buf on every process of c (MPI_Win_create;
// the displacement unit is the size of T). Collective over c. Puts and
// gets go straight to buf; accumulates take the target's accumulate lock.
func WinCreate[T Type](c *Comm, buf []T) (*Win, error) {
	w, err := newWin[T](c, "WinCreate")
	if err != nil {
		return nil, err
	}
	w.mem = asBytes(buf)
	if err := w.open("WinCreate"); err != nil {
		return nil, err
	}
	return w, nil
}

// WinAllocate makes a window of n zeroed elements on every process of c,
// in memory the network allocates, and returns it with the local part
// (MPI_Win_allocate). Collective over c. Accumulates of 8-byte elements
// are the network's atomic operations.
func WinAllocate[T Type](c *Comm, n int) (*Win, []T, error) {
	return winAllocate[T](c, n, "WinAllocate")
}

// winAllocate is WinAllocate, called by op.
func winAllocate[T Type](c *Comm, n int, op string) (*Win, []T, error) {
	if n < 0 {
		return nil, nil, fmt.Errorf("mpi: %s of %d elements: %w", op, n, ErrCount)
	}
	w, err := newWin[T](c, op)
	if err != nil {
		return nil, nil, err
	}
	if n > 0 {
		// A failure here is reported by open, through the exchange, so
		// that every process fails alike.
		w.alloc = &llc.ExposeOp{Peer: c.toWorld(c.rank), Size: n * w.elem}
		if w.allocErr = w.ep.Expose(w.alloc, false); w.allocErr != nil {
			w.alloc = nil
		} else {
			w.mem = w.alloc.Mem
		}
	}
	w.native = w.elem == 8
	if err := w.open(op); err != nil {
		return nil, nil, err
	}
	w.mapDirect()
	var local []T
	if n > 0 {
		local = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(w.mem))), n)
	}
	return w, local, nil
}

// newWin checks c and returns a window of T over a duplicate of it.
func newWin[T Type](c *Comm, op string) (*Win, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	d, err := c.Dup()
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return &Win{c: d, ep: c.rt.ep, elem: sizeOf[T](), kind: reflect.TypeFor[T]().Kind()}, nil
}

// open registers the window's memory and control words and exchanges
// them: each process publishes, for every peer, the regions of its window
// and control words that peer uses (in a job across hosts, each on the
// network that reaches the peer), and its window's size. On failure the
// window is released.
func (w *Win) open(op string) error {
	n := w.c.size
	rec := 2*n + 1 // window regions, size, control regions
	mine := make([]uint64, rec)
	err := w.expose(mine)
	all := make([]uint64, n*rec)
	if gerr := manageAllgather(w.c, mine, all); err == nil && gerr != nil {
		err = gerr
	}
	if err == nil {
		w.targets = make([]winTarget, n)
		for t := range w.targets {
			r := all[t*rec:]
			ctl := r[n+1+w.c.rank]
			world := w.c.toWorld(t)
			w.targets[t] = winTarget{region: llc.RegionID(r[w.c.rank]), size: r[n], ctl: llc.RegionID(ctl), peer: world,
				combine: t != w.c.rank && w.ep.PeerCaps(world).Combine}
			if ctl == 0 {
				err = fmt.Errorf("rank %d could not make its part of the window", t)
			}
		}
	}
	if err != nil {
		w.release()
		w.c.Free()
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	w.sync.init(n)
	w.register(op)
	return nil
}

// expose registers the local window for every peer and allocates the
// control words, and fills mine: the window's region for each peer, the
// window's size, the control words' region for each peer (0 if this
// process failed).
func (w *Win) expose(mine []uint64) error {
	n := w.c.size
	if w.allocErr != nil {
		return fmt.Errorf("allocating the window: %w", w.allocErr)
	}
	w.ctl = &llc.ExposeOp{Peer: w.c.toWorld(w.c.rank), Size: ctlSize(n)}
	if err := w.ep.Expose(w.ctl, false); err != nil {
		w.ctl = nil
		return fmt.Errorf("allocating the control words: %w", err)
	}
	ctl, err := w.reach(w.ctl)
	if err != nil {
		return fmt.Errorf("registering the control words: %w", err)
	}
	mine[n] = uint64(len(w.mem))
	for p := range n {
		mine[n+1+p] = uint64(ctl[p])
	}
	var win []llc.RegionID
	switch {
	case w.alloc != nil:
		win, err = w.reach(w.alloc)
	case len(w.mem) > 0:
		win, err = w.reach(&llc.ExposeOp{Data: w.mem})
	}
	if err != nil {
		return fmt.Errorf("registering %d bytes: %w", len(w.mem), err)
	}
	for p, r := range win {
		mine[p] = uint64(r)
	}
	return nil
}

// reach returns, for every rank of the window, the region by which it
// reaches the memory of m: m.Region where that rank's network serves it,
// else a registration of m's memory on that rank's network, made once
// for all the ranks it serves, which release withdraws. m is an
// allocation of the network (its Region set), or memory to register
// (Data). A window thus takes two registrations of each network it uses
// (its memory, its control words), not one for each rank: a process's
// table of registrations (2047 entries on martini) holds about a
// thousand windows at once, whatever their size.
func (w *Win) reach(m *llc.ExposeOp) ([]llc.RegionID, error) {
	regions, regs, err := w.reachFor(m, true)
	w.regs = append(w.regs, regs...)
	return regions, err
}

// reachFor is reach, returning the registrations it made rather than
// keeping them: with share, a registration serves every rank of the
// network it was made on (as an allocation of the network does), so that
// memory is registered once for each network, not once for each rank.
func (w *Win) reachFor(m *llc.ExposeOp, share bool) ([]llc.RegionID, []*llc.ExposeOp, error) {
	mux, _ := w.c.rt.net.(*network.Mux)
	serves := func(r llc.RegionID, world int) bool { return mux == nil || mux.Serves(r, world) }
	mem := m.Data
	if m.Region != 0 {
		mem = m.Mem
	}
	regions := make([]llc.RegionID, w.c.size)
	var regs []*llc.ExposeOp
	for p := range regions {
		world := w.c.toWorld(p)
		if m.Region != 0 && serves(m.Region, world) {
			regions[p] = m.Region
			continue
		}
		if i := slices.IndexFunc(regs, func(r *llc.ExposeOp) bool { return share && serves(r.Region, world) }); i >= 0 {
			regions[p] = regs[i].Region
			continue
		}
		r := &llc.ExposeOp{Peer: world, Data: mem}
		if err := w.ep.Expose(r, false); err != nil {
			return nil, regs, fmt.Errorf("for rank %d: %w", p, err)
		}
		regs = append(regs, r)
		regions[p] = r.Region
	}
	return regions, regs, nil
}

// release withdraws every registration of the window.
func (w *Win) release() error {
	var errs []error
	for _, r := range w.regs {
		errs = append(errs, w.ep.Expose(r, true))
	}
	w.regs = nil
	for _, r := range []*llc.ExposeOp{w.alloc, w.ctl} {
		if r != nil {
			errs = append(errs, w.ep.Expose(r, true))
		}
	}
	w.alloc, w.ctl = nil, nil
	if w.dyn != nil {
		errs = append(errs, w.dyn.release(w.ep))
	}
	return errors.Join(errs...)
}

// Free releases the window (MPI_Win_free). Collective over the window's
// processes; every operation of this process completes first. Free fails
// with ErrRMASync, leaving the window as it is, while this process holds
// a lock or is in a post-start-complete-wait epoch.
func (w *Win) Free() error {
	if err := w.check("Win.Free"); err != nil {
		return err
	}
	w.mu.Lock()
	busy := w.sync.busy()
	if busy == "" {
		w.freed.Store(true)
	}
	w.mu.Unlock()
	if busy != "" {
		return fmt.Errorf("mpi: Win.Free: %s: %w", busy, ErrRMASync)
	}
	w.unregister()
	err := w.flush(-1)
	// Nobody accesses the window after the barrier.
	if berr := w.c.manage("Win.Free", func(u *collectives.Runner) error { return u.Barrier() }); err == nil {
		err = berr
	}
	if rerr := w.release(); err == nil && rerr != nil {
		err = fmt.Errorf("mpi: Win.Free: %w", rerr)
	}
	if ferr := w.c.Free(); err == nil {
		err = ferr
	}
	return err
}

// check verifies that w can be used.
func (w *Win) check(op string) error {
	if w == nil {
		return fmt.Errorf("mpi: %s: nil window: %w", op, ErrWin)
	}
	w.mu.Lock()
	err := w.live(op)
	w.mu.Unlock()
	return err
}

// live is check of a window that is not nil, for a caller that holds
// w.mu.
func (w *Win) live(op string) error {
	if w.freed.Load() {
		return fmt.Errorf("mpi: %s: window used after Free: %w", op, ErrWin)
	}
	return w.c.checkLive(op)
}

// Size returns the number of bytes of the local window.
func (w *Win) Size() int { return len(w.mem) }

// DispUnit returns the displacement unit of the window, the size of the
// element type it was made of (MPI_Win_get_attr MPI_WIN_DISP_UNIT).
func (w *Win) DispUnit() int { return w.elem }

// Group returns the group of the window's processes (MPI_Win_get_group).
func (w *Win) Group() Group { return w.c.Group() }
