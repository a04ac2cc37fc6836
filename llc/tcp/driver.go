package tcp

import (
	"strings"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/network"
)

// The TCP network registers itself under launch.TransportTCP: it reaches
// every process of a job, which find each other's addresses through the
// bootstrap exchange.
func init() { network.Register(launch.TransportTCP, driver{}) }

type driver struct{}

func (driver) Reach() network.Reach { return network.Job }

func (driver) Open(job *launch.Job) (network.Network, error) { return ListenJob(job) }

var (
	_ network.Network   = (*Transport)(nil)
	_ network.Addressed = (*Transport)(nil)
)

// memorySize bounds the ring memory of a process on the TCP network: Go
// memory, not a segment's heap.
const memorySize = 256 << 20

// MemorySize is the memory the process may allocate for the engine's
// rings and bootstrap area.
func (t *Transport) MemorySize() int { return memorySize }

// ListenJob listens for the peers of job's process on the address the
// launcher gave it (launch.Job.TCPAddr; the loopback interface by
// default), on any free port; SetPeers then tells it theirs.
func ListenJob(job *launch.Job) (*Transport, error) {
	addr := job.TCPAddr
	if addr == "" {
		addr = launch.LoopbackAddr
	}
	if strings.Contains(addr, ":") {
		addr = "[" + addr + "]" // IPv6
	}
	return Listen(job.Rank, job.Size, Options{Addr: addr + ":0", Key: job.PGID, StallTimeout: job.Settings.TCPTimeout})
}
