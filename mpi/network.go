package mpi

import (
	"fmt"
	"strconv"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/martini"
	"github.com/rhinet-go/martini/llc/tcp"
)

// network is this process's transport, with what mpi needs of it besides
// the IR: its counters, waking its sleepers, closing it.
type network interface {
	llc.Transport
	llc.StatsReporter
	llc.Waker
	Close() error
}

// netSetup is the network of a process being initialized.
type netSetup struct {
	net network
	// mart is the martini network when it reaches every process (its
	// synchronisation network serves the collectives), else nil.
	mart *martini.Translator
	// tcp is the TCP network, whose peers' addresses come through the
	// data store, or nil.
	tcp *tcp.Transport
	// memory is what the process may allocate for rings.
	memory int
}

// tcpMemory bounds the ring memory of a process on the TCP network: Go
// memory, not a segment's heap.
const tcpMemory = 256 << 20

// openNetwork opens the network the job's settings choose: martini (the
// NIC of the segment mpirun passed, or of a segment of its own for a
// singleton), or TCP between every pair of processes.
func openNetwork(job *launch.Job) (*netSetup, error) {
	switch job.Settings.Transport {
	case launch.TransportTCP:
		if job.Segment != nil {
			job.Segment.Close() // the segment mpirun made is not used
			job.Segment = nil
		}
		t, err := tcp.Listen(job.Rank, job.Size, tcp.Options{Addr: "127.0.0.1:0", Key: job.PGID})
		if err != nil {
			return nil, err
		}
		return &netSetup{net: t, tcp: t, memory: tcpMemory}, nil
	case "", launch.TransportAuto, launch.TransportMartini:
		m, err := openMartini(job)
		if err != nil {
			return nil, err
		}
		return &netSetup{net: m, mart: m, memory: m.MemorySize()}, nil
	}
	return nil, fmt.Errorf("%s=%q: unknown network", launch.EnvTransport, job.Settings.Transport)
}

// openMartini opens this process's NIC: that of the segment mpirun
// passed, or of a segment of its own for a singleton.
func openMartini(job *launch.Job) (*martini.Translator, error) {
	o := martini.Options{NoCMA: job.Settings.NoCMA, NoOffload: job.Settings.NoOffload, SendPath: job.Settings.SendPath}
	if o.SendPath == "" && job.Settings.Eager == launch.EagerPM {
		o.SendPath = martini.SendGather // PM/RHiNET pushes each message with its header and trailer
	}
	if job.Segment == nil {
		return martini.Singleton(job.PGID, o)
	}
	f := job.Segment
	job.Segment = nil // the translator owns it now
	fd := f.Fd()
	tr, err := martini.Attach(f, job.Rank, job.Size, job.PGID, o)
	if err != nil {
		return nil, fmt.Errorf("%s=%d: %w", launch.EnvSegmentFD, fd, err)
	}
	return tr, nil
}

// tcpKey is the data-store key of the TCP address of rank.
func tcpKey(rank int) string { return bootPrefix + "tcp/" + strconv.Itoa(rank) }

// publish puts what the other processes need to reach this one through
// its network, before the bootstrap exchange.
func (n *netSetup) publish(store datastore.Store, rank int) error {
	if n.tcp == nil {
		return nil
	}
	return store.Put(tcpKey(rank), n.tcp.Addr())
}

// connect gives the network what the bootstrap exchange brought.
func (n *netSetup) connect(kv map[string]string, size int) error {
	if n.tcp == nil {
		return nil
	}
	addrs := make([]string, size)
	for r := range addrs {
		a, ok := kv[tcpKey(r)]
		if !ok {
			return fmt.Errorf("bootstrap: rank %d published no TCP address", r)
		}
		addrs[r] = a
	}
	return n.tcp.SetPeers(addrs)
}
