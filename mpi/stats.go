package mpi

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// Stats is what the runtime of this process has counted so far.
type Stats struct {
	Protocol llc.Counters  // per-protocol counters of the LLC engine
	NIC      nicemu.Stats  // requests of the emulated NIC, by kind and path
	Wait     llc.WaitStats // how waiting went
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
	var st Stats
	s.ep.Locked(func(e *llc.Engine) {
		st.Protocol = e.Stats()
		st.NIC = s.nic.Stats()
		cfg := e.Config()
		st.EagerLimit, st.RingSize, st.Rendezvous, st.Eager = cfg.EagerLimit, cfg.RingSize, cfg.Rendezvous.String(), cfg.Eager.String()
	})
	st.Wait = s.ep.WaitStats()
	st.Collectives = s.collStats.Counts()
	return st
}

func printStats(w io.Writer, rank int, s Stats) {
	p, n := s.Protocol, s.NIC
	fmt.Fprintf(w, "[%d] stats: eager(%s) %d sent %d recv, rendezvous(%s) %d sent %d recv, unexpected %d, control %d, ring full %d, queue full %d, connections %d, rings granted %d (%d B), eager limit %d B\n",
		rank, s.Eager, p.EagerSent, p.EagerRecv, s.Rendezvous, p.RndvSent, p.RndvRecv, p.Unexpected, p.ControlSent, p.RingFull, p.QueueFull, p.Connections, p.RingsGranted, p.RingBytes, s.EagerLimit)
	fmt.Fprintf(w, "[%d] nic: push %d pull %d botf %d aotf %d cas %d faa %d, packets %d, single-copy(CMA) %d ops %d B, bounce %d ops %d B, refused %d, RVATLB %d/%d hit/miss, PATLB %d/%d hit/miss, waits %d sleeps %d\n",
		rank, n.Push, n.Pull, n.BOTF, n.AOTF, n.CAS, n.FAA, n.Packets, n.CMAOps, n.CMABytes, n.BounceOps, n.BounceBytes, n.Refused,
		n.RVATLBHits, n.RVATLBMisses, n.PATLBHits, n.PATLBMisses, s.Wait.Waits, s.Wait.Sleeps)
	if len(s.Collectives) > 0 {
		fmt.Fprintf(w, "[%d] collectives:", rank)
		for _, k := range slices.Sorted(maps.Keys(s.Collectives)) {
			fmt.Fprintf(w, " %s %d", k, s.Collectives[k])
		}
		fmt.Fprintf(w, "; sync network: arrivals %d releases %d multicasts %d (%d B) deliveries %d\n",
			n.BarrierArrivals, n.BarrierReleases, n.Multicasts, n.MulticastBytes, n.Deliveries)
	}
}
