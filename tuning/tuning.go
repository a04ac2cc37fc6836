package tuning

import (
	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// Defaults of the engine's memory.
const (
	// DefaultRingSize is the record space of each eager ring.
	DefaultRingSize = 256 << 10
	// DefaultQueueSize is the record space of the receive queue of the
	// vp eager transport (mpirun -eager vp): 128 records of the largest
	// size.
	DefaultQueueSize = 256 << 10
	minRingSize      = 16 << 10
)

// Job is what a plan is made from.
type Job struct {
	// Rank and Size are the process's rank and the job's size.
	Rank, Size int
	// Boot are the bootstrap regions of every process (llc.Config.Boot).
	Boot []llc.RegionID
	// Caps are the facts of the network the engine drives.
	Caps llc.Caps
	// QueuePeers marks the processes reached through the receive queue
	// (those of other hosts), nil when none is.
	QueuePeers []bool
	// Memory is what the process may allocate for rings.
	Memory int
	// Settings are the user's (mpirun's flags), which override the table.
	Settings launch.Settings
	// Host is the class of this host (Detected); Settings.Tune, when
	// set, overrides it.
	Host Host
}

// Plan is a job's thresholds.
type Plan struct {
	// Engine configures the protocol engine.
	Engine llc.Config
	// CollectiveEagerLimit is the largest collective message that asks
	// for the eager path above Engine.EagerLimit; 0: none.
	CollectiveEagerLimit int
	// SingleCopyMin is the smallest message of a collective's exchange
	// (receives posted first) or a reduction's operand sent by
	// rendezvous; 0: none.
	SingleCopyMin int
	// DistinctSingleCopyMin is SingleCopyMin for an exchange whose sends'
	// buffers differ; 0: SingleCopyMin alone.
	DistinctSingleCopyMin int
	// ConsumeReads marks the reductions' receives llc.RecvOp.Consume.
	ConsumeReads bool
	// Collectives is what the collectives' Runners take.
	Collectives collectives.Tuning
	// Waiting is how a waiting process uses its CPU and how far the
	// collectives overlap their checks.
	Waiting Waiting
	// Host is the host class the plan was made for.
	Host Host
}

// For makes the plan of job: the table's thresholds for its host class
// and size, applied where the network's facts say they were measured (a
// network that shares memory, natively), under the user's settings.
func For(job Job) (Plan, error) {
	host, err := ParseHost(job.Settings.Tune, job.Host)
	if err != nil {
		return Plan{}, err
	}
	th := Lookup(host, job.Size)
	if !job.Caps.AnyLoadStore || job.Caps.Modelled {
		th = Thresholds{EarlyHierarchy: th.EarlyHierarchy}
	}
	cfg := engineConfig(job, th)
	p := Plan{Engine: cfg, ConsumeReads: th.ConsumeReads, Host: host,
		Collectives: collectives.Tuning{EarlyHierarchy: th.EarlyHierarchy, PairAllgatherShared: th.PairAllgatherShared}}
	if ringTuned(job.Settings, cfg) {
		if limit := min(th.CollectiveEagerLimit, cfg.EagerHintLimit); limit > cfg.EagerLimit {
			p.CollectiveEagerLimit = limit
		}
		p.SingleCopyMin, p.DistinctSingleCopyMin = th.SingleCopyMin, th.DistinctSingleCopyMin
	}
	p.Waiting = waitingFor(job, host.CPUs, cfg, p.CollectiveEagerLimit)
	return p, nil
}

// ringTuned reports whether the table's thresholds for eager messages
// through rings apply: the eager messages travel through rings alone and
// the user set no eager limit of their own.
func ringTuned(settings launch.Settings, cfg llc.Config) bool {
	return settings.EagerLimit < 0 && cfg.Eager == llc.EagerRings && cfg.QueuePeers == nil
}

// eagerLimit is the eager limit of a network: under a timing model the
// one its runs were calibrated with; on a stream (no shared memory)
// every message one record carries, which beat the rendezvous's round
// trip at every size; else the shared memory's.
func eagerLimit(c llc.Caps) int {
	switch {
	case c.Modelled:
		return ModelEagerLimit
	case !c.LoadStore:
		return c.MaxRecord - llc.RecordMeta
	}
	return EagerLimit
}

// rendezvous is the rendezvous variant: split, both processes copying,
// where processes share memory; push, the data written as one frame,
// on a stream (docs/tuning.md, "Rendezvous"). The user's choice wins;
// the PM layers, which have no remote read, push.
func rendezvous(c llc.Caps, s launch.Settings) llc.RndvMode {
	switch {
	case s.Rndv == launch.RndvPull:
		return llc.RndvPull
	case s.Rndv == launch.RndvPush:
		return llc.RndvPush
	case s.Rndv == launch.RndvSplit:
		return llc.RndvSplit
	case s.Eager == launch.EagerPM || s.Eager == launch.EagerVP:
		return llc.RndvPush
	case c.AnyLoadStore:
		return llc.RndvSplit
	}
	return llc.RndvPush
}
