package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

// The MPI programs that compare the NICs' timing profiles (profiles.go):
// one job runs a ping-pong of small messages and one of long messages
// between ranks 0 and 1 (the others wait), then a loop of barriers on
// every rank. Rank 0 reports the figures on a line that starts with
// nicPrefix.

// nicPrefix starts the line on which the NIC worker's rank 0 reports.
const nicPrefix = "NIC "

// nicResult is what the NIC worker's rank 0 reports: µs and MB/s.
type nicResult struct {
	Latency   float64 `json:"latency_usec"`   // half the small ping-pong's round trip
	Bandwidth float64 `json:"bandwidth_mbps"` // long messages: bytes over half the round trip
	Barrier   float64 `json:"barrier_usec"`   // one MPI_Barrier
}

// nicWorker is one process of a NIC comparison job.
func nicWorker(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("thesis nicworker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	small := fs.Int("small", 8, "small message size in bytes")
	long := fs.Int("long", 1<<20, "long message size in bytes")
	reps := fs.Int("reps", 200, "round trips or barriers per sample")
	samples := fs.Int("samples", 3, "samples (the median is reported)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "thesis nicworker: %v\n", err)
		return 1
	}
	if err := mpi.Init(); err != nil {
		return fail(err)
	}
	world := mpi.World()
	res, err := nicFigures(world, *small, *long, *reps, *samples)
	if err != nil {
		fmt.Fprintf(stderr, "thesis nicworker: rank %d: %v\n", world.Rank(), err)
		world.Abort(1)
	}
	if world.Rank() == 0 {
		line, _ := json.Marshal(res)
		fmt.Fprintf(stdout, "%s%s\n", nicPrefix, line)
	}
	if err := mpi.Finalize(); err != nil {
		return fail(err)
	}
	return 0
}

// nicFigures measures the three figures; they are complete on rank 0.
func nicFigures(world *mpi.Comm, small, long, reps, samples int) (nicResult, error) {
	var r nicResult
	if world.Size() < 2 {
		return r, fmt.Errorf("%d processes: the ping-pong needs 2", world.Size())
	}
	rtt, err := pingPongRTT(world, small, reps, samples)
	if err != nil {
		return r, err
	}
	r.Latency = float64(rtt) / 2e3
	rtt, err = pingPongRTT(world, long, max(reps/20, 2), samples)
	if err != nil {
		return r, err
	}
	r.Bandwidth = float64(long) / (float64(rtt) / 2e9) / 1e6
	bar, err := barrierTime(world, reps, samples)
	r.Barrier = float64(bar) / 1e3
	return r, err
}

// pingPongRTT runs a ping-pong of size bytes between ranks 0 and 1 and
// returns the median round trip of samples batches of reps (on rank 0);
// the other ranks only take part in the barrier that ends it.
func pingPongRTT(world *mpi.Comm, size, reps, samples int) (time.Duration, error) {
	const tag = 3
	buf := make([]byte, size)
	var times []time.Duration
	for s := -1; s < samples; s++ { // sample -1 warms up
		start := mpi.Wtime()
		for range reps {
			switch world.Rank() {
			case 0:
				if err := mpi.Send(world, buf, 1, tag); err != nil {
					return 0, err
				}
				if _, err := mpi.Recv(world, buf, 1, tag); err != nil {
					return 0, err
				}
			case 1:
				if _, err := mpi.Recv(world, buf, 0, tag); err != nil {
					return 0, err
				}
				if err := mpi.Send(world, buf, 0, tag); err != nil {
					return 0, err
				}
			}
		}
		if s >= 0 {
			times = append(times, time.Duration((mpi.Wtime()-start)*1e9)/time.Duration(reps))
		}
	}
	if err := mpi.Barrier(world); err != nil {
		return 0, err
	}
	return medianDuration(times), nil
}

// barrierTime returns the median time of one MPI_Barrier over samples
// batches of reps barriers.
func barrierTime(world *mpi.Comm, reps, samples int) (time.Duration, error) {
	var times []time.Duration
	for s := -1; s < samples; s++ {
		start := mpi.Wtime()
		for range reps {
			if err := mpi.Barrier(world); err != nil {
				return 0, err
			}
		}
		if s >= 0 {
			times = append(times, time.Duration((mpi.Wtime()-start)*1e9)/time.Duration(reps))
		}
	}
	return medianDuration(times), nil
}

func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
