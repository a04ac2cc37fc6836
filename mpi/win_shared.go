package mpi

import (
	"fmt"
	"math"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
)

// Shared-memory windows (MPI-3.1 11.2.3): the processes of a host load
// and store each other's part of the window directly. The parts are
// memory of the martini network's segment, which is one anonymous memory
// file mapped into every process of the host, and go back to the heap of
// the segment when the window is freed (the segment goes with the job, so
// nothing is left behind on any exit). By default the parts are
// contiguous, as MPI's are: rank 0 of the window allocates them all, one
// after the other in rank order, from its share of the segment's heap,
// and every process maps that memory; one-sided operations on rank r's
// part are operations on rank 0's memory at r's offset, with r's lock and
// accumulate lock. With AllocSharedNoncontig each process allocates its
// own part from its own share, and the others map it.

// WinOption is an option of a window's creation, as MPI's info keys are
// (MPI_Win_allocate_shared's info argument).
type WinOption int

const (
	// AllocSharedNoncontig lets WinAllocateShared lay the parts out apart
	// (the info key alloc_shared_noncontig set to true): each process's
	// part comes from its own share of the segment's heap, so that a
	// window may be as large as the shares of all its processes together,
	// not that of its rank 0 alone. SharedQuery gives each part.
	AllocSharedNoncontig WinOption = iota + 1
)

// String returns the option's name.
func (o WinOption) String() string {
	if o == AllocSharedNoncontig {
		return "AllocSharedNoncontig"
	}
	return fmt.Sprintf("WinOption(%d)", int(o))
}

// WinAllocateShared makes a window of n zeroed elements on every process
// of c, in memory every process of c loads and stores, and returns it with
// the local part (MPI_Win_allocate_shared). Collective over c, whose
// processes must share a host (c.SplitType(CommTypeShared, key) gives
// such communicators): on a communicator that spans hosts, or over a
// network without shared memory (-transport tcp), it fails on every
// process with an error wrapping ErrWin. The parts are contiguous: rank
// r's part starts where rank r-1's ends, the n of each process may
// differ, and 0 is allowed. With the option AllocSharedNoncontig, which
// every process must give or none, they lie apart. Loads and stores of
// the parts are ordered with the window's synchronization (Fence,
// Lock/Unlock, Sync); one-sided operations work on it as on any window.
func WinAllocateShared[T Type](c *Comm, n int, opts ...WinOption) (*Win, []T, error) {
	const op = "WinAllocateShared"
	if err := c.check(op); err != nil {
		return nil, nil, err
	}
	noncontig := false
	for _, o := range opts {
		if o != AllocSharedNoncontig {
			return nil, nil, fmt.Errorf("mpi: %s: option %v: %w", op, o, ErrWin)
		}
		noncontig = true
	}
	if n < 0 {
		return nil, nil, fmt.Errorf("mpi: %s of %d elements: %w", op, n, ErrCount)
	}
	for p := range c.size {
		if !c.rt.ep.SharesMemory(c.toWorld(p)) {
			return nil, nil, fmt.Errorf("mpi: %s: rank %d of the communicator shares no memory with rank %d: the communicator spans hosts, or the network (%s) has no shared memory (make it with SplitType(CommTypeShared, key)): %w",
				op, p, c.rank, c.rt.net.Caps().Name, ErrWin)
		}
	}
	if noncontig {
		return winAllocateApart[T](c, n, op)
	}
	return winAllocateContig[T](c, n, op)
}

// winAllocateApart is WinAllocateShared with AllocSharedNoncontig.
func winAllocateApart[T Type](c *Comm, n int, op string) (*Win, []T, error) {
	if _, err := sharedSizes(c, op, -1); err != nil {
		return nil, nil, err
	}
	w, local, err := winAllocate[T](c, n, op)
	if err != nil {
		return nil, nil, err
	}
	if err := w.agree(w.mapApart()); err != nil {
		w.Free()
		return nil, nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return w, local, nil
}

// winAllocateContig is WinAllocateShared with contiguous parts: rank 0
// allocates them all, the window's targets are its memory at each part's
// offset, and every process maps it.
func winAllocateContig[T Type](c *Comm, n int, op string) (*Win, []T, error) {
	if n > math.MaxInt/sizeOf[T]() {
		return nil, nil, fmt.Errorf("mpi: %s of %d elements of %d bytes: more bytes than an int holds: %w", op, n, sizeOf[T](), ErrCount)
	}
	sizes, err := sharedSizes(c, op, n*sizeOf[T]())
	if err != nil {
		return nil, nil, err
	}
	w, err := newWin[T](c, op)
	if err != nil {
		return nil, nil, err
	}
	var total uint64
	for _, s := range sizes {
		total = min(total+s, math.MaxInt+1) // no wrap: each s is at most MaxInt
	}
	if w.c.rank == 0 && total > math.MaxInt {
		w.allocErr = fmt.Errorf("the parts of every process, %d bytes together, are more than an int holds", total)
	} else if w.c.rank == 0 && total > 0 {
		// A failure here is reported by open, through the exchange.
		w.alloc = &llc.ExposeOp{Peer: w.c.toWorld(0), Size: int(total)}
		if err := w.ep.Expose(w.alloc, false); err != nil {
			w.alloc, w.allocErr = nil, fmt.Errorf("the %d bytes of every process's part, one after the other, from rank 0's share of the segment (AllocSharedNoncontig takes each part from its process's share): %w", total, err)
		}
	}
	w.native = w.elem == 8
	if err := w.open(op); err != nil {
		return nil, nil, err
	}
	var base uint64
	for t := range w.targets {
		w.targets[t].region, w.targets[t].peer = w.targets[0].region, w.c.toWorld(0)
		w.targets[t].base, w.targets[t].size = base, sizes[t]
		base += sizes[t]
	}
	if err := w.agree(w.mapContig(total)); err != nil {
		w.Free()
		return nil, nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	w.mapDirect()
	var local []T
	if n > 0 {
		local = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(w.mem))), n)
	}
	return w, local, nil
}

// sharedSizes gathers the size in bytes of every process's part, or -1
// from each process of a window whose parts lie apart, and checks that
// every process asked for the same layout.
func sharedSizes(c *Comm, op string, size int) ([]uint64, error) {
	all := make([]int64, c.size)
	if err := manageAllgather(c, []int64{int64(size)}, all); err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	sizes := make([]uint64, c.size)
	for r, s := range all {
		if (s < 0) != (size < 0) {
			apart, contig := r, c.rank
			if size < 0 {
				apart, contig = c.rank, r
			}
			return nil, fmt.Errorf("mpi: %s: rank %d asked for AllocSharedNoncontig and rank %d did not: every process must ask for the same layout: %w",
				op, apart, contig, ErrWin)
		}
		sizes[r] = uint64(max(s, 0))
	}
	return sizes, nil
}

// mapContig maps rank 0's memory, the parts of every process one after
// the other (total bytes), into this process and makes each part of it
// the window's part of its rank.
func (w *Win) mapContig(total uint64) error {
	w.shared = make([][]byte, w.c.size)
	var all []byte
	switch {
	case total == 0:
	case w.c.rank == 0:
		all = w.alloc.Mem
	default:
		mem, err := w.ep.PeerMemory(w.c.toWorld(0), w.targets[0].region)
		if err != nil {
			return fmt.Errorf("mapping the window's memory, rank 0's: %w (%w)", err, ErrWin)
		}
		all = mem
	}
	if uint64(len(all)) < total {
		return fmt.Errorf("mapping the window's memory, rank 0's: %d bytes, want %d: %w", len(all), total, ErrWin)
	}
	for p, t := range w.targets {
		if t.size > 0 {
			w.shared[p] = all[t.base : t.base+t.size : t.base+t.size]
		}
	}
	w.mem = w.shared[w.c.rank]
	return nil
}

// mapApart maps every rank's part of the window, each its own memory,
// into this process.
func (w *Win) mapApart() error {
	w.shared = make([][]byte, w.c.size)
	for p, t := range w.targets {
		switch {
		case t.size == 0:
		case p == w.c.rank:
			w.shared[p] = w.mem
		default:
			mem, err := w.ep.PeerMemory(w.c.toWorld(p), t.region)
			if err != nil {
				return fmt.Errorf("mapping the window of rank %d: %w (%w)", p, err, ErrWin)
			}
			w.shared[p] = mem[:t.size:t.size]
		}
	}
	return nil
}

// agree returns err, the outcome of mapping the window here, or an error
// if another process could not map it: every process fails alike.
func (w *Win) agree(err error) error {
	failed := []int64{0}
	if err != nil {
		failed[0] = 1
	}
	if aerr := manageAllreduce(w.c, failed, Max); aerr != nil {
		return aerr
	}
	if err == nil && failed[0] != 0 {
		err = fmt.Errorf("another process could not map the window: %w", ErrWin)
	}
	return err
}

// SharedQuery returns rank's part of a shared-memory window as memory of
// this process (MPI_Win_shared_query): loads and stores of it are those
// of rank's window. With ProcNull it returns the part of the lowest rank
// whose part is not empty. T must be the window's element type. An
// empty part is nil. A window not made by WinAllocateShared is an error
// wrapping ErrWin.
func SharedQuery[T Type](w *Win, rank int) ([]T, error) {
	const op = "SharedQuery"
	if err := w.check(op); err != nil {
		return nil, err
	}
	if w.shared == nil {
		return nil, fmt.Errorf("mpi: %s: not a shared-memory window (WinAllocateShared): %w", op, ErrWin)
	}
	if err := w.checkType(op, reflect.TypeFor[T]().Kind()); err != nil {
		return nil, err
	}
	if rank == ProcNull {
		rank = 0
		for rank < len(w.shared)-1 && len(w.shared[rank]) == 0 {
			rank++
		}
	}
	if rank < 0 || rank >= w.c.size {
		return nil, fmt.Errorf("mpi: %s of rank %d: %w (window of %d processes)", op, rank, ErrRank, w.c.size)
	}
	mem := w.shared[rank]
	if len(mem) == 0 {
		return nil, nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), len(mem)/w.elem), nil
}

// syncWord is the word whose atomic update is Sync's memory barrier.
var syncWord atomic.Uint64

// Sync makes this process's stores to the memory of a shared-memory
// window visible to the other processes and theirs visible to this one
// (MPI_Win_sync): a full memory barrier, which with a barrier or a
// message between the processes orders their loads and stores of the
// window. Allowed in any epoch. On a dynamic window, the next access to
// each target checks again for changes of its attachments.
func (w *Win) Sync() error {
	if err := w.check("Win.Sync"); err != nil {
		return err
	}
	syncWord.Add(1) // a locked read-modify-write: a full barrier
	w.recheck(0, w.c.size)
	return nil
}
