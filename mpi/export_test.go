package mpi

import (
	"runtime"

	"github.com/rhinet-go/martini/llc/martini"
	_ "github.com/rhinet-go/martini/networks" // the networks the tests' jobs run over
	"github.com/rhinet-go/martini/nicemu"
)

// translator returns the martini network of s, which the tests that reach
// the NIC run over alone.
func (s *runtimeState) translator() *martini.Translator {
	t, _ := s.net.(*martini.Translator)
	return t
}

// WithNICForTest runs f with this process's NIC and the bootstrap SID of
// every rank, holding the endpoint's lock so that f's raw requests do not
// interleave with the runtime's (the NIC is not safe for concurrent use).
func WithNICForTest(f func(nic *nicemu.NIC, boot []nicemu.SID)) error {
	s := current.Load()
	if s == nil {
		return ErrNotInitialized
	}
	s.ep.Exclusive(func() {
		cfg := s.ep.Config()
		boot := make([]nicemu.SID, len(cfg.Boot))
		for i, b := range cfg.Boot {
			boot[i] = nicemu.SID(b)
		}
		f(s.translator().NIC(), boot)
	})
	return nil
}

// SegmentRefusedForTest returns the job-wide count of refused NIC requests
// kept in the shared segment.
func SegmentRefusedForTest() uint64 {
	s := current.Load()
	if s == nil {
		return 0
	}
	return s.translator().Segment().Refused()
}

// NICStatsForTest returns the counters of this process's NIC.
func NICStatsForTest() nicemu.Stats {
	s := current.Load()
	if s == nil {
		return nicemu.Stats{}
	}
	var st nicemu.Stats
	s.ep.Exclusive(func() { st = s.translator().NIC().Stats() })
	return st
}

// ContextIDForTest returns c's context id.
func ContextIDForTest(c *Comm) int { return c.id }

// ContextFreeForTest reports whether the process of c holds context id
// free, once it has given back those of the communicators freed busy that
// are idle now, as an agreement on a context id does first.
func ContextFreeForTest(c *Comm, id int) bool {
	c.rt.releaseIdle()
	c.rt.ctxMu.Lock()
	defer c.rt.ctxMu.Unlock()
	return c.rt.ctxFree[id/64]&(1<<uint(id%64)) != 0
}

// GCFloorSize is the size of the collector's floor (gcfloor.go).
const GCFloorSize = gcFloorSize

// GCFloorForTest is gcFloor of a process alone on its host.
func GCFloorForTest(getenv func(string) string) []byte { return gcFloor(getenv, 1) }

// PopulateForTest is populate.
var PopulateForTest = populate

// FirstCycleSizeForTest is firstCycleSize.
var FirstCycleSizeForTest = firstCycleSize

// FirstCycleBytesForTest is how many bytes of the first cycle's pages
// gcFloor maps in a process among local on this host.
func FirstCycleBytesForTest(local int) int {
	return firstCycleSize(local, runtime.NumCPU(), hostMemory())
}
