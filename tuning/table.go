package tuning

import "github.com/rhinet-go/martini/llc"

// Load is how a job's processes share the host's CPUs.
type Load int

// The loads of the table.
const (
	// Core: every process has a CPU.
	Core Load = iota
	// Shared: processes outnumber CPUs, by less than four to one.
	Shared
	// Crowded: four processes a CPU or more.
	Crowded
)

// LoadOf is the load of procs processes on cpus CPUs.
func LoadOf(procs, cpus int) Load {
	switch {
	case procs <= cpus:
		return Core
	case procs >= 4*cpus:
		return Crowded
	}
	return Shared
}

// Class keys the table: the processors' vendor and the load.
type Class struct {
	Vendor Vendor
	Load   Load
}

// Thresholds are what the table gives a class: the thresholds of a
// network that shares memory natively (not under a timing model), and
// the collectives' host-dependent choice. 0 means none (a limit: the
// general one).
type Thresholds struct {
	// RingEagerLimit is the point-to-point eager limit through rings
	// (0: the network's eager limit, EagerLimit).
	RingEagerLimit int
	// CollectiveEagerLimit is the largest collective message sent
	// eagerly on request, above RingEagerLimit.
	CollectiveEagerLimit int
	// SingleCopyMin is the smallest message of a collective's exchange
	// (receives posted) or a reduction's operand sent by rendezvous.
	SingleCopyMin int
	// DistinctSingleCopyMin is SingleCopyMin for an exchange whose sends'
	// buffers differ.
	DistinctSingleCopyMin int
	// ExchangePush is llc.Config.ExchangePush.
	ExchangePush int
	// ConsumeReads marks the reductions' receives llc.RecvOp.Consume.
	ConsumeReads bool
	// EarlyHierarchy lets the balanced reductions run hierarchical from
	// 16 KiB (collectives.Tuning), on any network.
	EarlyHierarchy bool
	// PairAllgatherShared is collectives.Tuning's: the largest allgather
	// block AlgShared carries at two processes (0: as the others').
	PairAllgatherShared int
}

// The eager limits that do not depend on the host (docs/tuning.md,
// "Eager limits").
const (
	// EagerLimit is the eager limit of a network that shares memory.
	EagerLimit = 64 << 10
	// ModelEagerLimit is the eager limit under a timing model: the one
	// its recorded runs were calibrated with.
	ModelEagerLimit = 32 << 10
)

// table is the tuning table: the measured thresholds of each class
// (docs/tuning.md names the measurements behind every entry). A class
// that is not listed takes the zero Thresholds.
var table = map[Class]Thresholds{
	{Intel, Core}: {RingEagerLimit: 8 << 10, CollectiveEagerLimit: 16 << 10, SingleCopyMin: 12 << 10, ExchangePush: llc.ExchangePushMin, ConsumeReads: true, EarlyHierarchy: true,
		PairAllgatherShared: 3 << 10},
	{Intel, Shared}:  {RingEagerLimit: 8 << 10, CollectiveEagerLimit: 32 << 10, SingleCopyMin: 32 << 10, ConsumeReads: true, EarlyHierarchy: true},
	{Intel, Crowded}: {RingEagerLimit: 8 << 10, CollectiveEagerLimit: 32 << 10, SingleCopyMin: 32 << 10, ConsumeReads: true, EarlyHierarchy: true},
	{AMD, Core}:      {ExchangePush: llc.ExchangePushMin, ConsumeReads: true},
	{AMD, Crowded}:   {DistinctSingleCopyMin: 64 << 10},
	{Generic, Core}:  {ExchangePush: llc.ExchangePushMin},
}

// Lookup returns the thresholds of procs processes on host.
func Lookup(host Host, procs int) Thresholds {
	return table[Class{host.Vendor, LoadOf(procs, max(host.CPUs, 1))}]
}
