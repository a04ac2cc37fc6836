package tcp

import (
	"strings"

	"github.com/klauspost/cpuid/v2"

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
// default), on any free port, with the job's bound of a stall and send
// buffer; SetPeers then tells it the peers' addresses.
func ListenJob(job *launch.Job) (*Transport, error) {
	addr := job.TCPAddr
	if addr == "" {
		addr = launch.LoopbackAddr
	}
	if strings.Contains(addr, ":") {
		addr = "[" + addr + "]" // IPv6
	}
	sndbuf := job.Settings.TCPSendBuffer
	if sndbuf < 0 {
		sndbuf = CacheSendBuffer()
	}
	return Listen(job.Rank, job.Size, Options{Addr: addr + ":0", Key: job.PGID,
		StallTimeout: job.Settings.TCPTimeout, SendBuffer: sndbuf})
}

// CacheSendBuffer returns the send buffer (Options.SendBuffer) that holds
// a connection's bytes in flight to the size of this host's L2 cache (1
// MiB where cpuid does not tell it). With the kernel's autotuning a
// sender gets megabytes ahead of its receiver; when both are on one host
// (the loopback interface, namespaces joined by a veth pair) the bytes
// leave the caches before the receiver copies them out, and a large
// message moves at the speed of memory instead of the caches'
// (docs/performance.md has the figures). Between hosts the bound only
// has to exceed what the link carries in a round trip: a MiB in flight
// over a round trip of 50 µs is 20 GB/s.
func CacheSendBuffer() int {
	l2 := cpuid.CPU.Cache.L2
	if l2 <= 0 {
		l2 = 1 << 20
	}
	return l2 / 2 // the kernel doubles it
}
