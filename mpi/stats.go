package mpi

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/rhinet-go/martini/llc"
)

// Stats is what the runtime of this process has counted so far.
type Stats struct {
	Protocol llc.Counters // per-protocol counters of the LLC engine
	// Network names the network ("martini", "tcp"), and NetworkCounters
	// are its own counters by name (on martini: the NIC's requests by
	// kind and path, "push", "cma-ops", ...).
	Network         string
	NetworkCounters map[string]uint64
	Wait            llc.WaitStats // how waiting went
	// Collectives counts the collective operations run, by collective and
	// algorithm ("allreduce/ring", "barrier/nic").
	Collectives map[string]uint64
	// EagerLimit, RingSize, Rendezvous and Eager (the eager transport:
	// "rings", "pm" or "queue") are the settings in force.
	EagerLimit int
	RingSize   int
	Rendezvous string
	Eager      string
}

// ReadStats returns the counters of this process.
func ReadStats() (Stats, error) {
	s := current.Load()
	if s == nil {
		return Stats{}, fmt.Errorf("mpi: ReadStats: %w", ErrNotInitialized)
	}
	return s.snapshot(), nil
}

func (s *runtimeState) snapshot() Stats {
	es := s.ep.Statistics()
	st := Stats{Protocol: es.Protocol, Network: es.Network, NetworkCounters: make(map[string]uint64), Wait: es.Wait}
	for _, c := range es.NetworkCounters {
		st.NetworkCounters[c.Name] = c.Value
	}
	cfg := es.Config
	st.EagerLimit, st.RingSize, st.Rendezvous, st.Eager = cfg.EagerLimit, cfg.RingSize, cfg.Rendezvous.String(), cfg.Eager.String()
	st.Collectives = s.collStats.Counts()
	return st
}

func printStats(w io.Writer, rank int, s Stats) {
	p, n := s.Protocol, s.NetworkCounters
	fmt.Fprintf(w, "[%d] stats: eager(%s) %d sent %d recv, rendezvous(%s) %d sent %d recv, unexpected %d, control %d, ring full %d, tail reads %d, shared-line records %d acks %d, queue full %d, connections %d, rings granted %d (%d B), eager limit %d B\n",
		rank, s.Eager, p.EagerSent, p.EagerRecv, s.Rendezvous, p.RndvSent, p.RndvRecv, p.Unexpected, p.ControlSent, p.RingFull, p.TailReads, p.LineSent, p.LineAcks, p.QueueFull, p.Connections, p.RingsGranted, p.RingBytes, s.EagerLimit)
	if p.RMAPuts+p.RMAGets+p.RMAAtomics+p.RMACombines > 0 {
		fmt.Fprintf(w, "[%d] rma: %d puts, %d gets, %d atomics, %d combinations, %d B, %d settling reads\n",
			rank, p.RMAPuts, p.RMAGets, p.RMAAtomics, p.RMACombines, p.RMABytes, p.RMASettles)
	}
	fmt.Fprintf(w, "[%d] %s:", rank, s.Network)
	for _, k := range slices.Sorted(maps.Keys(n)) {
		fmt.Fprintf(w, " %s %d", k, n[k])
	}
	fmt.Fprintf(w, ", waits %d sleeps %d", s.Wait.Waits, s.Wait.Sleeps)
	if s.Wait.Unpinned {
		fmt.Fprint(w, ", unpinned (crowded)")
	}
	if s.Wait.Beside {
		fmt.Fprint(w, ", slept instead of yielding (its CPU shared with another program)")
	}
	fmt.Fprintln(w)
	if len(s.Collectives) > 0 {
		fmt.Fprintf(w, "[%d] collectives:", rank)
		for _, k := range slices.Sorted(maps.Keys(s.Collectives)) {
			fmt.Fprintf(w, " %s %d", k, s.Collectives[k])
		}
		fmt.Fprintln(w)
	}
}
