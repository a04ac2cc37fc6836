package mpi_test

import (
	"fmt"
	"testing"
	"time"
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
		// The segment still tells mpirun how far a rank got.
		t.Parallel()
		runFailure(t, 3, "fail-nofinalize", 1,
			`(?m)^mpirun: rank 1 \(pid \d+\) exited without calling MPI Finalize \(its NIC was initialized\)$`, 10*time.Second,
			"-transport", "tcp")
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
