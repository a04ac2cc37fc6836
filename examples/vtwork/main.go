// Command vtwork measures what a virtual clock counts as computing
// against a known amount of work: every rank does the same scalar loop
// (-work passes over -kb KB of doubles) between Sendrecvs in a ring, -n
// times, and rank 0 prints, per rank, the loop's CPU time alone (back to
// back, before the ring), the clock's computing per interval (the -stats
// counters vt-compute-us and vt-compute-intervals of llc/martini), the
// loop's own CPU time per interval as the rank measures it between its
// calls, and the thread's voluntary and involuntary context switches per
// interval (getrusage RUSAGE_THREAD).
//
//	go run ./cmd/mpirun -np 4 -profile martini -clock virtual ./examples/vtwork
//
// Under -compute declared each interval also declares the loop's
// operations (mpi.Compute), and rank 0 prints the virtual time per
// interval, which no load moves.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
	"golang.org/x/sys/unix"
)

func main() {
	n := flag.Int("n", 2000, "intervals")
	work := flag.Int("work", 4, "passes over the array per interval")
	kb := flag.Int("kb", 16, "the array's size in KB")
	self := flag.Bool("self", false, "measure the loop's CPU time between the calls too (two more readings of the thread's CPU time per interval, which the clock counts)")
	flag.Parse()
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "vtwork:", err)
		os.Exit(1)
	}
	world := mpi.World()
	r, err := run(world, *n, *work, *kb*1024/8, *self)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vtwork: rank %d: %v\n", world.Rank(), err)
		world.Abort(1)
	}
	if err := report(world, r); err != nil {
		fmt.Fprintf(os.Stderr, "vtwork: rank %d: %v\n", world.Rank(), err)
		world.Abort(1)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "vtwork:", err)
		os.Exit(1)
	}
}

// result is one rank's figures, per interval, in ns (as float64s for the
// gather).
type result struct {
	alone, counted, k, self, vol, invol, virt float64
}

func (r result) slice() []float64 {
	return []float64{r.alone, r.counted, r.k, r.self, r.vol, r.invol, r.virt}
}

func run(world *mpi.Comm, n, work, elems int, measure bool) (result, error) {
	a := make([]float64, elems)
	for i := range a {
		a[i] = float64(i)
	}
	var sink float64
	ops := float64(2 * work * elems)
	t0 := threadCPU()
	for range n {
		sink += loop(a, work)
	}
	alone := float64(threadCPU()-t0) / float64(n)

	right, left := (world.Rank()+1)%world.Size(), (world.Rank()+world.Size()-1)%world.Size()
	out, in := make([]byte, 8), make([]byte, 8)
	c0, err := computing()
	if err != nil {
		return result{}, err
	}
	ru0 := rusage()
	v0 := mpi.Wtime()
	var self int64
	for range n {
		if measure {
			s := threadCPU()
			sink += loop(a, work)
			self += threadCPU() - s
		} else {
			sink += loop(a, work)
		}
		mpi.Compute(ops)
		if _, err := mpi.Sendrecv(world, out, right, 0, in, left, 0); err != nil {
			return result{}, err
		}
	}
	virt := (mpi.Wtime() - v0) * 1e9 / float64(n)
	ru1 := rusage()
	c1, err := computing()
	if err != nil {
		return result{}, err
	}
	if sink == 0.5 {
		fmt.Println(sink) // keeps the loop
	}
	k := float64(c1[1]-c0[1]) / float64(n)
	return result{
		alone:   alone,
		counted: float64(c1[0]-c0[0]) * 1e3 / float64(n),
		k:       k,
		self:    float64(self) / float64(n),
		vol:     float64(ru1.Nvcsw-ru0.Nvcsw) / float64(n),
		invol:   float64(ru1.Nivcsw-ru0.Nivcsw) / float64(n),
		virt:    virt,
	}, nil
}

// loop is the known work: passes scalar multiply-adds over a.
func loop(a []float64, passes int) float64 {
	s := 0.0
	for range passes {
		for i := range a {
			s += a[i] * 1.000001
			a[i] = s * 1e-9
		}
	}
	return s
}

// computing returns the clock's counters vt-compute-us and
// vt-compute-intervals (zeros when the job has no virtual clock).
func computing() ([2]uint64, error) {
	st, err := mpi.ReadStats()
	if err != nil {
		return [2]uint64{}, err
	}
	return [2]uint64{st.NetworkCounters["vt-compute-us"], st.NetworkCounters["vt-compute-intervals"]}, nil
}

func rusage() unix.Rusage {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return ru
}

func threadCPU() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}

func report(world *mpi.Comm, r result) error {
	all := make([]float64, 7*world.Size())
	if err := mpi.Gather(world, r.slice(), all, 0); err != nil {
		return err
	}
	if world.Rank() != 0 {
		return nil
	}
	fmt.Printf("# vtwork, %d processes; per interval: loop alone, clock's computing (in how many of its intervals), loop between calls (µs); context switches voluntary, involuntary; virtual time (µs)\n", world.Size())
	for p := range world.Size() {
		v := all[7*p : 7*p+7]
		fmt.Printf("rank %2d  alone %7.2f  counted %7.2f in %4.2f  self %7.2f  vcsw %5.2f  ivcsw %5.2f  virtual %8.2f\n",
			p, v[0]/1e3, v[1]/1e3, v[2], v[3]/1e3, v[4], v[5], v[6]/1e3)
	}
	return nil
}
