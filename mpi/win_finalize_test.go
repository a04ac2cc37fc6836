package mpi_test

// Finalize while this process holds a passive-target lock: it fails with
// ErrRMASync naming the window and the target, as Free does, instead of
// waiting in its fence for a process that waits for the lock; the job
// then ends with the holder's failure.

import (
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	rawScenarios["fail-finalize-locked"] = rawFinalizeLocked
}

func TestFinalizeLocked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ net, failed string }{
		{"martini", "0"},
		// Over TCP rank 1's Lock fails once rank 0 has exited, and mpirun
		// may see either exit first.
		{"tcp", "[01]"},
	} {
		t.Run(c.net, func(t *testing.T) {
			t.Parallel()
			r := runFailure(t, 2, "fail-finalize-locked", 1,
				`(?m)^mpirun: rank `+c.failed+` \(pid \d+\) exited with status 1`, 15*time.Second,
				"-timeout", "20s", "-transport", c.net)
			re := `rank 0: FAIL: Finalize refused, as it must: mpi: Finalize: window 2 \(WinAllocate of int64 on 2 processes\): an exclusive lock on rank 1 is held .*RMA synchronization error`
			if !regexp.MustCompile(re).MatchString(r.stderr) {
				t.Errorf("no diagnostic of rank 0 matching %q:\n%v", re, r)
			}
		})
	}
}

// rawFinalizeLocked: rank 0 locks rank 1's window and calls Finalize,
// while rank 1 waits to lock it too. Rank 0's Finalize must fail with
// ErrRMASync (rank 0 then exits with status 1, ending the job); a
// Finalize that returns otherwise is reported as such.
func rawFinalizeLocked() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	first, _, err := mpi.WinAllocate[int64](w, 4) // freed: not named
	if err != nil {
		return err
	}
	if err := first.Free(); err != nil {
		return err
	}
	win, _, err := mpi.WinAllocate[int64](w, 4)
	if err != nil {
		return err
	}
	if w.Rank() == 0 {
		if err := win.Lock(mpi.LockExclusive, 1); err != nil {
			return err
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 1 {
		err := win.Lock(mpi.LockExclusive, 1) // waits until the job ends
		return fmt.Errorf("Lock returned while rank 0 held the lock: %v", err)
	}
	time.Sleep(100 * time.Millisecond) // rank 1 is waiting in Lock
	err = mpi.Finalize()
	if errors.Is(err, mpi.ErrRMASync) {
		return fmt.Errorf("Finalize refused, as it must: %w", err)
	}
	return fmt.Errorf("Finalize while holding a lock that rank 1 waits for returned %v, want an error wrapping ErrRMASync", err)
}
