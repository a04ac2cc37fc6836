// Package network is where the runtime's networks plug in. Each network
// registers a Driver under its name when its package is imported, as
// database/sql drivers do, and Open assembles the networks a process of
// a launch.Job uses: the one the job's settings name, or by default the
// network within a host for a job on one host, the network between hosts
// for a job of several processes that has no segment, and both, joined
// by a mux.Mux, for a job across hosts.
//
// The API package imports this package and no network: a program adds
// the networks it runs over with a blank import, usually of them all:
//
//	import _ "github.com/rhinet-go/martini/networks"
//
// What a network offers beyond the engine's transport comes through
// optional interfaces, found by type assertion: Addressed (peers found
// through the bootstrap exchange), Offload (a barrier and multicast
// network for the collectives) and Modelled (a timing model).
package network

import (
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// Network is a process's open network: the engine's transport, with
// what the runtime needs of it besides the IR.
type Network interface {
	llc.Transport
	llc.StatsReporter
	llc.Waker
	// MemorySize is the memory the process may allocate on the network
	// for the engine's rings and its bootstrap area.
	MemorySize() int
	// Close closes the network. The caller holds off every other use.
	Close() error
}

// Reach is which processes of a job a network reaches, and so how they
// are numbered on it.
type Reach int

// Reaches of a network.
const (
	// Host: the processes of the caller's host, which share the segment
	// the launcher made (launch.Job.Segment), numbered by
	// launch.Job.LocalRank; a singleton makes a segment of its own.
	Host Reach = iota + 1
	// Job: every process of the job wherever it runs, numbered by
	// launch.Job.Rank.
	Job
)

// Driver opens a network for a process.
type Driver interface {
	// Reach says which processes the driver's networks reach.
	Reach() Reach
	// Open opens this process's network for job. A Host driver takes
	// over job.Segment.
	Open(job *launch.Job) (Network, error)
}

// Addressed is implemented by a network whose processes find each other
// through the bootstrap exchange: every process publishes its Addr, and
// SetPeers gives each the addresses of all, indexed by rank.
type Addressed interface {
	Addr() string
	SetPeers(addrs []string) error
}

// Offload is implemented by a network with a synchronisation network of
// its own (barriers with data, multicast), over which the collectives of
// the groups it reaches can run.
type Offload interface {
	// AllocBarrier claims a barrier controller for a new group, or fails
	// when none is free or the offload is off.
	AllocBarrier() (int, error)
	// SyncGroup returns the caller's view of barrier controller id for
	// the group of processes procs (job ranks), of which it is
	// procs[member]; tag tells the group's multicasts apart from those of
	// other groups of the same processes. Its blocking calls wait through
	// ep.
	SyncGroup(ep *llc.Endpoint, id, member int, procs []int, tag uint32) SyncGroup
}

// SyncGroup is one group's view of an Offload. It serves the collectives
// as their Hardware (collectives.Hardware, and collectives.RunAheadBarrier
// for calls that run ahead of their argument checks), which the caller
// finds by type assertion: the networks sit below the collectives and do
// not import them.
type SyncGroup interface {
	// Free releases the barrier controller; one member calls it once no
	// member uses the group any more.
	Free() error
}

// Modelled is implemented by a network that may run under a timing
// model, and in virtual time.
type Modelled interface {
	llc.Clocked
	// Modelled reports whether the network runs under a timing model.
	Modelled() bool
}
