package mpi

import (
	"cmp"
	"errors"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// keepAhead adds c to the communicators whose broadcasts and scatters may
// run ahead of their argument checks (keep), or removes it once it is
// freed.
func (s *runtimeState) keepAhead(c *Comm, keep bool) {
	s.aheadMu.Lock()
	defer s.aheadMu.Unlock()
	if !keep {
		delete(s.ahead, c)
		return
	}
	if s.ahead == nil {
		s.ahead = make(map[*Comm]struct{})
	}
	s.ahead[c] = struct{}{}
}

// settleAhead settles, in the order of their context ids, the broadcasts
// and scatters that ran ahead of their checks on every communicator not
// freed, and returns the differences no call reported. It waits only for
// arrivals the other processes made in those calls, so the processes need
// not settle their communicators in the same order.
func (s *runtimeState) settleAhead() error {
	s.aheadMu.Lock()
	comms := make([]*Comm, 0, len(s.ahead))
	for c := range s.ahead {
		comms = append(comms, c)
	}
	s.aheadMu.Unlock()
	slices.SortFunc(comms, func(a, b *Comm) int { return cmp.Compare(a.id, b.id) })
	var errs []error
	for _, c := range comms {
		errs = append(errs, c.manage("Finalize", func(u *collectives.Runner) error { return u.Settle() }))
	}
	return errors.Join(errs...)
}
