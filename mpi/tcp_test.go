package mpi_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

// The scenarios that do not look at the NIC itself pass over the TCP
// network too: point-to-point of every size and datatype, ordering,
// probes, requests, errors, concurrency, every collective (in software)
// and communicators. Records travel over the stream (the vp eager
// transport, the default of a network without shared memory) and the
// rendezvous by remote write served by the target's progress.
func TestTCPNetwork(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"types", "sizes", "order", "probe", "requests", "procnull", "errors", "concurrency",
		"coll-move", "coll-reduce-int", "coll-reduce-float", "coll-reduce-user", "coll-nonblocking", "coll-mismatch",
		"comm-groups", "comm-isolation", "comm-concurrent", "comm-free-pending", "finalize-pending",
	} {
		for _, np := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/np=%d", name, np), func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, np, name, "-transport", "tcp")
			})
		}
	}
	t.Run("self/np=1", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 1, "self", "-transport", "tcp")
	})
	t.Run("no-finalize", func(t *testing.T) {
		// The data store tells mpirun how far a rank got, whatever its
		// network.
		t.Parallel()
		runFailure(t, 3, "fail-nofinalize", 1,
			`(?m)^mpirun: rank 1 \(pid \d+\) exited without calling MPI Finalize \(MPI was initialized\)$`, 10*time.Second,
			"-transport", "tcp")
	})
	t.Run("no-nic/np=2", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 2, "no-nic", "-transport", "tcp")
	})
	t.Run("panic", func(t *testing.T) {
		t.Parallel()
		runFailure(t, 3, "fail-panic", 2, `(?m)^mpirun: rank 1 \(pid \d+\) panicked`, 10*time.Second, "-transport", "tcp")
	})
	t.Run("rings/np=3", func(t *testing.T) {
		// The ring eager transport over TCP: rings in Go memory written by
		// frames, the connection protocol by remote compare-and-swap.
		t.Parallel()
		runScenarioJob(t, 3, "sizes", "-transport", "tcp", "-eager", "rings", "-rndv", "split")
	})
}

func init() { scenarios["no-nic"] = scenarioNoNIC }

// scenarioNoNIC checks that a process of a TCP-only job has not mapped the
// segment mpirun made: it opened no Martini NIC.
func scenarioNoNIC(w *mpi.Comm) error {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	if regexp.MustCompile(`memfd:martini-segment`).Match(maps) {
		return fmt.Errorf("rank %d mapped the job's segment over TCP alone", w.Rank())
	}
	return mpi.Barrier(w)
}

// envFirstColl names the collective of the first-coll scenario, and
// envFirstCollDir the directory where its odd ranks say they have left it.
const (
	envFirstColl    = "MPI_TEST_FIRST_COLL"
	envFirstCollDir = "MPI_TEST_FIRST_COLL_DIR"
)

func init() { scenarios["first-coll"] = scenarioFirstCollective }

// firstCollHold is how long the even ranks of first-coll stay outside MPI
// at most, waiting for the odd ranks to leave their collective: a limit
// reached only where the odd ranks cannot leave without the even ranks'
// later calls, the fault that the scenario finds.
const firstCollHold = 15 * time.Second

// scenarioFirstCollective runs one collective (envFirstColl: barrier,
// bcast or allreduce) as the job's first communication and prints when the
// rank left it (Unix nanoseconds, one clock on one machine). An odd rank
// then says so with a file in envFirstCollDir; an even rank stays outside
// MPI until every odd rank has (firstCollHold at most) and prints when it
// comes back: a rank whose collective is done must not need the even
// ranks to call MPI again.
func scenarioFirstCollective(w *mpi.Comm) error {
	coll, dir := os.Getenv(envFirstColl), os.Getenv(envFirstCollDir)
	if dir == "" {
		return fmt.Errorf("%s not set", envFirstCollDir)
	}
	var err error
	switch coll {
	case "barrier":
		err = mpi.Barrier(w)
	case "bcast":
		buf := []int64{int64(w.Rank())}
		if err = mpi.Bcast(w, buf, 0); err == nil && buf[0] != 0 {
			err = fmt.Errorf("Bcast from rank 0 gave %d", buf[0])
		}
	case "allreduce":
		got := []int64{0}
		err = mpi.Allreduce(w, []int64{int64(w.Rank())}, got, mpi.Sum)
		if n := int64(w.Size()); err == nil && got[0] != n*(n-1)/2 {
			err = fmt.Errorf("Allreduce gave %d, want %d", got[0], n*(n-1)/2)
		}
	default:
		return fmt.Errorf("%s=%q: want barrier, bcast or allreduce", envFirstColl, coll)
	}
	out := time.Now()
	if err != nil {
		return err
	}
	fmt.Printf("first-coll: rank %d: out %d\n", w.Rank(), out.UnixNano())
	if w.Rank()%2 == 1 {
		return os.WriteFile(filepath.Join(dir, fmt.Sprintf("out-%d", w.Rank())), nil, 0o644)
	}
	for limit := time.Now().Add(firstCollHold); time.Now().Before(limit); time.Sleep(time.Millisecond) {
		if left, err := filepath.Glob(filepath.Join(dir, "out-*")); err != nil || len(left) == w.Size()/2 {
			break
		}
	}
	fmt.Printf("first-coll: rank %d: back %d\n", w.Rank(), time.Now().UnixNano())
	return nil
}

var (
	firstCollLine = regexp.MustCompile(`(?m)^first-coll: rank (\d+): out (\d+)$`)
	firstCollBack = regexp.MustCompile(`(?m)^first-coll: rank (\d+): back (\d+)$`)
)

// checkFirstCollective checks the output of a first-coll job of np ranks:
// every odd rank left its collective before any even rank came back to
// MPI. A rank that needed the even ranks' later calls cannot have left
// before them, however slowly the machine runs.
func checkFirstCollective(t *testing.T, np int, stdout string) {
	t.Helper()
	out := make([]int64, np)
	seen := 0
	for _, m := range firstCollLine.FindAllStringSubmatch(stdout, -1) {
		r, _ := strconv.Atoi(m[1])
		if r < 0 || r >= np {
			t.Fatalf("a line of rank %d in a job of %d:\n%s", r, np, stdout)
		}
		out[r], _ = strconv.ParseInt(m[2], 10, 64)
		seen++
	}
	if seen != np {
		t.Fatalf("%d first-coll lines, want %d:\n%s", seen, np, stdout)
	}
	var back []int64
	for _, m := range firstCollBack.FindAllStringSubmatch(stdout, -1) {
		b, _ := strconv.ParseInt(m[2], 10, 64)
		back = append(back, b)
	}
	if len(back) != (np+1)/2 {
		t.Fatalf("%d first-coll back lines, want %d:\n%s", len(back), (np+1)/2, stdout)
	}
	first := slices.Min(back)
	for r := 1; r < np; r += 2 {
		if out[r] >= first {
			t.Errorf("rank %d left its first collective %v after an even rank came back to MPI (having waited for it %v at most)",
				r, time.Duration(out[r]-first).Round(time.Millisecond), firstCollHold)
		}
	}
}

// A rank's first collective over TCP completes without the other ranks'
// later calls: the connections it makes on first use need nothing more
// from a rank that has left its part of the collective. Every job is
// fresh, so that every collective is the first use of its connections.
func TestTCPFirstCollective(t *testing.T) {
	t.Parallel()
	const np, jobs = 4, 8
	for _, coll := range []string{"barrier", "bcast", "allreduce"} {
		t.Run(coll, func(t *testing.T) {
			t.Parallel()
			for range jobs {
				args := []string{"-np", strconv.Itoa(np), "-timeout", jobTimeout.String(), "-transport", "tcp", self}
				r := mpirun(t, []string{envScenario + "=first-coll", envFirstColl + "=" + coll, envFirstCollDir + "=" + t.TempDir()}, args...)
				if r.code != 0 {
					t.Fatalf("first-coll %s failed:\n%v", coll, r)
				}
				checkFirstCollective(t, np, r.stdout)
				if t.Failed() {
					return // each job of a failing build waits firstCollHold
				}
			}
		})
	}
}
