package mpi_test

import (
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["isendrecv"] = scenarioIsendrecv
}

func TestIsendrecv(t *testing.T) {
	t.Parallel()
	runAt(t, "isendrecv", []int{2, 3})
}

// scenarioIsendrecv: every rank exchanges with its neighbours by
// Isendrecv and IsendrecvReplace, eager and rendezvous, both pairs in
// flight at once and completed in the reverse order; each Request's
// status is its receive's, and the data arrives.
func scenarioIsendrecv(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	for k, n := range modeSizes(E) {
		send := pattern[float64](n, w.Rank(), k)
		recv := make([]float64, n)
		rep := pattern[float64](n, w.Rank(), k+10)
		r1, err := mpi.Isendrecv(w, send, right(w), k, recv, left(w), k)
		if err != nil {
			return err
		}
		r2, err := mpi.IsendrecvReplace(w, rep, left(w), k+10, mpi.AnySource, k+10)
		if err != nil {
			return err
		}
		st2, err := r2.Wait()
		if err != nil {
			return err
		}
		st1, err := r1.Wait()
		if err != nil {
			return err
		}
		what := fmt.Sprintf("%d elements", n)
		if err := checkStatus("Isendrecv "+what, st1, left(w), k, n, 8*n); err != nil {
			return err
		}
		if err := checkStatus("IsendrecvReplace "+what, st2, right(w), k+10, n, 8*n); err != nil {
			return err
		}
		if d := diff(recv, pattern[float64](n, left(w), k)); d != "" {
			return fmt.Errorf("Isendrecv %s: %s", what, d)
		}
		if d := diff(rep, pattern[float64](n, right(w), k+10)); d != "" {
			return fmt.Errorf("IsendrecvReplace %s: %s", what, d)
		}
	}
	buf := []int16{1, 2}
	r, err := mpi.IsendrecvReplace(w, buf, mpi.ProcNull, 0, mpi.ProcNull, 0)
	if err != nil {
		return err
	}
	if st, err := r.Wait(); err != nil || st.Source != mpi.ProcNull || buf[0] != 1 {
		return fmt.Errorf("IsendrecvReplace with ProcNull: %+v %v %v", st, err, buf)
	}
	if _, err := mpi.Isendrecv(w, buf, w.Size(), 0, buf, 0, 0); err == nil {
		return fmt.Errorf("Isendrecv to rank %d of %d: no error", w.Size(), w.Size())
	}
	return w.Barrier()
}
