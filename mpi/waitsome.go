package mpi

import "errors"

// someDone is a completion that is done when some of reqs are; idx lists
// those, as of the last call of Done.
type someDone struct {
	reqs []*Request
	idx  []int
}

func (s *someDone) Done() bool {
	s.idx = s.idx[:0]
	for i, r := range s.reqs {
		if !r.inert() && (*pending)(r).Done() {
			s.idx = append(s.idx, i)
		}
	}
	return len(s.idx) > 0
}

// Waitsome waits until at least one of reqs has completed and completes
// every one that has (MPI_Waitsome): it returns their indices, in order,
// their statuses and the errors of those that failed, joined, and sets
// their entries to nil, except those of persistent requests, which stay
// and are now inactive. Nil entries and inactive persistent requests are
// skipped; with no active request it returns nil indices at once (MPI's
// outcount MPI_UNDEFINED).
func Waitsome(reqs []*Request) ([]int, []Status, error) {
	c, err := someComm(reqs)
	if c == nil || err != nil {
		return nil, nil, err
	}
	s := &someDone{reqs: reqs}
	c.rt.ep.Wait(s)
	return finishSome(reqs, s.idx)
}

// Testsome makes progress once and completes every one of reqs that has
// completed (MPI_Testsome), as Waitsome does. When none has it returns
// empty, non-nil indices (MPI's outcount 0); with no active request, nil
// indices (MPI_UNDEFINED), as Waitsome does.
func Testsome(reqs []*Request) ([]int, []Status, error) {
	c, err := someComm(reqs)
	if c == nil || err != nil {
		return nil, nil, err
	}
	s := &someDone{reqs: reqs}
	if !c.rt.ep.Test(s) {
		return []int{}, []Status{}, nil
	}
	return finishSome(reqs, s.idx)
}

// someComm checks the requests of reqs that are not inert and returns the
// communicator of one of them, or nil if there is none.
func someComm(reqs []*Request) (*Comm, error) {
	var c *Comm
	for _, r := range reqs {
		if r.inert() {
			continue
		}
		if err := r.check(); err != nil {
			return nil, err
		}
		c = r.c
	}
	return c, nil
}

// finishSome completes the requests of reqs at idx and sets those that
// are not persistent to nil.
func finishSome(reqs []*Request, idx []int) ([]int, []Status, error) {
	idx = append([]int(nil), idx...)
	sts := make([]Status, len(idx))
	var errs []error
	for k, i := range idx {
		if err := reqs[i].waitInto(&sts[k]); err != nil { // done: no wait
			errs = append(errs, err)
		}
		if !reqs[i].persistent {
			reqs[i] = nil
		}
	}
	return idx, sts, errors.Join(errs...)
}
