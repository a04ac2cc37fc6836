package collectives

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Stats counts the collective operations a process ran, by collective and
// algorithm ("allreduce/ring"). The zero value is ready; it is safe for
// concurrent use.
type Stats struct {
	mu    sync.Mutex
	count map[statKey]uint64
}

type statKey struct {
	c   Collective
	alg string
}

func (s *Stats) add(c Collective, alg string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.count == nil {
		s.count = make(map[statKey]uint64)
	}
	s.count[statKey{c, alg}]++
	s.mu.Unlock()
}

// Counts returns a copy of the counters.
func (s *Stats) Counts() map[string]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]uint64, len(s.count))
	for k, v := range s.count {
		m[k.c.String()+"/"+k.alg] = v
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
