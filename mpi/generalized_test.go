package mpi_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["generalized"] = scenarioGeneralized
}

// TestGeneralizedRequest completes requests from other goroutines.
func TestGeneralizedRequest(t *testing.T) {
	t.Parallel()
	runAt(t, "generalized", []int{1, 2})
}

// scenarioGeneralized: a generalized request is not complete until its
// complete function is called, here from another goroutine while the
// process waits for it beside a receive in Waitany; it then completes
// with the status and error given, once; Cancel leaves it alone.
func scenarioGeneralized(w *mpi.Comm) error {
	r, complete, err := mpi.GeneralizedRequest(w)
	if err != nil {
		return err
	}
	if done, _, _ := r.Test(); done {
		return errors.New("complete before its complete function was called")
	}
	if err := r.Cancel(); err != nil {
		return fmt.Errorf("Cancel: %w", err)
	}
	never, err := mpi.Irecv(w, make([]byte, 1), mpi.AnySource, 99)
	if err != nil {
		return err
	}
	go func(complete func(mpi.Status, error)) {
		time.Sleep(20 * time.Millisecond)
		complete(mpi.Status{Source: 0, Tag: 5, Bytes: 12}, nil)
		complete(mpi.Status{Tag: 6}, errors.New("a second completion"))
	}(complete)
	i, st, err := mpi.Waitany([]*mpi.Request{never, r})
	if err != nil || i != 1 || st.Tag != 5 || st.Bytes != 12 {
		return fmt.Errorf("Waitany: request %d, status %+v, error %v", i, st, err)
	}
	if err := never.Cancel(); err != nil {
		return err
	}
	if _, err := never.Wait(); err != nil {
		return err
	}
	failing := errors.New("the operation failed")
	r, complete, err = mpi.GeneralizedRequest(w)
	if err != nil {
		return err
	}
	complete(mpi.Status{}, failing)
	if _, err := r.Wait(); !errors.Is(err, failing) {
		return fmt.Errorf("Wait of a failed generalized request: %v", err)
	}
	return mpi.Barrier(w)
}
