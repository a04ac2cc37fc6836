package slurmtest_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/mpiruntest"
	"github.com/rhinet-go/martini/internal/netns"
	"github.com/rhinet-go/martini/internal/peernet"
	"github.com/rhinet-go/martini/internal/slurmtest"
	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks"
	"github.com/rhinet-go/martini/npb"
)

// npbClass is the class of the NPB kernels that the tests run under srun:
// S in the suite; A for the figures across two nodes, beside one
// (go test ./internal/slurmtest -run TestSrunTwoNodes/npb -npb-class A -v).
var npbClass = flag.String("npb-class", "S", "class of the NPB kernels run under srun")

// envScenario names the scenario that the test binary runs as an MPI
// program under srun instead of running the tests.
const envScenario = "SLURMTEST_SCENARIO"

func TestMain(m *testing.M) {
	if name := os.Getenv(envScenario); name != "" {
		if err := scenarios[name](); err != nil {
			fmt.Fprintf(os.Stderr, "scenario %s: %v\n", name, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var scenarios = map[string]func() error{
	"hello": hello,
	"abort": abortRank1,
	"kill":  killRank1,
	"peers": peers,
}

// peers reports the network of each rank and, on rank 0, the bytes its
// TCP network sent to each peer (peernet.Run).
func peers() error {
	out, err := peernet.Run()
	fmt.Print(out)
	return err
}

// hello reports rank and size, and the sum of the ranks by Allreduce.
func hello() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	sum := make([]int64, 1)
	if err := mpi.Allreduce(w, []int64{int64(w.Rank())}, sum, mpi.Sum); err != nil {
		return err
	}
	fmt.Printf("rank %d of %d: sum %d\n", w.Rank(), w.Size(), sum[0])
	return mpi.Finalize()
}

// abortRank1: rank 1 calls Abort(7) while rank 0 computes for 30 s
// before its Barrier: nothing but the launcher, told by Abort through
// PMI, can end it sooner (a rank already in Barrier with rank 1 would
// also see rank 1's connection reset).
func abortRank1() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if w.Rank() == 1 {
		time.Sleep(200 * time.Millisecond)
		w.Abort(7)
	}
	time.Sleep(30 * time.Second)
	err := mpi.Barrier(w)
	return fmt.Errorf("rank %d: Barrier returned (%v) although rank 1 aborted", w.Rank(), err)
}

// killRank1: rank 1 is killed while the others wait in Barrier.
func killRank1() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if w.Rank() == 1 {
		time.Sleep(200 * time.Millisecond)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	err := mpi.Barrier(w)
	return fmt.Errorf("rank %d: Barrier returned (%v) although rank 1 was killed", w.Rank(), err)
}

// Jobs of this runtime under a real srun --mpi=pmi2: every rank knows its
// rank and size, collectives work, Abort and a killed rank end the job.
func TestSrunPMI2(t *testing.T) {
	c := slurmtest.Start(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	j := &pmi2Jobs{c: c, self: self}
	t.Run("hello", j.testHello)
	t.Run("shared memory", j.testSharedMemory)
	t.Run("collectives example", j.testCollectivesExample)
	t.Run("npb", j.testNPB)
	t.Run("abort", j.testAbort)
	t.Run("killed", j.testKilled)
}

// pmi2Jobs runs jobs of this test binary, or of other programs, under
// srun --mpi=pmi2 on c.
type pmi2Jobs struct {
	c    *slurmtest.Cluster
	self string
}

// srun runs scenario of this test binary as n tasks.
func (j *pmi2Jobs) srun(t *testing.T, scenario string, n int) (string, time.Duration, error) {
	return j.c.Srun(time.Minute, []string{envScenario + "=" + scenario},
		"-n", fmt.Sprint(n), "--mpi=pmi2", "--overcommit", j.self)
}

// testHello: every rank knows its rank and size, and a reduction works.
func (j *pmi2Jobs) testHello(t *testing.T) {
	const n = 3
	out, _, err := j.srun(t, "hello", n)
	if err != nil {
		t.Fatalf("srun: %v\n%s", err, out)
	}
	for r := range n {
		contains(t, out, fmt.Sprintf("rank %d of %d: sum %d\n", r, n, n*(n-1)/2))
	}
}

// testSharedMemory: the ranks of one node learn that they share it, map
// one segment (made by the node's first rank) and talk over martini, not
// TCP.
func (j *pmi2Jobs) testSharedMemory(t *testing.T) {
	const n = 3
	out, _, err := j.srun(t, "peers", n)
	if err != nil {
		t.Fatalf("srun: %v\n%s", err, out)
	}
	for r := range n {
		contains(t, out, fmt.Sprintf("rank %d of %d: network martini\n", r, n))
	}
	for p := 1; p < n; p++ {
		contains(t, out, fmt.Sprintf("peer %d: tcp bytes 0\n", p))
	}
}

// testCollectivesExample: the collectives example prints under srun what
// it prints under mpirun.
func (j *pmi2Jobs) testCollectivesExample(t *testing.T) {
	const n = 4
	mpirun, prog := mpiruntest.Program(t, "github.com/rhinet-go/martini/examples/collectives")
	code, want := mpiruntest.Run(t, mpirun, "-np", fmt.Sprint(n), prog)
	if code != 0 {
		t.Fatalf("mpirun -np %d: exit %d\n%s", n, code, want)
	}
	out, _, err := j.c.Srun(time.Minute, nil, "-n", fmt.Sprint(n), "--mpi=pmi2", "--overcommit", prog)
	if err != nil {
		t.Fatalf("srun: %v\n%s", err, out)
	}
	if got, want := sortedLines(out), sortedLines(want); got != want {
		t.Errorf("srun printed\n%s\nwant, as under mpirun,\n%s", got, want)
	}
}

// testNPB: CG and MG verify as 4 processes.
func (j *pmi2Jobs) testNPB(t *testing.T) {
	prog := npbProgram(t)
	for _, k := range []string{"CG", "MG"} {
		out, _, err := j.c.Srun(5*time.Minute, nil, "-n", "4", "--mpi=pmi2", "--overcommit", prog, "-class", *npbClass, "-results", "", k)
		if r := verified(t, k, out, err); r.NP != 4 {
			t.Errorf("%s ran as %d processes, want 4", k, r.NP)
		}
	}
}

// testAbort: a rank's Abort ends the job.
func (j *pmi2Jobs) testAbort(t *testing.T) {
	out, took, err := j.srun(t, "abort", 2)
	ended(t, out, took, err, abortLimit, "rank 1 called Abort(7)")
}

// testKilled: a killed rank ends the job.
func (j *pmi2Jobs) testKilled(t *testing.T) {
	out, took, err := j.srun(t, "kill", 2)
	ended(t, out, took, err, killLimit, "task 1: Killed")
	// srun does not end the step when a task dies: rank 0, which
	// shares rank 1's node and memory, ends it, naming rank 1.
	if !strings.Contains(out, "mpi: rank 1 (pid ") || !strings.Contains(out, "ended without finalizing") {
		t.Errorf("the output does not say that rank 0 ended the job for rank 1:\n%s", out)
	}
}

// npbProgram builds the NPB command for t's jobs.
func npbProgram(t *testing.T) string {
	t.Helper()
	_, prog := mpiruntest.Program(t, "github.com/rhinet-go/martini/npb/cmd/npb")
	return prog
}

// verified fails t unless out, the output of the NPB kernel k's job that
// ended with err, reports a successful verification; it returns the
// report.
func verified(t *testing.T, k, out string, err error) npb.Report {
	t.Helper()
	r, perr := npb.ParseReport([]byte(out))
	if err != nil || perr != nil || !r.Verified {
		t.Errorf("%s class %s: %v, %v, verified %v:\n%s", k, *npbClass, err, perr, r.Verified, out)
	}
	return r
}

// Jobs across two nodes of a real Slurm (two network namespaces joined by
// a veth pair, a slurmd in each under a host name of its own): the ranks
// of a node share memory, and talk to the other node's over TCP; Abort
// and a killed rank end the whole step; NPB verifies across the nodes.
func TestSrunTwoNodes(t *testing.T) {
	c := slurmtest.StartOn(t, netns.New(t, 2))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Four ranks, two a node: ranks 0 and 1 on node0 (block distribution).
	srun := func(scenario string, flags ...string) (string, time.Duration, error) {
		args := append([]string{"-N", "2", "-n", "4", "--mpi=pmi2"}, flags...)
		return c.Srun(time.Minute, []string{envScenario + "=" + scenario}, append(args, self)...)
	}
	t.Run("networks", func(t *testing.T) {
		out, _, err := srun("peers")
		if err != nil {
			t.Fatalf("srun: %v\n%s", err, out)
		}
		acrossNodes(t, out)
	})
	t.Run("hello", func(t *testing.T) {
		out, _, err := srun("hello")
		if err != nil {
			t.Fatalf("srun: %v\n%s", err, out)
		}
		for r := range 4 {
			contains(t, out, fmt.Sprintf("rank %d of 4: sum 6\n", r))
		}
	})
	// Rank 1 aborts (or is killed) on node1 (cyclic distribution), rank 0
	// computing on node0.
	t.Run("abort", func(t *testing.T) {
		out, took, err := srun("abort", "--distribution=cyclic")
		ended(t, out, took, err, abortLimit, "rank 1 called Abort(7)")
	})
	t.Run("killed", func(t *testing.T) {
		out, took, err := srun("kill", "--distribution=cyclic")
		ended(t, out, took, err, killLimit, "node1: task 1: Killed")
	})
	t.Run("npb", func(t *testing.T) { npbBesideOneNode(t, c) })
}

// abortLimit and killLimit bound the time srun takes to end a step after
// a rank's Abort, and after a rank is killed: well below the 30 s that
// rank 0 computes for (abortRank1), with room for the start of a step on
// two nodes of a 2-core machine loaded by the other packages' tests.
const (
	abortLimit = 10 * time.Second
	killLimit  = 10 * time.Second
)

// ended fails t unless the step whose srun printed out and ended with err
// after took ended non-zero within limit, and out names the rank (mark).
func ended(t *testing.T, out string, took time.Duration, err error, limit time.Duration, mark string) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("srun: %v, want a non-zero exit\n%s", err, out)
	}
	if took > limit {
		t.Errorf("srun took %v to end the step, want %v at most", took, limit)
	}
	if !strings.Contains(out, mark) {
		t.Errorf("the output does not name the rank (%q):\n%s", mark, out)
	}
}

// contains fails t unless out holds want.
func contains(t *testing.T, out, want string) {
	t.Helper()
	if !strings.Contains(out, want) {
		t.Errorf("no %q in the output:\n%s", want, out)
	}
}

// acrossNodes checks the report of the "peers" scenario (peernet.Run) of
// 4 ranks, 2 a node: every rank has both networks, rank 0 reaches rank 1
// without TCP, and ranks 2 and 3 over TCP.
func acrossNodes(t *testing.T, out string) {
	t.Helper()
	for r := range 4 {
		contains(t, out, fmt.Sprintf("rank %d of 4: network martini+tcp\n", r))
	}
	contains(t, out, "peer 1: tcp bytes 0\n")
	for p := 2; p < 4; p++ {
		var got int
		if i := strings.Index(out, fmt.Sprintf("peer %d: tcp bytes ", p)); i >= 0 {
			fmt.Sscanf(out[i:], fmt.Sprintf("peer %d: tcp bytes %%d", p), &got)
		}
		if got < peernet.Bytes {
			t.Errorf("rank 0's TCP network sent %d bytes to rank %d on the other node, want %d at least:\n%s", got, p, peernet.Bytes, out)
		}
	}
}

// npbBesideOneNode runs NPB CG, MG, FT and LU as 4 processes across the
// two nodes of c and on one, checks that they verify and logs their Mop/s.
func npbBesideOneNode(t *testing.T, c *slurmtest.Cluster) {
	prog := npbProgram(t)
	for _, k := range []string{"CG", "MG", "FT", "LU"} {
		job := func(nodes string) npb.Report {
			out, _, err := c.Srun(10*time.Minute, nil, "-N", nodes, "-n", "4", "--mpi=pmi2", "--overcommit",
				prog, "-class", *npbClass, "-results", "", k)
			return verified(t, k, out, err)
		}
		across, one := job("2"), job("1")
		t.Logf("%s class %s, 4 processes: %.2f Mop/s across two nodes, %.2f on one", k, *npbClass, across.Mops, one.Mops)
	}
}

// srun without --mpi=pmi2 (the cluster's MpiDefault is none) starts
// singletons: each runs alone, and says so once on stderr with the fix.
func TestSrunWithoutPMI(t *testing.T) {
	c := slurmtest.Start(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := c.Srun(time.Minute, []string{envScenario + "=hello"}, "-n", "2", "--overcommit", self)
	if err != nil {
		t.Fatalf("srun: %v\n%s", err, out)
	}
	if n := strings.Count(out, "rank 0 of 1: sum 0\n"); n != 2 {
		t.Errorf("%d singletons reported, want 2:\n%s", n, out)
	}
	if n := strings.Count(out, "runs alone"); n != 2 || !strings.Contains(out, "srun --mpi=pmi2") {
		t.Errorf("%d warnings that the process runs alone, want 2 naming srun --mpi=pmi2:\n%s", n, out)
	}
}

// sortedLines returns the lines of s sorted, for outputs whose ranks
// print in any order.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
