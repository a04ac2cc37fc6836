package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["win-direct"] = scenarioWinDirect(false)
	scenarios["win-direct-model"] = scenarioWinDirect(true)
}

// TestWinDirect checks where one-sided operations go by loads and stores
// and where through the network: on one host, on two (martini within
// each, TCP between), on TCP alone, and under the Martini model in
// virtual time.
func TestWinDirect(t *testing.T) {
	t.Parallel()
	runAt(t, "win-direct", []int{1, 3})
	runAt(t, "win-direct", []int{2}, "-transport", "tcp")
	runAt(t, "win-direct-model", []int{2}, "-profile", "martini", "-clock", "virtual")
	runScenarioJob(t, 4, "win-direct", "-hosts", "a:2,b:2", "-launch", "env MARTINI_TEST_HOST={host}")
}

// scenarioWinDirect returns the scenario of TestWinDirect; modelled
// says the job runs under a timing model. Every rank puts, gets and
// accumulates into its own slots of every rank's window, one target at
// a time, then locks each target, and counts the engine's one-sided
// operations around each target's: none where the window is the
// network's memory (WinAllocate, WinAllocateShared), the target is a
// process of the same host on the martini network and no model runs;
// some otherwise (WinCreate, another host, TCP, the model). Then each
// rank checks what the others left in its window.
func scenarioWinDirect(modelled bool) func(w *mpi.Comm) error {
	return func(w *mpi.Comm) error {
		same, err := sameHost(w)
		if err != nil {
			return err
		}
		st, err := mpi.ReadStats()
		if err != nil {
			return err
		}
		loadStore := st.Network != "tcp" && !modelled
		for _, kind := range []string{"allocate", "shared", "create", "bytes"} {
			if kind == "shared" && (st.Network == "tcp" || slices.Contains(same, false)) {
				continue // WinAllocateShared needs one host's shared memory
			}
			if err := directRound(w, kind, same, st.Network, loadStore && kind != "create"); err != nil {
				return fmt.Errorf("window %s: %w", kind, err)
			}
		}
		return nil
	}
}

// slots is the number of int64 slots of each origin in a target's window
// of directRound.
const slots = 4

// directRound is one window of scenarioWinDirect, made as kind: of int64
// by WinAllocate, WinAllocateShared or WinCreate, or of bytes by
// WinAllocate (its accumulates of int64 take the accumulate lock).
// network is the job's; loadStore says a target of the same host takes
// loads and stores.
func directRound(w *mpi.Comm, kind string, same []bool, network string, loadStore bool) error {
	me, n := w.Rank(), w.Size()
	win, local, unit, err := makeDirectWin(w, kind)
	if err != nil {
		return err
	}
	if err := win.LockAll(); err != nil {
		return err
	}
	for t := range n {
		if err := directOpsCounted(win, kind, me, t, unit, same, network, loadStore); err != nil {
			return err
		}
	}
	if err := win.UnlockAll(); err != nil {
		return err
	}
	if err := directLocks(win, n, same, loadStore); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	for o := range n {
		want := []int64{int64(100*o + me), 5, 7, 9}
		if got := local[slots*o : slots*o+slots]; fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("slots of rank %d: %v, want %v", o, got, want)
		}
	}
	return win.Free()
}

// makeDirectWin makes the window of directRound as kind, and returns it,
// its memory as int64, and its displacement units an int64.
func makeDirectWin(w *mpi.Comm, kind string) (win *mpi.Win, local []int64, unit int, err error) {
	n := w.Size()
	unit = 1 // displacement units an int64
	switch kind {
	case "allocate", "create":
		win, local, err = makeWin[int64](w, winKind(kind), slots*n)
	case "shared":
		win, local, err = mpi.WinAllocateShared[int64](w, slots*n)
	case "bytes":
		var b []byte
		win, b, err = mpi.WinAllocate[byte](w, 8*slots*n)
		local, unit = asInt64s(b), 8
	}
	return win, local, unit, err
}

// directOpsCounted runs directOps at target t and checks that they went
// by loads and stores or through the network as they should, and the
// combinations and atomics they counted.
func directOpsCounted(win *mpi.Win, kind string, me, t, unit int, same []bool, network string, loadStore bool) error {
	before, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	if err := directOps(win, me, t, unit); err != nil {
		return fmt.Errorf("target %d: %w", t, err)
	}
	after, _ := mpi.ReadStats()
	ops := rmaCount(after.Protocol) - rmaCount(before.Protocol)
	if direct := loadStore && same[t]; direct != (ops == 0) {
		return fmt.Errorf("target %d (same host %v): %d operations through the network, want them by loads and stores: %v", t, same[t], ops, direct)
	}
	// Over TCP, the accumulate, the FetchAndOp and the CompareAndSwap
	// are combinations the target applies, not its lock's round
	// trips; on a window of int64 in the network's memory the
	// CompareAndSwap stays the network's atomic.
	combined := after.Protocol.RMACombines - before.Protocol.RMACombines
	atomics := after.Protocol.RMAAtomics - before.Protocol.RMAAtomics
	want, wantAtomics := uint64(0), atomics
	if t != me && (network == "tcp" || !same[t]) {
		want, wantAtomics = 3, 0
		if kind == "allocate" {
			want, wantAtomics = 2, 1
		}
	}
	if combined != want || atomics != wantAtomics {
		return fmt.Errorf("target %d (same host %v): %d combinations and %d atomics, want %d and %d", t, same[t], combined, atomics, want, wantAtomics)
	}
	return nil
}

// directLocks locks each of the n targets of win exclusively and shared,
// and checks that the locks of a target on the same host went by the
// processor's atomics where loadStore says so, and otherwise through the
// network.
func directLocks(win *mpi.Win, n int, same []bool, loadStore bool) error {
	for t := range n {
		before, _ := mpi.ReadStats()
		if err := errors.Join(win.Lock(mpi.LockExclusive, t), win.Unlock(t), win.Lock(mpi.LockShared, t), win.Unlock(t)); err != nil {
			return fmt.Errorf("locks of target %d: %w", t, err)
		}
		after, _ := mpi.ReadStats()
		ops := rmaCount(after.Protocol) - rmaCount(before.Protocol)
		if direct := loadStore && same[t]; direct != (ops == 0) {
			return fmt.Errorf("locks of target %d (same host %v): %d operations through the network, want them by the processor's atomics: %v", t, same[t], ops, direct)
		}
	}
	return nil
}

// directOps puts, gets, accumulates, fetches and adds, and swaps into
// origin me's slots of target t (unit: displacement units an int64) and
// checks what it reads back.
func directOps(win *mpi.Win, me, t, unit int) error {
	at := slots * me * unit
	v := int64(100*me + t)
	if err := mpi.Put(win, []int64{v}, t, at); err != nil {
		return err
	}
	if err := win.Flush(t); err != nil {
		return err
	}
	got := []int64{0}
	if err := mpi.Get(win, got, t, at); err != nil {
		return err
	}
	if err := mpi.Accumulate(win, []int64{5}, t, at+unit, mpi.Sum); err != nil {
		return err
	}
	old, err := mpi.FetchAndOp(win, int64(7), t, at+2*unit, mpi.Sum)
	if err != nil {
		return err
	}
	swapped, err := mpi.CompareAndSwap(win, 0, int64(9), t, at+3*unit)
	if err != nil {
		return err
	}
	if err := win.Flush(t); err != nil {
		return err
	}
	if got[0] != v || old != 0 || swapped != 0 {
		return fmt.Errorf("read back %d, fetched %d, swapped %d; want %d, 0, 0", got[0], old, swapped, v)
	}
	return nil
}

// rmaCount is the engine's one-sided operations of c.
func rmaCount(c llc.Counters) uint64 { return c.RMAPuts + c.RMAGets + c.RMAAtomics + c.RMACombines }

// sameHost reports, by rank of w, whether that rank runs on this
// process's host: the processes of a host are those of one
// CommTypeShared part, named by the world rank of its rank 0.
func sameHost(w *mpi.Comm) ([]bool, error) {
	host, err := w.SplitType(mpi.CommTypeShared, 0)
	if err != nil {
		return nil, err
	}
	leader := []int64{int64(w.Rank())}
	if err := mpi.Bcast(host, leader, 0); err != nil {
		return nil, err
	}
	all := make([]int64, w.Size())
	if err := mpi.Allgather(w, leader, all); err != nil {
		return nil, err
	}
	same := make([]bool, w.Size())
	for r, l := range all {
		same[r] = l == leader[0]
	}
	return same, host.Free()
}

// asInt64s returns b, of a multiple of 8 bytes on an 8-byte boundary, as
// int64s.
func asInt64s(b []byte) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}
