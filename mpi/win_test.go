package mpi_test

// One-sided communication, in the manner of MPICH's rma tests: put and get
// with fence, accumulates from concurrent origins, fetch-and-op counters,
// a compare-and-swap mutex, exclusive and shared locks, a PSCW ring, flush
// ordering, every element type and the error cases.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["win-fence"] = scenarioWinFence
	scenarios["win-types"] = scenarioWinTypes
	scenarios["win-acc"] = scenarioWinAcc
	scenarios["win-fetchop"] = scenarioWinFetchOp
	scenarios["win-cas"] = scenarioWinCASMutex
	scenarios["win-lock"] = scenarioWinLock
	scenarios["win-pscw"] = scenarioWinPSCW
	scenarios["win-flush"] = scenarioWinFlush
	scenarios["win-errors"] = scenarioWinErrors
	scenarios["win-bytes"] = scenarioWinBytes
}

// winScenarios are the window scenarios and whether they are heavy (no
// np 8 under the race detector).
var winScenarios = []struct {
	name  string
	heavy bool
}{
	{"win-fence", false}, {"win-types", true}, {"win-acc", true}, {"win-fetchop", false},
	{"win-cas", true}, {"win-lock", true}, {"win-pscw", false}, {"win-flush", false}, {"win-errors", false},
	{"win-bytes", false},
}

func TestWin(t *testing.T) {
	t.Parallel()
	for _, s := range winScenarios {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			runAt(t, s.name, append([]int{1}, nps(s.heavy)...))
		})
	}
}

func TestWinTCP(t *testing.T) {
	t.Parallel()
	for _, s := range winScenarios {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			runAt(t, s.name, []int{1, 2, 3, 4}, "-transport", "tcp")
		})
	}
}

// winKind makes a window of n elements of T: "create" over a slice of
// the caller, "allocate" in network memory.
type winKind string

var winKinds = []winKind{"create", "allocate"}

func makeWin[T mpi.Type](w *mpi.Comm, kind winKind, n int) (*mpi.Win, []T, error) {
	if kind == "create" {
		buf := make([]T, n)
		win, err := mpi.WinCreate(w, buf)
		return win, buf, err
	}
	return mpi.WinAllocate[T](w, n)
}

// scenarioWinFence puts each rank's pattern into its right neighbour's
// window and gets its left neighbour's back, under fences.
func scenarioWinFence(w *mpi.Comm) error {
	for _, kind := range winKinds {
		for _, n := range []int{1, 1000, 70000} {
			if err := fenceRound[float64](w, kind, n); err != nil {
				return fmt.Errorf("%s, %d elements: %w", kind, n, err)
			}
		}
	}
	return nil
}

func fenceRound[T mpi.Type](w *mpi.Comm, kind winKind, n int) error {
	me := w.Rank()
	win, local, err := makeWin[T](w, kind, n)
	if err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if err := mpi.Put(win, pattern[T](n, me), right(w), 0); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if d := diff(local, pattern[T](n, left(w))); d != "" {
		return fmt.Errorf("window after the put from rank %d: %s", left(w), d)
	}
	got := make([]T, n)
	if err := mpi.Get(win, got, left(w), 0); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if d := diff(got, pattern[T](n, (w.Rank()-2+2*w.Size())%w.Size())); d != "" {
		return fmt.Errorf("get from rank %d: %s", left(w), d)
	}
	// A part at a displacement.
	if err := mpi.Put(win, pattern[T](1, 99, me), right(w), n-1); err != nil {
		return err
	}
	if err := win.Fence(); err != nil {
		return err
	}
	if d := diff(local[n-1:], pattern[T](1, 99, left(w))); d != "" {
		return fmt.Errorf("last element: %s", d)
	}
	return win.Free()
}

// scenarioWinTypes puts, gets and sums every element type.
func scenarioWinTypes(w *mpi.Comm) error {
	tests := []func(w *mpi.Comm, kind winKind) error{
		typeWin[int8], typeWin[int16], typeWin[int32], typeWin[int64], typeWin[int],
		typeWin[uint8], typeWin[uint16], typeWin[uint32], typeWin[uint64], typeWin[uint],
		typeWin[uintptr], typeWin[float32], typeWin[float64], typeWin[complex64], typeWin[complex128],
	}
	for _, kind := range winKinds {
		for _, f := range tests {
			if err := f(w, kind); err != nil {
				return err
			}
		}
	}
	return nil
}

func typeWin[T mpi.Type](w *mpi.Comm, kind winKind) error {
	name := fmt.Sprintf("%s window of %s", kind, typeName[T]())
	if err := fenceRound[T](w, kind, 300); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// Every rank adds rank+1 to every element of every window: the sum
	// is n(n+1)/2 in every type.
	const n = 20
	win, local, err := makeWin[T](w, kind, n)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	add := make([]T, n)
	for i := range add {
		add[i] = conv[T](w.Rank() + 1)
	}
	if err := win.Fence(); err != nil {
		return err
	}
	for t := range w.Size() {
		if err := mpi.Accumulate(win, add, t, 0, mpi.Sum); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := win.Fence(); err != nil {
		return err
	}
	want := conv[T](w.Size() * (w.Size() + 1) / 2)
	for i, v := range local {
		if v != want {
			return fmt.Errorf("%s: element %d is %v after the sums, want %v", name, i, v, want)
		}
	}
	return win.Free()
}

// scenarioWinAcc has every rank accumulate into every window at once,
// with fences and under shared locks: the results must be exact.
func scenarioWinAcc(w *mpi.Comm) error {
	for _, kind := range winKinds {
		if err := accRound[int64](w, kind); err != nil {
			return fmt.Errorf("%s window of int64: %w", kind, err)
		}
		if err := accRound[int32](w, kind); err != nil {
			return fmt.Errorf("%s window of int32: %w", kind, err)
		}
		if err := accRound[float64](w, kind); err != nil {
			return fmt.Errorf("%s window of float64: %w", kind, err)
		}
	}
	return nil
}

func accRound[T int64 | int32 | float64](w *mpi.Comm, kind winKind) error {
	const n, rounds = 16, 10
	me, size := w.Rank(), w.Size()
	win, local, err := makeWin[T](w, kind, 4*n)
	if err != nil {
		return err
	}
	one := make([]T, n)
	mine := make([]T, n)
	for i := range one {
		one[i], mine[i] = 1, T(me*n+i)
	}
	if err := win.LockAll(); err != nil {
		return err
	}
	for r := range rounds {
		for t := range size {
			// [0,n): sums; [n,2n): max; [2n,3n): bxor; [3n,4n): replace.
			if err := mpi.Accumulate(win, one, t, 0, mpi.Sum); err != nil {
				return err
			}
			if err := mpi.Accumulate(win, mine, t, n, mpi.Max); err != nil {
				return err
			}
			if _, isFloat := any(one[0]).(float64); !isFloat {
				if err := mpi.Accumulate(win, mine, t, 2*n, mpi.BXor); err != nil {
					return err
				}
			}
			if r == rounds-1 && me == size-1 {
				if err := mpi.Accumulate(win, mine, t, 3*n, mpi.Replace); err != nil {
					return err
				}
			}
		}
	}
	if err := win.UnlockAll(); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	for i := range n {
		if want := T(size * rounds); local[i] != want {
			return fmt.Errorf("sum element %d is %v, want %v", i, local[i], want)
		}
		if want := T((size-1)*n + i); local[n+i] != want {
			return fmt.Errorf("max element %d is %v, want %v", i, local[n+i], want)
		}
		if want := T((size-1)*n + i); local[3*n+i] != want {
			return fmt.Errorf("replaced element %d is %v, want %v", i, local[3*n+i], want)
		}
	}
	return win.Free()
}

// scenarioWinFetchOp counts with FetchAndOp on rank 0: every value is
// fetched exactly once.
func scenarioWinFetchOp(w *mpi.Comm) error {
	for _, kind := range winKinds {
		if err := fetchRound[int64](w, kind); err != nil {
			return fmt.Errorf("%s window of int64: %w", kind, err)
		}
		if err := fetchRound[uint32](w, kind); err != nil {
			return fmt.Errorf("%s window of uint32: %w", kind, err)
		}
	}
	return nil
}

func fetchRound[T int64 | uint32](w *mpi.Comm, kind winKind) error {
	const k = 50
	win, _, err := makeWin[T](w, kind, 1)
	if err != nil {
		return err
	}
	got := make([]int64, k)
	if err := win.Lock(mpi.LockShared, 0); err != nil {
		return err
	}
	for i := range got {
		v, err := mpi.FetchAndOp(win, T(1), 0, 0, mpi.Sum)
		if err != nil {
			return err
		}
		got[i] = int64(v)
	}
	last, err := mpi.FetchAndOp(win, T(0), 0, 0, mpi.NoOp)
	if err != nil {
		return err
	}
	if err := win.Unlock(0); err != nil {
		return err
	}
	if int64(last) < got[k-1]+1 {
		return fmt.Errorf("counter read %v after this rank fetched %d", last, got[k-1])
	}
	all := make([]int64, k*w.Size())
	if err := mpi.Allgather(w, got, all); err != nil {
		return err
	}
	slices.Sort(all)
	for i, v := range all {
		if v != int64(i) {
			return fmt.Errorf("fetched values %v...: want each of 0..%d once", all[:min(len(all), 20)], len(all)-1)
		}
	}
	return win.Free()
}

// scenarioWinCASMutex guards a counter read and written with Get and Put
// by a mutex taken with CompareAndSwap.
func scenarioWinCASMutex(w *mpi.Comm) error {
	for _, kind := range winKinds {
		if err := casMutex(w, kind); err != nil {
			return fmt.Errorf("%s window: %w", kind, err)
		}
	}
	return nil
}

func casMutex(w *mpi.Comm, kind winKind) error {
	const k = 20
	me := int64(w.Rank() + 1)
	win, local, err := makeWin[int64](w, kind, 2) // [0] mutex, [1] counter
	if err != nil {
		return err
	}
	if err := win.LockAll(); err != nil {
		return err
	}
	for range k {
		for {
			old, err := mpi.CompareAndSwap(win, 0, me, 0, 0)
			if err != nil {
				return err
			}
			if old == 0 {
				break
			}
		}
		c := make([]int64, 1)
		if err := mpi.Get(win, c, 0, 1); err != nil {
			return err
		}
		if err := win.Flush(0); err != nil {
			return err
		}
		c[0]++
		if err := mpi.Put(win, c, 0, 1); err != nil {
			return err
		}
		if err := win.Flush(0); err != nil {
			return err
		}
		if old, err := mpi.CompareAndSwap(win, me, 0, 0, 0); err != nil || old != me {
			return fmt.Errorf("releasing the mutex found %d (%v), want %d", old, err, me)
		}
	}
	if err := win.UnlockAll(); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 0 && (local[1] != int64(k*w.Size()) || local[0] != 0) {
		return fmt.Errorf("counter %d, mutex %d: want %d and 0", local[1], local[0], k*w.Size())
	}
	return win.Free()
}

// scenarioWinLock increments a counter by read-modify-write under
// exclusive locks, then reads it under shared ones.
func scenarioWinLock(w *mpi.Comm) error {
	for _, kind := range winKinds {
		if err := lockRound(w, kind); err != nil {
			return fmt.Errorf("%s window: %w", kind, err)
		}
	}
	return nil
}

func lockRound(w *mpi.Comm, kind winKind) error {
	const k = 20
	win, local, err := makeWin[int32](w, kind, 4)
	if err != nil {
		return err
	}
	target := w.Size() - 1
	for range k {
		if err := win.Lock(mpi.LockExclusive, target); err != nil {
			return err
		}
		c := make([]int32, 4)
		if err := mpi.Get(win, c, target, 0); err != nil {
			return err
		}
		if err := win.Flush(target); err != nil {
			return err
		}
		for i := range c {
			c[i] += int32(i + 1)
		}
		if err := mpi.Put(win, c, target, 0); err != nil {
			return err
		}
		if err := win.Unlock(target); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	want := make([]int32, 4)
	for i := range want {
		want[i] = int32((i + 1) * k * w.Size())
	}
	if err := win.Lock(mpi.LockShared, target); err != nil {
		return err
	}
	got := make([]int32, 4)
	if err := mpi.Get(win, got, target, 0); err != nil {
		return err
	}
	if err := win.Unlock(target); err != nil {
		return err
	}
	if d := diff(got, want); d != "" {
		return fmt.Errorf("counters read under a shared lock: %s", d)
	}
	if w.Rank() == target {
		if d := diff(local, want); d != "" {
			return fmt.Errorf("local counters: %s", d)
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	return win.Free()
}

// scenarioWinPSCW passes data around the ring in post-start-complete-wait
// epochs: each rank exposes its window to its left neighbour and
// accesses its right one's.
func scenarioWinPSCW(w *mpi.Comm) error {
	for _, kind := range winKinds {
		if err := pscwRound(w, kind); err != nil {
			return fmt.Errorf("%s window: %w", kind, err)
		}
	}
	return nil
}

func pscwRound(w *mpi.Comm, kind winKind) error {
	const n, rounds = 100, 5
	win, local, err := makeWin[int64](w, kind, n)
	if err != nil {
		return err
	}
	g := w.Group()
	from, err := g.Incl(left(w))
	if err != nil {
		return err
	}
	to, err := g.Incl(right(w))
	if err != nil {
		return err
	}
	for r := range rounds {
		if err := win.Post(from); err != nil {
			return err
		}
		if err := win.Start(to); err != nil {
			return err
		}
		if err := mpi.Put(win, pattern[int64](n, r, w.Rank()), right(w), 0); err != nil {
			return err
		}
		if err := win.Complete(); err != nil {
			return err
		}
		if r%2 == 0 {
			if err := win.Wait(); err != nil {
				return err
			}
		} else {
			for {
				done, err := win.Test()
				if err != nil {
					return err
				}
				if done {
					break
				}
			}
		}
		if d := diff(local, pattern[int64](n, r, left(w))); d != "" {
			return fmt.Errorf("round %d: window after the epoch: %s", r, d)
		}
		// Nobody puts the next round before this one is checked.
		if err := mpi.Barrier(w); err != nil {
			return err
		}
	}
	return win.Free()
}

// scenarioWinFlush checks that a flush completes puts in order: a get
// after a flushed put sees it, and the last of several puts wins.
func scenarioWinFlush(w *mpi.Comm) error {
	for _, kind := range winKinds {
		win, _, err := makeWin[uint64](w, kind, 8*w.Size())
		if err != nil {
			return err
		}
		target := right(w)
		if err := win.Lock(mpi.LockShared, target); err != nil {
			return err
		}
		for v := range uint64(30) {
			val := []uint64{v<<8 | uint64(w.Rank())}
			for range 3 {
				if err := mpi.Put(win, val, target, 8*w.Rank()); err != nil {
					return err
				}
			}
			if err := win.Flush(target); err != nil {
				return err
			}
			got := make([]uint64, 1)
			if err := mpi.Get(win, got, target, 8*w.Rank()); err != nil {
				return err
			}
			if err := win.FlushLocal(target); err != nil {
				return err
			}
			if got[0] != val[0] {
				return fmt.Errorf("%s window: get after a flushed put read %#x, want %#x", kind, got[0], val[0])
			}
		}
		if err := win.Unlock(target); err != nil {
			return err
		}
		if err := mpi.Barrier(w); err != nil {
			return err
		}
		if err := win.Free(); err != nil {
			return err
		}
	}
	return nil
}

// scenarioWinErrors checks that misuse is reported with the right class
// and leaves the window usable.
func scenarioWinErrors(w *mpi.Comm) error {
	win, _, err := mpi.WinAllocate[int64](w, 10)
	if err != nil {
		return err
	}
	buf := make([]int64, 4)
	if err := checkWinErrCases(winNoEpochCases(w, win, buf)); err != nil {
		return err
	}
	if err := win.Lock(mpi.LockShared, 0); err != nil {
		return err
	}
	if err := checkWinErrCases(winLockedCases(win, buf)); err != nil {
		return err
	}
	if _, err := mpi.CompareAndSwap(win, 0.5, 1.5, 0, 0); !errors.Is(err, mpi.ErrWin) {
		return fmt.Errorf("CompareAndSwap of float64 on an int64 window: %v, want ErrWin", err)
	}
	// Still usable: the put within bounds works.
	if err := mpi.Put(win, buf, 0, 6); err != nil {
		return err
	}
	if err := win.Unlock(0); err != nil {
		return err
	}
	// ProcNull is a target that takes nothing.
	if err := mpi.Put(win, buf, mpi.ProcNull, 100); err != nil {
		return fmt.Errorf("Put to ProcNull: %w", err)
	}
	if err := win.Free(); err != nil {
		return err
	}
	if err := winCheckErr("Put on a freed window", mpi.Put(win, buf, 0, 0), mpi.ErrWin); err != nil {
		return err
	}
	if err := winCheckErr("Free twice", win.Free(), mpi.ErrWin); err != nil {
		return err
	}
	return allocFailure(w)
}

// winErrCase is a misuse of a window: what it was, the error it
// returned, and the class that error must wrap.
type winErrCase struct {
	what  string
	err   error
	class error
}

// winCheckErr checks that err, what returned, wraps class.
func winCheckErr(what string, err, class error) error {
	if err == nil || !errors.Is(err, class) {
		return fmt.Errorf("%s: %v, want an error wrapping %v", what, err, class)
	}
	return nil
}

// checkWinErrCases checks each case in turn, up to the first wrong one.
func checkWinErrCases(cases []winErrCase) error {
	for _, c := range cases {
		if err := winCheckErr(c.what, c.err, c.class); err != nil {
			return err
		}
	}
	return nil
}

// winNoEpochCases makes the calls on win, in no epoch, that must fail:
// RMA and synchronisation calls outside an epoch, and a Lock of an
// invalid rank.
func winNoEpochCases(w *mpi.Comm, win *mpi.Win, buf []int64) []winErrCase {
	return []winErrCase{
		{"Put outside an epoch", mpi.Put(win, buf, 0, 0), mpi.ErrRMASync},
		{"Get outside an epoch", mpi.Get(win, buf, 0, 0), mpi.ErrRMASync},
		{"Unlock without Lock", win.Unlock(0), mpi.ErrRMASync},
		{"UnlockAll without LockAll", win.UnlockAll(), mpi.ErrRMASync},
		{"Complete without Start", win.Complete(), mpi.ErrRMASync},
		{"Wait without Post", win.Wait(), mpi.ErrRMASync},
		{"Flush outside a lock", win.Flush(0), mpi.ErrRMASync},
		{"Lock of an invalid rank", win.Lock(mpi.LockShared, w.Size()), mpi.ErrRank},
	}
}

// winLockedCases makes the calls on win, under a shared lock of rank 0,
// that must fail: out of range, of the wrong type or count, at an invalid
// rank, and synchronisation that the lock forbids.
func winLockedCases(win *mpi.Win, buf []int64) []winErrCase {
	return []winErrCase{
		{"Put past the end", mpi.Put(win, buf, 0, 7), mpi.ErrRMARange},
		{"Get at a negative displacement", mpi.Get(win, buf, 0, -1), mpi.ErrRMARange},
		{"Accumulate past the end", mpi.Accumulate(win, buf, 0, 8, mpi.Sum), mpi.ErrRMARange},
		{"Accumulate of another type", mpi.Accumulate(win, []int32{1}, 0, 0, mpi.Sum), mpi.ErrWin},
		{"GetAccumulate with a short result", mpi.GetAccumulate(win, buf, buf[:2], 0, 0, mpi.Sum), mpi.ErrCount},
		{"Accumulate with MinLoc of an odd count", mpi.Accumulate(win, buf[:3], 0, 0, mpi.MinLoc), mpi.ErrCount},
		{"Put at an invalid rank", mpi.Put(win, buf, -5, 0), mpi.ErrRank},
		{"a second Lock", win.Lock(mpi.LockExclusive, 0), mpi.ErrRMASync},
		{"Free while locked", win.Free(), mpi.ErrRMASync},
		{"Fence while locked", win.Fence(), mpi.ErrRMASync},
	}
}

// allocFailure has rank 0 ask for more window memory than the NIC's
// segment holds: every rank's WinAllocate fails, none hangs. (On TCP the
// memory is the Go heap's, which would not refuse but exhaust.)
func allocFailure(w *mpi.Comm) error {
	st, err := mpi.ReadStats()
	if err != nil || st.Network != "martini" {
		return err
	}
	n := 1
	if w.Rank() == 0 {
		n = 1 << 34
	}
	win, _, err := mpi.WinAllocate[int64](w, n)
	if err == nil || win != nil {
		return fmt.Errorf("WinAllocate with %d elements on rank 0: window %v, error %v: want every rank to fail", 1<<34, win, err)
	}
	if !strings.Contains(err.Error(), "rank 0 could not make its part") && w.Rank() != 0 {
		return fmt.Errorf("WinAllocate failing on rank 0: %v", err)
	}
	return mpi.Barrier(w) // still usable
}

// conv returns v, a small non-negative integer, as a T of any kind.
func conv[T mpi.Type](v int) T {
	var x T
	for range v {
		x++
	}
	return x
}

// TestWinVirtual runs windows under the Martini profile in virtual time,
// where the NIC's atomics and remote accesses move the clocks.
func TestWinVirtual(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"win-fence", "win-lock", "win-pscw"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runAt(t, name, []int{2, 4}, "-profile", "martini", "-clock", "virtual")
		})
	}
}

// scenarioWinBytes accumulates values of several types into one window
// of bytes, as C programs do into MPI's untyped windows: int32 sums at
// byte 0, float64 maxima at byte 16, an int64 counter by FetchAndOp at
// byte 40, and an int32 compare-and-swap at byte 48 that only the first
// process wins.
func scenarioWinBytes(w *mpi.Comm) error {
	size := w.Size()
	local := make([]byte, 64)
	win, err := mpi.WinCreate(w, local)
	if err != nil {
		return err
	}
	if err := win.LockAll(); err != nil {
		return err
	}
	won, err := winBytesAccumulate(win, w.Rank(), size)
	if err != nil {
		return err
	}
	if err := win.UnlockAll(); err != nil {
		return err
	}
	// Every target had one winner of the swap.
	total := []int64{0}
	if err := mpi.Allreduce(w, []int64{int64(won)}, total, mpi.Sum); err != nil {
		return err
	}
	if int(total[0]) != size {
		return fmt.Errorf("%d compare-and-swaps won over %d targets, want one each", total[0], size)
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := winBytesCheck(local, size); err != nil {
		return err
	}
	return win.Free()
}

// winBytesAccumulate makes rank me's accumulations of scenarioWinBytes
// at every target, and returns how many compare-and-swaps it won.
func winBytesAccumulate(win *mpi.Win, me, size int) (won int, err error) {
	for t := range size {
		if err := mpi.Accumulate(win, []int32{1, 2, 3, int32(me)}, t, 0, mpi.Sum); err != nil {
			return 0, err
		}
		if err := mpi.Accumulate(win, []float64{float64(me) + 0.5, -float64(me)}, t, 16, mpi.Max); err != nil {
			return 0, err
		}
		if _, err := mpi.FetchAndOp(win, int64(me+1), t, 40, mpi.Sum); err != nil {
			return 0, err
		}
		old, err := mpi.CompareAndSwap(win, int32(0), int32(me+1), t, 48)
		if err != nil {
			return 0, err
		}
		if old == 0 {
			won++
		}
	}
	return won, nil
}

// winBytesCheck checks the sums, maxima, counter and swapped word that
// size processes left in the window's bytes local.
func winBytesCheck(local []byte, size int) error {
	le := binary.LittleEndian
	for i, want := range []int32{int32(size), int32(2 * size), int32(3 * size), int32(size * (size - 1) / 2)} {
		if got := int32(le.Uint32(local[4*i:])); got != want {
			return fmt.Errorf("int32 sum %d is %d, want %d", i, got, want)
		}
	}
	if got, want := math.Float64frombits(le.Uint64(local[16:])), float64(size-1)+0.5; got != want {
		return fmt.Errorf("float64 max is %g, want %g", got, want)
	}
	if got, want := math.Float64frombits(le.Uint64(local[24:])), 0.0; got != want {
		return fmt.Errorf("second float64 max is %g, want %g", got, want)
	}
	if got, want := int64(le.Uint64(local[40:])), int64(size*(size+1)/2); got != want {
		return fmt.Errorf("counter is %d, want %d", got, want)
	}
	if got := int32(le.Uint32(local[48:])); got < 1 || int(got) > size {
		return fmt.Errorf("swapped word is %d, want a rank + 1", got)
	}
	return nil
}
