package mpi

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Shared-memory windows (MPI-3.1 11.2.3): the processes of a host load
// and store each other's part of the window directly. The parts are
// memory of the martini network's segment, which is one anonymous memory
// file mapped into every process of the host: each process's part comes
// from its share of the segment's heap, is mapped by every other process
// of the window, and goes back to the heap when the window is freed (the
// segment goes with the job, so nothing is left behind on any exit). The
// parts are not contiguous across processes (MPI's alloc_shared_noncontig):
// SharedQuery gives each.

// WinAllocateShared makes a window of n zeroed elements on every process
// of c, in memory every process of c loads and stores, and returns it with
// the local part (MPI_Win_allocate_shared). Collective over c, whose
// processes must share a host (c.SplitType(CommTypeShared, key) gives
// such communicators): on a communicator that spans hosts, or over a
// network without shared memory (-transport tcp), it fails on every
// process with an error wrapping ErrWin. Loads and stores of the parts are
// ordered with the window's synchronization (Fence, Lock/Unlock, Sync);
// one-sided operations work on it as on any window.
func WinAllocateShared[T Type](c *Comm, n int) (*Win, []T, error) {
	const op = "WinAllocateShared"
	if err := c.check(op); err != nil {
		return nil, nil, err
	}
	for p := range c.size {
		if !c.rt.ep.SharesMemory(c.toWorld(p)) {
			return nil, nil, fmt.Errorf("mpi: %s: rank %d of the communicator shares no memory with rank %d: the communicator spans hosts, or the network (%s) has no shared memory (make it with SplitType(CommTypeShared, key)): %w",
				op, p, c.rank, c.rt.net.Caps().Name, ErrWin)
		}
	}
	w, local, err := winAllocate[T](c, n, op)
	if err != nil {
		return nil, nil, err
	}
	if err := w.mapShared(); err != nil {
		w.Free()
		return nil, nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return w, local, nil
}

// mapShared maps every rank's part of the window into this process, and
// agrees with the others that every process did.
func (w *Win) mapShared() error {
	w.shared = make([][]byte, w.c.size)
	var err error
	for p, t := range w.targets {
		switch {
		case t.size == 0:
		case p == w.c.rank:
			w.shared[p] = w.mem
		default:
			var mem []byte
			if mem, err = w.ep.PeerMemory(w.c.toWorld(p), t.region); err != nil {
				err = fmt.Errorf("mapping the window of rank %d: %w (%w)", p, err, ErrWin)
				break
			}
			w.shared[p] = mem[:t.size:t.size]
		}
		if err != nil {
			break
		}
	}
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
// window. Allowed in any epoch.
func (w *Win) Sync() error {
	if err := w.check("Win.Sync"); err != nil {
		return err
	}
	syncWord.Add(1) // a locked read-modify-write: a full barrier
	return nil
}
