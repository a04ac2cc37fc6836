package mpi

import (
	"cmp"
	"errors"
	"slices"

	"github.com/rhinet-go/martini/collectives"
)

// keepAhead adds c to the communicators whose calls may leave their
// argument checks for later (keep: those with a barrier controller, see
// setOffload), or removes it once it is freed.
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
// freed, and the calls that moved no data since the last one that
// arrived at its barrier (collectives' Empty), and returns the
// differences no call reported. Settling waits only for arrivals the
// other processes made in those calls; the calls that moved no data
// arrive at the barrier, every process's the same in a correct program,
// and the order of the context ids is one that the processes share.
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
		var serr error
		if err := c.manage("Finalize", func(u *collectives.Runner) error { serr = u.Settle(); return serr }); err != nil {
			// Settle's own error: Finalize names itself once, around them all.
			errs = append(errs, cmp.Or(serr, err))
		}
	}
	return errors.Join(errs...)
}
