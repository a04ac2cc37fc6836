package mpi_test

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// Collective benchmarks. Run with
//
//	go test -run XXX -bench 'Barrier|Allreduce|Bcast' -count 5 ./mpi | benchstat -
//
// Each starts a job through mpirun; every rank times b.N operations after
// a warm-up and rank 0 reports the slowest rank's time per operation
// (ns/op of the collective, as IMB's t_max).

const envBenchColl = "MPI_BENCH_COLL"

var collNs = regexp.MustCompile(`coll_ns=([0-9.]+)`)

func benchCollective(b *testing.B, np int, coll string, size int, flags ...string) {
	args := append([]string{"-np", strconv.Itoa(np), "-timeout", jobTimeout.String()}, flags...)
	args = append(args, self)
	r := mpirun(b, []string{envScenario + "=bench-coll", envBenchColl + "=" + coll,
		envBenchSize + "=" + strconv.Itoa(size), envBenchIters + "=" + strconv.Itoa(b.N)}, args...)
	m := collNs.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		b.Fatalf("%s job failed:\n%v", coll, r)
	}
	ns, _ := strconv.ParseFloat(m[1], 64)
	b.ReportMetric(ns, "ns/"+coll)
	if size > 0 {
		b.ReportMetric(float64(size)/ns*1e3, "MB/s")
	}
}

// BenchmarkBarrier compares the NIC-assisted barrier (the synchronisation
// network's barrier controller) with the software ones. Target at np=2:
// ≤ 500 ns for the best (Open MPI 4.1.4: 490 ns on this machine kind).
func BenchmarkBarrier(b *testing.B) {
	for _, np := range []int{2, 4, 8} {
		for _, alg := range []string{"nic", "dissemination", "binomial"} {
			b.Run(fmt.Sprintf("np=%d/%s", np, alg), func(b *testing.B) {
				benchCollective(b, np, "barrier", 0, "-coll", "barrier="+alg)
			})
		}
	}
}

// BenchmarkAllreduce8B: target ≤ 600 ns at np=2 (Open MPI: 510 ns).
func BenchmarkAllreduce8B(b *testing.B) {
	for _, np := range []int{2, 4} {
		b.Run(fmt.Sprintf("np=%d", np), func(b *testing.B) { benchCollective(b, np, "allreduce", 8) })
	}
	b.Run("np=2/no-offload", func(b *testing.B) { benchCollective(b, 2, "allreduce", 8, "-no-offload") })
	b.Run("np=2/recursive-doubling", func(b *testing.B) {
		benchCollective(b, 2, "allreduce", 8, "-coll", "allreduce=recursive-doubling")
	})
}

// BenchmarkAllreduce1MiB: target ≤ 400 µs at np=2.
func BenchmarkAllreduce1MiB(b *testing.B) {
	for _, alg := range []string{"ring", "recursive-doubling", "reduce-bcast"} {
		b.Run("np=2/"+alg, func(b *testing.B) {
			benchCollective(b, 2, "allreduce", 1<<20, "-coll", "allreduce="+alg)
		})
	}
}

// BenchmarkBcast compares multicast with the software broadcasts.
func BenchmarkBcast(b *testing.B) {
	for _, size := range []int{8, 1 << 20} {
		for _, np := range []int{2, 4} {
			for _, alg := range []string{"nic", "binomial", "scatter-allgather"} {
				b.Run(fmt.Sprintf("%dB/np=%d/%s", size, np, alg), func(b *testing.B) {
					benchCollective(b, np, "bcast", size, "-coll", "bcast="+alg)
				})
			}
		}
	}
}

// BenchmarkIgather times a nonblocking gather to rank 0 waited for at
// once, IMB-NBC's pure mode, with a core each and beyond (np 4 on the
// 2-core VMs).
func BenchmarkIgather(b *testing.B) {
	for _, size := range []int{8, 1024} {
		for _, np := range []int{2, 4} {
			b.Run(fmt.Sprintf("%dB/np=%d", size, np), func(b *testing.B) { benchCollective(b, np, "igather", size) })
		}
	}
}

// scenarioBenchColl times MPI_BENCH_ITERS operations MPI_BENCH_COLL
// (barrier, allreduce of float64, bcast, or igather to rank 0 waited for
// at once) of MPI_BENCH_SIZE bytes, and
// rank 0 prints the slowest rank's time per operation.
func scenarioBenchColl(w *mpi.Comm) error {
	size, iters, err := benchSettings()
	if err != nil {
		return err
	}
	send, recv := make([]float64, size/8), make([]float64, size/8)
	buf := make([]byte, size)
	var op func() error
	switch coll := os.Getenv(envBenchColl); coll {
	case "barrier":
		op = w.Barrier
	case "allreduce":
		op = func() error { return mpi.Allreduce(w, send, recv, mpi.Sum) }
	case "bcast":
		op = func() error { return mpi.Bcast(w, buf, 0) }
	case "igather":
		all := make([]byte, size*w.Size())
		op = func() error { return waitFor(mpi.Igather(w, buf, all, 0)) }
	default:
		return fmt.Errorf("%s=%q: want barrier, allreduce, bcast or igather", envBenchColl, coll)
	}
	run := func(n int) error {
		for range n {
			if err := op(); err != nil {
				return err
			}
		}
		return nil
	}
	secs, err := timeRounds(w, iters, run)
	if err != nil {
		return err
	}
	per := []float64{secs / float64(iters) * 1e9}
	worst := []float64{0}
	if err := mpi.Reduce(w, per, worst, mpi.Max, 0); err != nil {
		return err
	}
	if w.Rank() == 0 {
		fmt.Printf("coll_ns=%.1f\n", worst[0])
	}
	return nil
}

// waitFor waits for the request r of a nonblocking call that returned
// err.
func waitFor(r *mpi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// TestCollectiveAllocs checks that a barrier, a small allreduce and an
// in-place alltoall, on the synchronisation network and in software, do
// not allocate, and that a nonblocking allreduce allocates less than a
// Runner and its scratch memory.
func TestCollectiveAllocs(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	runScenarioJob(t, 2, "coll-allocs")
	runScenarioJob(t, 2, "coll-allocs-soft", "-no-offload")
}

// collAllocs returns the scenario that measures the allocations of
// Barrier, of an 8-byte Allreduce and of an in-place Alltoall on every
// rank (all run the same number of calls), then those of an 8-byte
// Iallreduce (nonblockingScratch), queued on the communicator or on a
// Runner of its own (soft).
//
// An in-place Alltoall of 4 KiB blocks takes its scratch copy of the
// blocks from the communicator's arena, not a fresh buffer a call.
func collAllocs(soft bool) func(w *mpi.Comm) error {
	return func(w *mpi.Comm) error {
		if err := blockingAllocs(w); err != nil {
			return err
		}
		return nonblockingScratch(w, soft)
	}
}

// blockingAllocs checks that Barrier, an 8-byte Allreduce and an
// in-place Alltoall allocate nothing.
func blockingAllocs(w *mpi.Comm) error {
	send, recv := []float64{1}, []float64{0}
	blocks := make([]byte, 4<<10*w.Size())
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"Barrier", w.Barrier},
		{"Allreduce 8 B", func() error { return mpi.Allreduce(w, send, recv, mpi.Sum) }},
		{"Alltoall 4 KiB in place", func() error { return mpi.Alltoall(w, nil, blocks) }},
	} {
		var err error
		allocs := testing.AllocsPerRun(2000, func() {
			if e := c.f(); e != nil && err == nil {
				err = e
			}
		})
		if err != nil {
			return err
		}
		if allocs > 0 {
			return fmt.Errorf("%s: %.2f allocations per call, want 0", c.name, allocs)
		}
	}
	return nil
}

// nonblockingScratch checks that an 8-byte Iallreduce and its Wait
// allocate less than 2 KiB: a nonblocking operation's Runner (1.3 KiB)
// and its scratch memory (4 KiB or more) are those an earlier operation
// gave back; and, where the Request is given back, nothing, its
// collRequest going back with it, whether the operation queued on the
// communicator or ran on a Runner of its own (soft).
func nonblockingScratch(w *mpi.Comm, soft bool) error {
	const ops = 2000
	bytes, _, err := iallreduceAllocs(w, ops, false)
	if err != nil {
		return err
	}
	if per := bytes / ops; per >= 2<<10 {
		return fmt.Errorf("Iallreduce 8 B: %d bytes allocated a call, want less than 2 KiB", per)
	}
	// With its Request given back, an operation allocates nothing: its
	// collRequest goes back with the Request, and the arguments of one on
	// a Runner of its own ride in the Runner's softRun (collArgs), not in
	// closures.
	bytes, objects, err := iallreduceAllocs(w, ops, true)
	if err != nil {
		return err
	}
	// The software path's softRun (a Runner and its scratch memory, in a
	// sync.Pool) is allocated again after a collection empties the pool:
	// a few objects of kilobytes in a run, where the queued path
	// allocates a batch of the caches now and then.
	perBytes, perObjects := bytes/ops, float64(objects)/ops
	if !soft && perBytes > 16 || soft && perObjects > 0.05 {
		return fmt.Errorf("Iallreduce 8 B, its Request given back: %d bytes and %.3f objects a call, want none",
			perBytes, perObjects)
	}
	return nil
}

// iallreduceAllocs runs ops 8-byte Iallreduces on w, each waited for
// at once and its Request given back if release, and returns the bytes
// and the objects they allocated.
func iallreduceAllocs(w *mpi.Comm, ops int, release bool) (bytes, objects uint64, err error) {
	send, recv := []float64{1}, []float64{0}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range ops {
		r, err := mpi.Iallreduce(w, send, recv, mpi.Sum)
		if err != nil {
			return 0, 0, err
		}
		if _, err := r.Wait(); err != nil {
			return 0, 0, err
		}
		if release {
			if err := r.Release(); err != nil {
				return 0, 0, err
			}
		}
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs, nil
}

func init() {
	scenarios["bench-coll"] = scenarioBenchColl
	scenarios["coll-allocs"] = collAllocs(false)
	scenarios["coll-allocs-soft"] = collAllocs(true)
}
