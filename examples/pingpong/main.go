// Command pingpong measures point-to-point latency and bandwidth between
// ranks 0 and 1, as the PingPong test of the Intel MPI Benchmarks does:
// rank 0 sends a message, rank 1 sends it back; half the round-trip time is
// the latency. Each size is timed in several runs and the median is shown.
//
//	go run ./cmd/mpirun -np 2 ./examples/pingpong
//	go run ./cmd/mpirun -np 2 -eager-limit 4096 ./examples/pingpong -max 1048576
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

func main() {
	minSize := flag.Int("min", 0, "smallest message size in bytes")
	maxSize := flag.Int("max", 4<<20, "largest message size in bytes")
	runs := flag.Int("runs", 5, "timed runs per size (the median is reported)")
	budget := flag.Duration("time", 100*time.Millisecond, "time budget per run and size")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of each rank to `prefix`.RANK")
	flag.Parse()

	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "pingpong:", err)
		os.Exit(1)
	}
	world := mpi.World()
	if *cpuprofile != "" {
		f, err := os.Create(fmt.Sprintf("%s.%d", *cpuprofile, world.Rank()))
		if err != nil {
			fmt.Fprintln(os.Stderr, "pingpong:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if world.Size() < 2 {
		fmt.Fprintln(os.Stderr, "pingpong: needs at least 2 processes (mpirun -np 2)")
		mpi.Finalize()
		os.Exit(2)
	}
	if err := run(world, *minSize, *maxSize, *runs, *budget); err != nil {
		fmt.Fprintf(os.Stderr, "pingpong: rank %d: %v\n", world.Rank(), err)
		world.Abort(1)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "pingpong:", err)
		os.Exit(1)
	}
}

func sizes(lo, hi int) []int {
	var s []int
	if lo == 0 {
		s = append(s, 0)
		lo = 1
	}
	for n := lo; n <= hi; n *= 2 {
		s = append(s, n)
	}
	return s
}

func run(world *mpi.Comm, lo, hi, runs int, budget time.Duration) error {
	rank := world.Rank()
	buf := make([]byte, max(hi, 1))
	if rank == 0 {
		st, _ := mpi.ReadStats()
		fmt.Printf("# PingPong, %d processes, eager limit %d B, rendezvous %s, median of %d runs\n",
			world.Size(), st.EagerLimit, st.Rendezvous, runs)
		fmt.Printf("%10s %12s %10s %12s\n", "#bytes", "#repetitions", "t[usec]", "Mbytes/sec")
	}
	for _, n := range sizes(lo, hi) {
		msg := buf[:n]
		// Calibrate the repetitions on rank 0 and share them.
		reps := []int64{0}
		probe := max(4, min(1000, (8<<20)/max(n, 1)))
		if _, err := pingpong(world, msg, probe); err != nil { // warm up
			return err
		}
		t, err := pingpong(world, msg, probe)
		if err != nil {
			return err
		}
		reps[0] = max(10, min(1000000, int64(budget.Seconds()/max(t, 1e-9)/2)))
		if rank <= 1 {
			if err := shareReps(world, reps); err != nil {
				return err
			}
		}
		var samples []float64
		for r := 0; r < runs; r++ {
			if err := mpi.Barrier(world); err != nil {
				return err
			}
			t, err := pingpong(world, msg, int(reps[0]))
			if err != nil {
				return err
			}
			samples = append(samples, t)
		}
		if rank == 0 {
			slices.Sort(samples)
			med := samples[len(samples)/2]
			usec := med * 1e6
			mbs := 0.0
			if n > 0 {
				mbs = float64(n) / med / 1e6
			}
			fmt.Printf("%10d %12d %10.3f %12.1f\n", n, reps[0], usec, mbs)
		}
	}
	return nil
}

// shareReps sends rank 0's repetition count to rank 1.
func shareReps(world *mpi.Comm, reps []int64) error {
	if world.Rank() == 0 {
		return mpi.Send(world, reps, 1, 99)
	}
	_, err := mpi.Recv(world, reps, 0, 99)
	return err
}

// pingpong runs reps round trips of msg between ranks 0 and 1 and returns
// the half round-trip time in seconds (on rank 0; other ranks return 0).
func pingpong(world *mpi.Comm, msg []byte, reps int) (float64, error) {
	switch world.Rank() {
	case 0:
		start := mpi.Wtime()
		for i := 0; i < reps; i++ {
			if err := mpi.Send(world, msg, 1, 1); err != nil {
				return 0, err
			}
			if _, err := mpi.Recv(world, msg, 1, 1); err != nil {
				return 0, err
			}
		}
		return (mpi.Wtime() - start) / float64(2*reps), nil
	case 1:
		for i := 0; i < reps; i++ {
			if _, err := mpi.Recv(world, msg, 0, 1); err != nil {
				return 0, err
			}
			if err := mpi.Send(world, msg, 0, 1); err != nil {
				return 0, err
			}
		}
	}
	return 0, nil
}
