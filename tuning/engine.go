package tuning

import (
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// engineConfig sizes the rings so that every peer (itself included) can
// get one within the memory, takes the eager limit the table gives rings
// when rings alone carry the eager messages, and caps it to what a ring
// holds; with the vp eager transport, or for the peers reached through
// the receive queue, it sizes the queue instead and caps the eager limit
// to what the queue carries (llc.QueueEagerLimit).
func engineConfig(job Job, th Thresholds) llc.Config {
	caps := job.Caps
	ring := DefaultRingSize
	for ring > minRingSize && ring+llc.RingOverhead > job.Memory/job.Size {
		ring /= 2
	}
	eager, hint := eagerLimit(caps), 0
	if caps.LoadStore && !caps.Modelled && job.Settings.Eager == "" && job.QueuePeers == nil {
		// Rings alone carry the eager messages; a send that should not
		// wait for its receiver goes eager up to the general limit.
		ring := th.RingEagerLimit
		if ring == 0 {
			ring = eager
		}
		eager, hint = ring, eager
	}
	if job.Settings.EagerLimit >= 0 {
		eager, hint = job.Settings.EagerLimit, 0
	}
	// Honour a large requested eager limit with larger rings, as long as
	// every peer can still get one (a ring beyond its share leaves some
	// peers without one: llc.ErrNoRing); then cap the limit to a ring's.
	for llc.MaxEagerLimit(ring) < eager && 2*ring+llc.RingOverhead <= job.Memory/job.Size {
		ring *= 2
	}
	eager = min(eager, llc.MaxEagerLimit(ring))
	cfg := llc.Config{
		Self: job.Rank, Size: job.Size, Boot: job.Boot, MaxRecord: caps.MaxRecord,
		EagerLimit: eager, EagerHintLimit: min(hint, llc.MaxEagerLimit(ring)), RingSize: ring, RingCap: job.Memory,
		Rendezvous: rendezvous(caps, job.Settings), ExchangePush: th.ExchangePush,
		QueuePeers: job.QueuePeers, PackedRecords: min(caps.PackedRecords, llc.MaxPackedRecords),
	}
	if cfg.QueuePeers != nil {
		cfg.EagerLimit = min(cfg.EagerLimit, llc.QueueEagerLimit(caps.MaxRecord))
		cfg.QueueSize = max(DefaultQueueSize, llc.MinQueueSize(cfg.EagerLimit))
	}
	eagerMode := job.Settings.Eager
	if eagerMode == "" && !caps.LoadStore && job.QueuePeers == nil {
		// A network whose stream carries records: one queue for every
		// sender, no rings to poll.
		eagerMode = launch.EagerVP
	}
	// The pairs' shared lines need every peer on rings, in this mode.
	cfg.SharedLines = caps.SharedLines && eagerMode == "" && cfg.QueuePeers == nil && !job.Settings.NoSharedLines
	switch eagerMode {
	case launch.EagerPM:
		cfg.Eager = llc.EagerPM
	case launch.EagerVP:
		// One queue for every sender, no rings: the eager limit is capped
		// to what the queue carries, in one record or in several.
		cfg.Eager = llc.EagerQueue
		cfg.EagerLimit = min(eager, llc.QueueEagerLimit(caps.MaxRecord))
		cfg.QueueSize = max(DefaultQueueSize, llc.MinQueueSize(cfg.EagerLimit))
		for cfg.QueueSize > llc.MinQueueSize(cfg.EagerLimit) && llc.QueueHeader+cfg.QueueSize > job.Memory/2 {
			cfg.QueueSize /= 2
		}
	}
	return cfg
}
