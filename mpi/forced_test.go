package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

func init() { scenarios["coll-forced-nic"] = scenarioForcedNIC }

// TestForcedNIC forces the NIC's barrier and multicast broadcast: making
// and freeing communicators must work whatever was forced (it failed on
// every Dup, Split and Create, and one process panicked).
func TestForcedNIC(t *testing.T) {
	t.Parallel()
	for _, sel := range []string{"barrier=nic", "bcast=nic"} {
		for _, np := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/np=%d", sel, np), func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, np, "coll-forced-nic", "-coll", sel)
			})
		}
	}
}

// scenarioForcedNIC makes communicators of every size under a forced NIC
// algorithm: the forced collective runs where the communicator has the
// NIC's offload (more than one process) and fails with ErrAlgorithm on
// every process where it has not; the other collectives always work.
func scenarioForcedNIC(w *mpi.Comm) error {
	barrier := strings.HasPrefix(os.Getenv(launch.EnvColl), "barrier=")
	forced := func(c *mpi.Comm, what string) error {
		var err error
		if barrier {
			err = mpi.Barrier(c)
		} else {
			err = mpi.Bcast(c, []int32{int32(c.Rank())}, 0)
		}
		switch {
		case c.Size() > 1 && err != nil:
			return fmt.Errorf("%s of %d processes: the forced collective: %w", what, c.Size(), err)
		case c.Size() == 1 && !errors.Is(err, mpi.ErrAlgorithm):
			return fmt.Errorf("%s of one process: the forced NIC collective gave %v, want ErrAlgorithm", what, err)
		}
		got := []int64{0}
		if err := mpi.Allreduce(c, []int64{1}, got, mpi.Sum); err != nil || got[0] != int64(c.Size()) {
			return fmt.Errorf("%s: Allreduce after the forced collective: %v, %v", what, got, err)
		}
		return nil
	}
	if err := forced(w, "World"); err != nil {
		return err
	}
	me := w.Rank()
	d, err := w.Dup()
	if err != nil {
		return fmt.Errorf("Dup: %w", err)
	}
	s, err := w.Split(me%2, -me)
	if err != nil {
		return fmt.Errorf("Split: %w", err)
	}
	first, err := w.Group().Incl(0)
	if err != nil {
		return err
	}
	g, err := w.Create(first)
	if err != nil {
		return fmt.Errorf("Create: %w", err)
	}
	comms := []*mpi.Comm{d, s, g}
	for i, c := range comms {
		if c == nil {
			continue
		}
		if err := forced(c, []string{"Dup", "Split", "Create"}[i]); err != nil {
			return err
		}
	}
	for _, c := range comms {
		if err := release(c); err != nil {
			return fmt.Errorf("Free: %w", err)
		}
	}
	return nil
}
