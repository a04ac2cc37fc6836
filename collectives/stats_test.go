package collectives

import (
	"slices"
	"testing"
)

// TestStatsKnowsEveryAlgorithm: every algorithm a Runner may run is
// counted under its name.
func TestStatsKnowsEveryAlgorithm(t *testing.T) {
	for c := CollBarrier; c < numCollectives; c++ {
		for _, alg := range Algorithms(c) {
			if alg == AlgShared {
				continue // counted as shared-<exchange>
			}
			if !slices.Contains(statAlgs[:], alg) {
				t.Errorf("%v: algorithm %q is not counted", c, alg)
			}
		}
	}
	var s Stats
	s.add(CollAllreduce, AlgRing)
	s.add(CollAllreduce, AlgRing)
	s.addAt(CollBarrier, sharedStat(AlgNIC))
	if got := s.String(); got != "allreduce/ring 2\nbarrier/shared-nic 1\n" {
		t.Errorf("String() = %q", got)
	}
}
