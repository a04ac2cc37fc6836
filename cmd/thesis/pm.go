package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

// The PM round trips of thesis ch. 8: a ping-pong of small messages between
// ranks 0 and 1 of a job of 2 to 16 processes, through llc's PM/RHiNET
// eager transport (a ring per peer, every ring checked on every poll) or
// PM/RHiNET-VP's (one VPUSH queue), selected with mpirun -eager. The
// processes other than 0 and 1 wait, asleep, for the end.

// pmPrefix starts the line on which the PM worker's rank 0 reports.
const pmPrefix = "PM "

// PM eager transports (mpirun -eager) and the job sizes measured.
var (
	pmTransports = []string{"pm", "vp"}
	pmProcs      = []int{2, 4, 8, 16}
)

// pmResult is what the PM worker's rank 0 reports.
type pmResult struct {
	RTT float64 `json:"rtt_usec"` // median round trip
}

// pmWorker is one process of a PM job.
func pmWorker(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("thesis pmworker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.Int("size", 8, "message size in bytes")
	reps := fs.Int("reps", 2000, "round trips per sample")
	samples := fs.Int("samples", 5, "samples (the median is reported)")
	burst := fs.Int("burst", 0, "send this many messages one way back to back a sample, and report the time of one, instead of the round trip")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "thesis pmworker: %v\n", err)
		return 1
	}
	if err := mpi.Init(); err != nil {
		return fail(err)
	}
	world := mpi.World()
	run := func() (time.Duration, error) { return pmPingPong(world, *size, *reps, *samples) }
	if *burst > 0 {
		run = func() (time.Duration, error) { return pmBurst(world, *size, *burst, *samples) }
	}
	rtt, err := run()
	if err != nil {
		fmt.Fprintf(stderr, "thesis pmworker: rank %d: %v\n", world.Rank(), err)
		world.Abort(1)
	}
	if world.Rank() == 0 {
		line, _ := json.Marshal(pmResult{RTT: float64(rtt) / 1e3})
		fmt.Fprintf(stdout, "%s%s\n", pmPrefix, line)
	}
	if err := mpi.Finalize(); err != nil {
		return fail(err)
	}
	return 0
}

// pmPingPong runs the ping-pong on ranks 0 and 1 and returns the median
// round trip (on rank 0); the other ranks wait for rank 0's end message.
func pmPingPong(world *mpi.Comm, size, reps, samples int) (time.Duration, error) {
	const pingTag = 1
	if world.Size() < 2 {
		return 0, fmt.Errorf("%d processes: the ping-pong needs 2", world.Size())
	}
	buf := make([]byte, size)
	end := []byte{1}
	switch world.Rank() {
	case 0:
		var times []time.Duration
		for s := -1; s < samples; s++ { // sample -1 warms up
			start := mpi.Wtime()
			for range reps {
				if err := mpi.Send(world, buf, 1, pingTag); err != nil {
					return 0, err
				}
				if _, err := mpi.Recv(world, buf, 1, pingTag); err != nil {
					return 0, err
				}
			}
			if s >= 0 {
				times = append(times, time.Duration((mpi.Wtime()-start)*1e9)/time.Duration(reps))
			}
		}
		return endSamples(world, times)
	case 1:
		for range (samples + 1) * reps {
			if _, err := mpi.Recv(world, buf, 0, pingTag); err != nil {
				return 0, err
			}
			if err := mpi.Send(world, buf, 0, pingTag); err != nil {
				return 0, err
			}
		}
	}
	_, err := mpi.Recv(world, end, 0, endTag)
	return 0, err
}

// pmBurst sends burst messages of size bytes from rank 0 to rank 1 back
// to back, which rank 1 answers with one message once it has them all, and
// returns the median time of one message (on rank 0): the burst's
// throughput is size over it (thesis Fig 8.8).
func pmBurst(world *mpi.Comm, size, burst, samples int) (time.Duration, error) {
	const burstTag, doneTag = 3, 4
	if world.Size() < 2 {
		return 0, fmt.Errorf("%d processes: the burst needs 2", world.Size())
	}
	buf, done := make([]byte, size), []byte{1}
	switch world.Rank() {
	case 0:
		var times []time.Duration
		for s := -1; s < samples; s++ { // sample -1 warms up
			start := mpi.Wtime()
			for range burst {
				if err := mpi.Send(world, buf, 1, burstTag); err != nil {
					return 0, err
				}
			}
			if _, err := mpi.Recv(world, done, 1, doneTag); err != nil {
				return 0, err
			}
			if s >= 0 {
				times = append(times, time.Duration((mpi.Wtime()-start)*1e9)/time.Duration(burst))
			}
		}
		return endSamples(world, times)
	case 1:
		for range samples + 1 {
			for range burst {
				if _, err := mpi.Recv(world, buf, 0, burstTag); err != nil {
					return 0, err
				}
			}
			if err := mpi.Send(world, done, 0, doneTag); err != nil {
				return 0, err
			}
		}
	}
	_, err := mpi.Recv(world, done, 0, endTag)
	return 0, err
}

// endTag tags the end message of the PM worker's rank 0 to the others.
const endTag = 2

// endSamples, on rank 0, sends the other ranks the end message they
// wait for and returns the median of the samples.
func endSamples(world *mpi.Comm, times []time.Duration) (time.Duration, error) {
	end := []byte{1}
	for p := 1; p < world.Size(); p++ {
		if err := mpi.Send(world, end, p, endTag); err != nil {
			return 0, err
		}
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

// runPM runs a PM job of np processes under profile with eager transport
// transport (and mpirun's flags vt) and returns its round trip (µs), or with
// the worker's -burst the time of one message of a burst; worker are the PM
// worker's flags.
func runPM(ctx context.Context, mpirun, self, profile, transport string, vt []string, np int, quick bool, timeout time.Duration, stderr io.Writer, worker ...string) (float64, error) {
	args := append([]string{"-np", strconv.Itoa(np), "-bind-to", "core", "-profile", profile, "-eager", transport}, vt...)
	args = append(append(args, "-timeout", timeout.String(), self, "pmworker"), worker...)
	if quick {
		args = append(args, "-reps", "200", "-samples", "3")
	}
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Stderr = stderr
	// Ranks 0 and 1 wait by spinning, as with a core each, however many
	// ranks the job has: the others wait asleep and leave them the CPUs.
	cmd.Env = append(os.Environ(), "MARTINI_SPIN=4000", "MARTINI_YIELD=200")
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("mpirun -np %d -profile %s -eager %s: %w", np, profile, transport, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), pmPrefix)
		if !ok {
			fmt.Fprintln(stderr, sc.Text())
			continue
		}
		var r pmResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return 0, fmt.Errorf("reading the %s round trip: %w", transport, err)
		}
		return r.RTT, nil
	}
	return 0, fmt.Errorf("the %s job of %d processes reported no round trip", transport, np)
}

// measurePM fills r.PM with the round trips of every PM transport and job
// size under profile.
func measurePM(ctx context.Context, mpirun, self, profile string, vt []string, quick bool, timeout time.Duration, stderr io.Writer) (map[string]map[int]float64, error) {
	procs := pmProcs
	if quick {
		procs = procs[:2]
	}
	res := map[string]map[int]float64{}
	for _, tr := range pmTransports {
		res[tr] = map[int]float64{}
		for _, np := range procs {
			fmt.Fprintf(stderr, "thesis: %s profile: %s round trip, %d processes\n", profile, tr, np)
			v, err := runPM(ctx, mpirun, self, profile, tr, vt, np, quick, timeout, stderr)
			if err != nil {
				return nil, err
			}
			res[tr][np] = v
		}
	}
	return res, nil
}
