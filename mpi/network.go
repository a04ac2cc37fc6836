package mpi

import (
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/network"
)

// netSetup is the process's networks (network.Open) as the engine's
// configuration reads them: their capabilities and, once the bootstrap
// exchange has connected them, the processes of other hosts, reached
// through the receive queue.
type netSetup struct {
	*network.Nets
	queuePeers []bool
}

func (n *netSetup) caps() llc.Caps { return n.Caps() }
