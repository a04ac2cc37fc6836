package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime/pprof"
	"strconv"
	"testing"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// One-sided operations as IMB-RMA's non-aggregate mode times them: rank 0
// holds a shared lock on rank 1's window and issues one operation and a
// Flush per iteration. Run with
//
//	go test -run XXX -bench RMA -count 5 ./mpi
//
// MPI_BENCH_CPUPROFILE=file has rank 0 write a CPU profile of the timed
// loop.

const (
	envBenchRMA     = "MPI_BENCH_RMA"
	envBenchProfile = "MPI_BENCH_CPUPROFILE"
)

var rmaNS = regexp.MustCompile(`rma_ns=([0-9.]+)`)

func init() {
	scenarios["bench-rma"] = scenarioBenchRMA
	scenarios["rma-allocs"] = scenarioRMAAllocs
}

// One-sided operations of the IMB benchmarks do not allocate.
func TestRMAAllocs(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	runScenarioJob(t, 2, "rma-allocs")
}

// scenarioRMAAllocs has rank 0 count the allocations of each operation
// and its Flush on rank 1's window, under a shared lock.
func scenarioRMAAllocs(w *mpi.Comm) error {
	const runs = 2000
	win, _, err := mpi.WinAllocate[float32](w, 1024)
	if err != nil {
		return err
	}
	iwin, _, err := mpi.WinAllocate[int64](w, 8)
	if err != nil {
		return err
	}
	if w.Rank() == 0 {
		if err := rmaAllocs(win, iwin, runs); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	return errors.Join(win.Free(), iwin.Free())
}

func rmaAllocs(win, iwin *mpi.Win, runs int) error {
	if err := errors.Join(win.Lock(mpi.LockShared, 1), iwin.Lock(mpi.LockShared, 1)); err != nil {
		return err
	}
	small, large, one := make([]float32, 2), make([]float32, 1024), []int64{1}
	for _, c := range []struct {
		name string
		win  *mpi.Win
		f    func() error
	}{
		{"Put of 8 bytes", win, func() error { return mpi.Put(win, small, 1, 0) }},
		{"Put of 4 KiB", win, func() error { return mpi.Put(win, large, 1, 0) }},
		{"Get of 8 bytes", win, func() error { return mpi.Get(win, small, 1, 0) }},
		{"Accumulate of 2 float32", win, func() error { return mpi.Accumulate(win, small, 1, 0, mpi.Sum) }},
		{"Accumulate of 1024 float32", win, func() error { return mpi.Accumulate(win, large, 1, 0, mpi.Sum) }},
		{"Accumulate of an int64", iwin, func() error { return mpi.Accumulate(iwin, one, 1, 0, mpi.Sum) }},
	} {
		var failure error
		allocs := testing.AllocsPerRun(runs, func() {
			if err := errors.Join(c.f(), c.win.Flush(1)); err != nil && failure == nil {
				failure = err
			}
		})
		if failure != nil {
			return failure
		}
		if allocs != 0 {
			return fmt.Errorf("%s and Flush allocate %.2f times, want 0", c.name, allocs)
		}
	}
	return errors.Join(win.Unlock(1), iwin.Unlock(1))
}

func BenchmarkRMA(b *testing.B) {
	for _, c := range []struct {
		op   string
		size int
	}{{"put", 8}, {"get", 8}, {"acc", 8}, {"put", 64 << 10}, {"acc", 64 << 10}, {"lock", 8}} {
		b.Run(fmt.Sprintf("%s/%d", c.op, c.size), func(b *testing.B) {
			r := mpirun(b, []string{envScenario + "=bench-rma", envBenchRMA + "=" + c.op,
				envBenchSize + "=" + strconv.Itoa(c.size), envBenchIters + "=" + strconv.Itoa(b.N)},
				"-np", "2", "-timeout", jobTimeout.String(), self)
			m := rmaNS.FindStringSubmatch(r.stdout)
			if r.code != 0 || m == nil {
				b.Fatalf("one-sided job failed:\n%v", r)
			}
			ns, _ := strconv.ParseFloat(m[1], 64)
			b.ReportMetric(ns, "ns/rma")
		})
	}
}

// scenarioBenchRMA times MPI_BENCH_ITERS operations of MPI_BENCH_RMA (put,
// get, acc: an Accumulate of float32 with Sum, as IMB's; acc64, of
// float64, whose elements the network's atomics reach) of
// MPI_BENCH_SIZE bytes, each followed by a Flush under a shared lock
// held throughout, or (lock) a Put in an epoch of its own, an exclusive
// Lock and an Unlock, and rank 0 prints the time of one.
func scenarioBenchRMA(w *mpi.Comm) error {
	if os.Getenv(envBenchRMA) == "acc64" {
		return benchRMA[float64](w, "acc")
	}
	return benchRMA[float32](w, os.Getenv(envBenchRMA))
}

// benchRMA is scenarioBenchRMA's operation name on a window of T.
func benchRMA[T float32 | float64](w *mpi.Comm, name string) error {
	size, iters, err := benchSettings()
	if err != nil {
		return err
	}
	n := size / int(unsafe.Sizeof(T(0)))
	win, _, err := mpi.WinAllocate[T](w, n)
	if err != nil {
		return err
	}
	buf := make([]T, n)
	op, err := rmaOp(win, name, buf)
	if err != nil {
		return err
	}
	epochs := name == "lock"
	if w.Rank() == 0 && !epochs {
		if err := win.Lock(mpi.LockShared, 1); err != nil {
			return err
		}
	}
	round := func(n int) error {
		for i := 0; w.Rank() == 0 && i < n; i++ {
			if err := op(); err != nil {
				return err
			}
			if epochs {
				continue
			}
			if err := win.Flush(1); err != nil {
				return err
			}
		}
		return nil
	}
	stop, err := startProfile(w)
	if err != nil {
		return err
	}
	secs, err := timeRounds(w, iters, round)
	stop()
	if err != nil {
		return err
	}
	if w.Rank() == 0 {
		fmt.Printf("rma_ns=%.1f\n", secs/float64(iters)*1e9)
	}
	if w.Rank() == 0 && !epochs {
		if err := win.Unlock(1); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	return win.Free()
}

// rmaOp returns the operation of the benchmark named op on buf.
func rmaOp[T float32 | float64](win *mpi.Win, op string, buf []T) (func() error, error) {
	switch op {
	case "put":
		return func() error { return mpi.Put(win, buf, 1, 0) }, nil
	case "get":
		return func() error { return mpi.Get(win, buf, 1, 0) }, nil
	case "acc":
		return func() error { return mpi.Accumulate(win, buf, 1, 0, mpi.Sum) }, nil
	case "lock":
		return func() error {
			return errors.Join(win.Lock(mpi.LockExclusive, 1), mpi.Put(win, buf, 1, 0), win.Unlock(1))
		}, nil
	}
	return nil, fmt.Errorf("%s=%q: want put, get, acc, acc64 or lock", envBenchRMA, op)
}

// startProfile starts rank 0's CPU profile when MPI_BENCH_CPUPROFILE
// names a file, and returns what stops it.
func startProfile(w *mpi.Comm) (stop func(), err error) {
	path := os.Getenv(envBenchProfile)
	if path == "" || w.Rank() != 0 {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
