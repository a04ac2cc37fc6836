package mpi_test

// Multi-process tests of what null (nil) and inactive persistent
// requests complete with: MPI's empty status (MPI-3.1 §3.7.3), whose
// source is AnySource, tag AnyTag, count 0, and which is not cancelled;
// and of Waitany, Testany, Waitsome and Testsome over arrays with no
// active request (index Undefined, or no indices).

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["inactive-status"] = scenarioInactiveStatus
}

// TestInactiveRequestStatus: persistent requests before their first
// Start, and again once a completed Start's result has been returned,
// complete at once with the empty status, through Wait, Test and every
// array call; the first completion after a Start returns the operation's
// own status, whichever call completes it.
func TestInactiveRequestStatus(t *testing.T) {
	t.Parallel()
	runAt(t, "inactive-status", []int{2, 3})
}

// emptyStatus is MPI's empty status.
var emptyStatus = mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}

// completions are the ways scenarioInactiveStatus completes a round of
// started persistent requests.
var completions = []string{"Wait", "Waitall", "Testall", "Waitany", "Testany", "Waitsome", "Testsome"}

func scenarioInactiveStatus(w *mpi.Comm) error {
	const tag, n = 27, 5
	sbuf, rbuf := make([]int32, n), make([]int32, n)
	s, err := mpi.SendInit(w, sbuf, right(w), tag)
	if err != nil {
		return err
	}
	r, err := mpi.RecvInit(w, rbuf, left(w), tag)
	if err != nil {
		return err
	}
	pn, err := mpi.RecvInit(w, make([]int32, 1), mpi.ProcNull, tag)
	if err != nil {
		return err
	}
	reqs := []*mpi.Request{s, nil, r, pn}
	if err := checkInactive("never started", reqs); err != nil {
		return err
	}
	for round, how := range completions {
		fill(sbuf, w.Rank(), round)
		if err := mpi.Startall(reqs); err != nil {
			return err
		}
		sts, err := completeRound(how, reqs)
		if err != nil {
			return fmt.Errorf("round %d (%s): %w", round, how, err)
		}
		what := fmt.Sprintf("round %d (%s)", round, how)
		if reqs[0] != s || reqs[2] != r || reqs[3] != pn {
			return fmt.Errorf("%s: a persistent request's entry was changed: %v", what, reqs)
		}
		if err := checkStatus(what+": receive", sts[2], left(w), tag, n, 4*n); err != nil {
			return err
		}
		if d := diff(rbuf, pattern[int32](n, left(w), round)); d != "" {
			return fmt.Errorf("%s: %s", what, d)
		}
		if sts[0].Cancelled || sts[3] != (mpi.Status{Source: mpi.ProcNull, Tag: mpi.AnyTag}) {
			return fmt.Errorf("%s: send's status %+v, ProcNull receive's %+v", what, sts[0], sts[3])
		}
		if err := checkInactive("after "+what, reqs); err != nil {
			return err
		}
	}
	if err := checkCancelledThenInactive(w); err != nil {
		return err
	}
	for _, q := range []*mpi.Request{s, r, pn} {
		if err := q.Free(); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}

// checkCancelledThenInactive: a cancelled persistent receive reports
// Cancelled once; after that it is inactive and its status empty.
func checkCancelledThenInactive(w *mpi.Comm) error {
	c, err := mpi.RecvInit(w, make([]byte, 8), left(w), 28) // nothing is sent with tag 28
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	if err := checkPending([]*mpi.Request{nil, c}); err != nil {
		return err
	}
	if err := c.Cancel(); err != nil {
		return err
	}
	if st, err := c.Wait(); err != nil || !st.Cancelled {
		return fmt.Errorf("Wait of a cancelled persistent receive: %+v, %v; want Cancelled", st, err)
	}
	if err := checkInactive("after a cancelled receive", []*mpi.Request{c}); err != nil {
		return err
	}
	return c.Free()
}

// checkPending checks that the array calls that test report an active
// request of reqs, which no message will complete, as not completed, and
// leave it active.
func checkPending(reqs []*mpi.Request) error {
	if ok, sts, err := mpi.Testall(reqs); ok || sts != nil || err != nil {
		return fmt.Errorf("Testall of a pending receive: %v, %v, %v; want false", ok, sts, err)
	}
	if ok, i, _, err := mpi.Testany(reqs); ok || i != mpi.Undefined || err != nil {
		return fmt.Errorf("Testany of a pending receive: %v, %d, %v; want false, Undefined", ok, i, err)
	}
	if idx, sts, err := mpi.Testsome(reqs); idx == nil || len(idx) != 0 || len(sts) != 0 || err != nil {
		return fmt.Errorf("Testsome of a pending receive: %#v, %v, %v; want empty, non-nil indices", idx, sts, err)
	}
	return nil
}

// checkEmpty checks that st is the empty status, with no elements.
func checkEmpty(what string, st mpi.Status) error {
	if st != emptyStatus || mpi.GetCount[int32](st) != 0 || mpi.GetElements[byte](st) != 0 {
		return fmt.Errorf("%s: status %+v, want the empty status %+v", what, st, emptyStatus)
	}
	return nil
}

// checkInactive checks that every call completes reqs, whose entries are
// nil or inactive persistent requests, at once with empty statuses.
func checkInactive(what string, reqs []*mpi.Request) error {
	for i, r := range reqs {
		if r == nil {
			continue
		}
		st, err := r.Wait()
		if err != nil {
			return fmt.Errorf("%s: Wait of request %d: %w", what, i, err)
		}
		if err := checkEmpty(fmt.Sprintf("%s: Wait of request %d", what, i), st); err != nil {
			return err
		}
		ok, st, err := r.Test()
		if !ok || err != nil {
			return fmt.Errorf("%s: Test of request %d: %v, %v; want true", what, i, ok, err)
		}
		if err := checkEmpty(fmt.Sprintf("%s: Test of request %d", what, i), st); err != nil {
			return err
		}
	}
	if err := checkInactiveAll(what, reqs); err != nil {
		return err
	}
	return checkInactiveAnySome(what, reqs)
}

// checkInactiveAll is checkInactive's Waitall and Testall.
func checkInactiveAll(what string, reqs []*mpi.Request) error {
	sts, err := mpi.Waitall(reqs)
	if err != nil || len(sts) != len(reqs) {
		return fmt.Errorf("%s: Waitall: %d statuses, %v", what, len(sts), err)
	}
	for i, st := range sts {
		if err := checkEmpty(fmt.Sprintf("%s: Waitall's request %d", what, i), st); err != nil {
			return err
		}
	}
	ok, sts, err := mpi.Testall(reqs)
	if !ok || err != nil || len(sts) != len(reqs) {
		return fmt.Errorf("%s: Testall: %v, %d statuses, %v; want true", what, ok, len(sts), err)
	}
	for i, st := range sts {
		if err := checkEmpty(fmt.Sprintf("%s: Testall's request %d", what, i), st); err != nil {
			return err
		}
	}
	return nil
}

// checkInactiveAnySome is checkInactive's Waitany, Testany, Waitsome and
// Testsome.
func checkInactiveAnySome(what string, reqs []*mpi.Request) error {
	i, st, err := mpi.Waitany(reqs)
	if i != mpi.Undefined || err != nil {
		return fmt.Errorf("%s: Waitany: %d, %v; want Undefined", what, i, err)
	}
	if err := checkEmpty(what+": Waitany", st); err != nil {
		return err
	}
	ok, i, st, err := mpi.Testany(reqs)
	if !ok || i != mpi.Undefined || err != nil {
		return fmt.Errorf("%s: Testany: %v, %d, %v; want true, Undefined", what, ok, i, err)
	}
	if err := checkEmpty(what+": Testany", st); err != nil {
		return err
	}
	if idx, sts, err := mpi.Waitsome(reqs); idx != nil || sts != nil || err != nil {
		return fmt.Errorf("%s: Waitsome: %v, %v, %v; want nil indices", what, idx, sts, err)
	}
	if idx, sts, err := mpi.Testsome(reqs); idx != nil || sts != nil || err != nil {
		return fmt.Errorf("%s: Testsome: %v, %v, %v; want nil indices", what, idx, sts, err)
	}
	return nil
}

// completeRound completes the started requests of reqs (nil entries
// aside) by how, one of completions, and returns their statuses by index.
func completeRound(how string, reqs []*mpi.Request) ([]mpi.Status, error) {
	switch how {
	case "Wait":
		sts := make([]mpi.Status, len(reqs))
		for i, r := range reqs {
			if r != nil {
				st, err := r.Wait()
				if err != nil {
					return nil, err
				}
				sts[i] = st
			}
		}
		return sts, nil
	case "Waitall":
		return mpi.Waitall(reqs)
	case "Testall":
		return pollAll(reqs)
	case "Waitany", "Testany":
		return completeAny(how == "Testany", reqs)
	default:
		return completeSome(how == "Testsome", reqs)
	}
}

// pollDeadline bounds the polling loops of completeRound.
const pollDeadline = 20 * time.Second

// pollAll polls Testall until it reports every request of reqs complete;
// until then it must not make any of them inactive.
func pollAll(reqs []*mpi.Request) ([]mpi.Status, error) {
	for deadline := time.Now().Add(pollDeadline); time.Now().Before(deadline); {
		ok, sts, err := mpi.Testall(reqs)
		if err != nil || ok {
			return sts, err
		}
	}
	return nil, errors.New("Testall polled without completing")
}

// completeAny completes reqs by Waitany (or Testany) until it returns
// Undefined, and checks that each request completes once.
func completeAny(test bool, reqs []*mpi.Request) ([]mpi.Status, error) {
	sts, done := make([]mpi.Status, len(reqs)), make([]bool, len(reqs))
	for deadline := time.Now().Add(pollDeadline); time.Now().Before(deadline); {
		ok, i, st, err := true, 0, mpi.Status{}, error(nil)
		if test {
			ok, i, st, err = mpi.Testany(reqs)
		} else {
			i, st, err = mpi.Waitany(reqs)
		}
		switch {
		case err != nil:
			return nil, err
		case !ok:
			continue
		case i == mpi.Undefined:
			return sts, checkAllDone(reqs, done)
		case i < 0 || i >= len(reqs) || done[i]:
			return nil, fmt.Errorf("index %d (done: %v)", i, done)
		}
		sts[i], done[i] = st, true
	}
	return nil, errors.New("polled without completing")
}

// completeSome completes reqs by Waitsome (or Testsome) until it returns
// no indices with no request active, and checks that each request
// completes once.
func completeSome(test bool, reqs []*mpi.Request) ([]mpi.Status, error) {
	sts, done := make([]mpi.Status, len(reqs)), make([]bool, len(reqs))
	for deadline := time.Now().Add(pollDeadline); time.Now().Before(deadline); {
		some := mpi.Waitsome
		if test {
			some = mpi.Testsome
		}
		idx, got, err := some(reqs)
		switch {
		case err != nil:
			return nil, err
		case idx == nil:
			return sts, checkAllDone(reqs, done)
		case len(got) != len(idx):
			return nil, fmt.Errorf("indices %v with %d statuses", idx, len(got))
		}
		for k, i := range idx {
			if done[i] {
				return nil, fmt.Errorf("request %d completed twice", i)
			}
			sts[i], done[i] = got[k], true
		}
	}
	return nil, errors.New("polled without completing")
}

// checkAllDone checks that every request of reqs that is not nil is done.
func checkAllDone(reqs []*mpi.Request, done []bool) error {
	for i, r := range reqs {
		if r != nil && !done[i] {
			return fmt.Errorf("no request left active, but request %d never completed (done: %v)", i, done)
		}
	}
	return nil
}
