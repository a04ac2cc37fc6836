package nicemu

// Stats counts what a process's NIC did. The counters belong to the opening
// process and are read by it; they are not shared through the segment,
// except those of the sync network and multicast (BarrierArrivals to
// Deliveries, and their share of Wakeups, Refused and RefusedBy): those
// methods may run concurrently with the others, so their counters are
// updated atomically in the process slot's sync region and count what every
// NIC opened on that slot did since the segment was created.
type Stats struct {
	Push, Pull, BOTF, AOTF, CAS, FAA uint64 // requests kicked, by kind
	PushBytes, PullBytes             uint64 // payload bytes moved
	Packets                          uint64 // MTU-sized packets the transfers were split into
	VPUSHFull                        uint64 // VPUSHes refused because the target's queue had no room
	RingWaits                        uint64 // in virtual time, waits for a PM ring's consumer count to be published (AwaitRing)
	RingMissed                       uint64 // of those, publications taken without the owner's wake (made before the registration, or after an escape)
	CMAOps, CMABytes                 uint64 // single-copy transfers by cross-memory attach
	HugeCollapses, HugeRefusals      uint64 // regions of cross-memory copies collapsed into huge pages, or refused (hugePages)
	HugeDeferrals                    uint64 // collapses the kernel refused for now (EAGAIN), to be tried again
	BounceOps, BounceBytes           uint64 // transfers staged through segment bounce buffers
	SegmentOps                       uint64 // transfers into or out of segment memory
	PGIDOverwrites                   uint64 // BOTF images whose PGID field the NIC replaced
	RVATLBHits, RVATLBMisses         uint64 // SID→address translation cache
	PATLBHits, PATLBMisses           uint64 // page translation cache
	Registrations, Deregistrations   uint64
	Refused                          uint64                // requests refused, all violations
	RefusedBy                        [numViolations]uint64 // requests refused, by Violation
	Served                           uint64                // bounce requests served for other processes
	Wakeups                          uint64                // doorbell rings sent to sleeping processes
	BarrierArrivals                  uint64                // BarrierArrive calls accepted
	BarrierReleases                  uint64                // generations released by this process's arrival (it was last; members arriving last at once may each count one), except by BarrierArriveRecord's, which does not look
	Multicasts, MulticastBytes       uint64                // TryMulticast messages posted and their bytes (counted once, not per destination)
	Deliveries                       uint64                // multicast messages taken by TryDeliver
}

// Stats returns a copy of the NIC's counters.
func (n *NIC) Stats() Stats {
	s := n.stats
	s.PATLBHits, s.PATLBMisses = n.patlb.hits, n.patlb.misses
	s.RVATLBHits, s.RVATLBMisses = n.rvatlb.hits, n.rvatlb.misses
	n.addSyncStats(&s)
	return s
}
