package tuning

import (
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// engineConfig is the engine's configuration: the rings and eager
// limits (ringLimits), the rendezvous, and the eager transport with its
// queue (eagerTransport).
func engineConfig(job Job, th Thresholds) llc.Config {
	caps := job.Caps
	ring, eager, hint := ringLimits(job, th)
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
	eagerTransport(&cfg, job)
	return cfg
}

// ringLimits sizes the rings so that every peer (itself included) can get
// one within the memory, takes the eager limit the table gives rings when
// rings alone carry the eager messages (the network's as the hint's), or
// the user's, and caps it to what a ring holds.
func ringLimits(job Job, th Thresholds) (ring, eager, hint int) {
	caps, share := job.Caps, job.Memory/job.Size
	ring = DefaultRingSize
	for ring > minRingSize && ring+llc.RingOverhead > share {
		ring /= 2
	}
	eager = eagerLimit(caps)
	if caps.LoadStore && !caps.Modelled && job.Settings.Eager == "" && job.QueuePeers == nil {
		// Rings alone carry the eager messages; a send that should not
		// wait for its receiver goes eager up to the network's limit.
		eager, hint = th.RingEagerLimit, eager
		if eager == 0 {
			eager = hint
		}
	}
	if job.Settings.EagerLimit >= 0 {
		eager, hint = job.Settings.EagerLimit, 0
	}
	// Honour a large requested eager limit with larger rings, as long as
	// every peer can still get one (a ring beyond its share leaves some
	// peers without one: llc.ErrNoRing); then cap the limit to a ring's.
	for llc.MaxEagerLimit(ring) < eager && 2*ring+llc.RingOverhead <= share {
		ring *= 2
	}
	return ring, min(eager, llc.MaxEagerLimit(ring)), hint
}

// eagerTransport sets the eager transport: the user's, or on a network
// whose stream carries records one queue for every sender (no rings to
// poll); the pairs' shared lines where every peer is on rings; and with
// the vp transport the queue, sized within half the memory (or as the
// user asks, -vp-queue), the eager limit capped to what it carries in
// one record or in several. The PM layers that the user asks for (pm,
// vp) send every message eagerly, larger ones in several PM messages, as
// MPICH-SCore without remote memory access does (thesis 8.5:
// llc.Config.NoRendezvous), pm over rings of the user's size if asked
// (-pm-ring); with it on (pm and Settings.PMRMA), those above 16 KB go
// by a rendezvous without copies (llc.Config.ZeroCopy).
func eagerTransport(cfg *llc.Config, job Job) {
	caps, mode := job.Caps, job.Settings.Eager
	if mode == "" && !caps.LoadStore && job.QueuePeers == nil {
		mode = launch.EagerVP
	}
	cfg.SharedLines = caps.SharedLines && mode == "" && cfg.QueuePeers == nil && !job.Settings.NoSharedLines
	// The PM layers as asked for (a stream's queue chosen here keeps its
	// rendezvous).
	cfg.NoRendezvous = job.Settings.Eager == launch.EagerPM && !job.Settings.PMRMA || job.Settings.Eager == launch.EagerVP
	switch mode {
	case launch.EagerPM:
		cfg.Eager = llc.EagerPM
		if job.Settings.PMRMA {
			// MPICH-SCore over PM's remote memory access (thesis 8.5):
			// eager up to 16 KB, then a rendezvous whose data the RMA
			// moves from the user's buffer into the receiver's.
			cfg.ZeroCopy = true
			if job.Settings.EagerLimit < 0 {
				cfg.EagerLimit = min(cfg.EagerLimit, launch.PMRMALimit)
			}
		}
		if ring := job.Settings.PMRing; ring > 0 {
			// The user's rings; the eager limits fit them unless the
			// user set one (the engine refuses a ring too small for it).
			cfg.RingSize = ring
			cfg.EagerHintLimit = min(cfg.EagerHintLimit, llc.MaxEagerLimit(ring))
			if job.Settings.EagerLimit < 0 {
				cfg.EagerLimit = min(cfg.EagerLimit, llc.MaxEagerLimit(ring))
			}
		}
	case launch.EagerVP:
		cfg.Eager = llc.EagerQueue
		cfg.EagerLimit = min(cfg.EagerLimit, llc.QueueEagerLimit(caps.MaxRecord))
		cfg.QueueSize = max(DefaultQueueSize, llc.MinQueueSize(cfg.EagerLimit))
		for cfg.QueueSize > llc.MinQueueSize(cfg.EagerLimit) && llc.QueueHeader+cfg.QueueSize > job.Memory/2 {
			cfg.QueueSize /= 2
		}
		if job.Settings.VPQueue > 0 {
			cfg.QueueSize = job.Settings.VPQueue // the engine checks it holds two records
		}
	}
}
