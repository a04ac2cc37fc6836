package collectives

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// Stats counts the collective operations a process ran, by collective and
// algorithm ("allreduce/ring"). The zero value is ready; it is safe for
// concurrent use, and counting takes no lock.
type Stats struct {
	count [numCollectives][len(statAlgs)]atomic.Uint64
}

// statAlgs are the algorithm names counted: every collective's, and
// AlgShared by the exchange it used.
var statAlgs = [...]string{
	AlgNIC, AlgDissemination, AlgBinomial, AlgScatterAllgather, AlgReduceScatterGather,
	AlgRecursiveDoubling, AlgRing, AlgReduceBcast, "shared-nic", "shared-dissemination",
	"shared-binomial", "linear", "bruck", "pairwise", "recursive-halving", "reduce-scatter",
	"reduce-scatterv", AlgHierarchical,
}

// The indexes in statAlgs of the algorithms the fast paths count.
var (
	statNIC                 = slices.Index(statAlgs[:], AlgNIC)
	statSharedNIC           = slices.Index(statAlgs[:], "shared-nic")
	statSharedDissemination = slices.Index(statAlgs[:], "shared-dissemination")
	statSharedBinomial      = slices.Index(statAlgs[:], "shared-binomial")
)

func (s *Stats) add(c Collective, alg string) {
	if i := slices.Index(statAlgs[:], alg); i >= 0 {
		s.addAt(c, i)
	}
}

// addAt counts a call of c by algorithm statAlgs[i].
func (s *Stats) addAt(c Collective, i int) {
	if s != nil && c < numCollectives {
		s.count[c][i].Add(1)
	}
}

// Counts returns the counters that are not zero.
func (s *Stats) Counts() map[string]uint64 {
	m := make(map[string]uint64)
	for c := range s.count {
		for i := range s.count[c] {
			if v := s.count[c][i].Load(); v != 0 {
				m[Collective(c).String()+"/"+statAlgs[i]] = v
			}
		}
	}
	return m
}

// String lists the counters, one "collective/algorithm count" per line,
// sorted.
func (s *Stats) String() string {
	counts := s.Counts()
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		b.WriteString(k)
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(counts[k], 10))
		b.WriteByte('\n')
	}
	return b.String()
}
