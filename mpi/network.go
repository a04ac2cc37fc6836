package mpi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

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

// netSetup is the network of a process being initialized: martini, TCP,
// or both (martini within the process's host, TCP between hosts, chosen
// per peer by an llc.Mux).
type netSetup struct {
	// net is the network the engine drives; for both, it is made by
	// connect, once the bootstrap exchange has told which processes
	// share this one's host.
	net  network
	mart *martini.Translator // the martini network, or nil
	tcp  *tcp.Transport      // the TCP network, or nil
	// states is the NIC whose slot of the segment tells mpirun how far
	// this process got (Init, Finalize): mart, or over TCP alone the NIC
	// of the segment mpirun made, opened for that only; nil without a
	// segment.
	states *martini.Translator
	// offload: mart reaches every process, so that its synchronisation
	// network can serve the collectives.
	offload bool
	// queuePeers: the processes of other hosts, reached through the
	// receive queue over TCP (both networks only).
	queuePeers []bool
	// memory is what the process may allocate for rings.
	memory int
}

// tcpMemory bounds the ring memory of a process on the TCP network: Go
// memory, not a segment's heap.
const tcpMemory = 256 << 20

// openNetwork opens the network the job's settings and placement choose:
// martini for a job on one host (the NIC of the segment mpirun passed, or
// of a segment of its own for a singleton), TCP between every pair with
// -transport tcp or when the launcher made no segment (PMI launchers),
// and both for a job across hosts (-transport auto).
func openNetwork(job *launch.Job) (*netSetup, error) {
	spans := job.LocalSize < job.Size
	switch t := job.Settings.Transport; {
	case t == launch.TransportTCP:
		return openTCPOnly(job)
	case job.Segment == nil && job.Size > 1 && (t == "" || t == launch.TransportAuto):
		// Started by a launcher that makes no segment (Hydra, Slurm):
		// TCP between every pair.
		return openTCPOnly(job)
	case t == launch.TransportMartini && spans:
		return nil, fmt.Errorf("%s=%s: the martini network reaches the %d ranks of host %q, not the job's %d on several hosts (use auto or tcp)",
			launch.EnvTransport, t, job.LocalSize, job.Host, job.Size)
	case t != "" && t != launch.TransportAuto && t != launch.TransportMartini:
		return nil, fmt.Errorf("%s=%q: unknown network", launch.EnvTransport, t)
	}
	m, err := openMartini(job)
	if err != nil {
		return nil, err
	}
	if !spans {
		return &netSetup{net: m, mart: m, states: m, offload: true, memory: m.MemorySize()}, nil
	}
	t, err := listenTCP(job)
	if err != nil {
		m.Close()
		return nil, err
	}
	return &netSetup{mart: m, tcp: t, states: m, memory: m.MemorySize()}, nil
}

// openTCPOnly opens the TCP network alone; the segment mpirun made, if
// any, only records how far this process got.
func openTCPOnly(job *launch.Job) (*netSetup, error) {
	var states *martini.Translator
	if job.Segment != nil {
		m, err := openMartini(job)
		if err != nil {
			return nil, err
		}
		states = m
	}
	t, err := listenTCP(job)
	if err != nil {
		if states != nil {
			states.Close()
		}
		return nil, err
	}
	return &netSetup{net: t, tcp: t, states: states, memory: tcpMemory}, nil
}

func listenTCP(job *launch.Job) (*tcp.Transport, error) {
	addr := job.TCPAddr
	if addr == "" {
		addr = launch.LoopbackAddr
	}
	if strings.Contains(addr, ":") {
		addr = "[" + addr + "]" // IPv6
	}
	return tcp.Listen(job.Rank, job.Size, tcp.Options{Addr: addr + ":0", Key: job.PGID, StallTimeout: job.Settings.TCPTimeout})
}

// openMartini opens this process's NIC: that of the segment mpirun (or
// its agent on this host) passed, or of a segment of its own for a
// singleton.
func openMartini(job *launch.Job) (*martini.Translator, error) {
	o := martini.Options{NoCMA: job.Settings.NoCMA, NoHugePages: job.Settings.NoHugePages, NoOffload: job.Settings.NoOffload, SendPath: job.Settings.SendPath}
	if o.SendPath == "" {
		switch job.Settings.Eager {
		case launch.EagerPM:
			o.SendPath = martini.SendGather // PM/RHiNET pushes each message with its header and trailer
		case launch.EagerVP:
			o.SendPath = martini.SendVPUSH // PM/RHiNET-VP sends every transfer as VPUSH messages
		}
	}
	if job.Segment == nil {
		if job.Size > 1 {
			return nil, errors.New("no segment: the job has several processes but none was passed (start the job with mpirun)")
		}
		return martini.Singleton(job.PGID, o)
	}
	f := job.Segment
	job.Segment = nil // the translator owns it now
	fd := f.Fd()
	tr, err := martini.Attach(f, job.LocalRank, job.LocalSize, job.PGID, o)
	if err != nil {
		return nil, fmt.Errorf("%s=%d: %w", launch.EnvSegmentFD, fd, err)
	}
	tr.PublishCPU(launch.PinnedCPU()) // the processes sharing a CPU know each other
	return tr, nil
}

// virtualClock returns the martini network's virtual clock: nil unless
// the job runs in virtual time (over the martini network alone).
func (n *netSetup) virtualClock() llc.Clock {
	if n.mart == nil {
		return nil
	}
	return n.mart.VirtualClock()
}

// initialized records in the segment that this process completed Init.
func (n *netSetup) initialized() {
	if n.states != nil {
		n.states.Initialized()
	}
}

// close closes what openNetwork opened; the segment records that this
// process finalized.
func (n *netSetup) close() error {
	var errs []error
	if n.tcp != nil {
		errs = append(errs, n.tcp.Close())
	}
	if n.mart != nil {
		errs = append(errs, n.mart.Close())
	} else if n.states != nil {
		errs = append(errs, n.states.Close())
	}
	return errors.Join(errs...)
}

// caps returns the capabilities the engine is configured from: the
// network's, and with both networks the records' limit of TCP, which
// carries them (the Mux reports the smallest of its networks').
func (n *netSetup) caps() llc.Caps {
	c := n.net.Caps()
	if n.queuePeers != nil {
		c.MaxRecord = n.tcp.Caps().MaxRecord
	}
	return c
}

// allocBoot allocates this process's bootstrap area: on the martini
// network when there is one (the rings within a host are connected
// through it; as the first network of a Mux its regions carry no tag
// bits), else on TCP.
func (n *netSetup) allocBoot(job *launch.Job) (llc.RegionID, error) {
	if n.mart != nil {
		return llc.AllocBoot(n.mart, job.LocalRank, job.Size)
	}
	return llc.AllocBoot(n.net, job.Rank, job.Size)
}

// Data-store keys of the bootstrap exchange, besides the regions: the TCP
// address of a rank, and its host and index there.
func tcpKey(rank int) string   { return bootPrefix + "tcp/" + strconv.Itoa(rank) }
func placeKey(rank int) string { return bootPrefix + "place/" + strconv.Itoa(rank) }

// publish puts what the other processes need to reach this one, before
// the bootstrap exchange.
func (n *netSetup) publish(store datastore.Store, job *launch.Job) error {
	if n.tcp == nil {
		return nil
	}
	if err := store.Put(tcpKey(job.Rank), n.tcp.Addr()); err != nil {
		return err
	}
	if n.mart == nil {
		return nil
	}
	return store.Put(placeKey(job.Rank), strconv.Itoa(job.LocalRank)+" "+job.Host)
}

// connect gives the networks what the bootstrap exchange brought, and for
// a job across hosts makes the Mux: martini to the processes of this
// host, TCP to the others.
func (n *netSetup) connect(kv map[string]string, job *launch.Job) error {
	if n.tcp == nil {
		return nil
	}
	addrs := make([]string, job.Size)
	for r := range addrs {
		a, ok := kv[tcpKey(r)]
		if !ok {
			return fmt.Errorf("bootstrap: rank %d published no TCP address", r)
		}
		addrs[r] = a
	}
	if err := n.tcp.SetPeers(addrs); err != nil {
		return err
	}
	if n.mart == nil {
		return nil
	}
	local, err := hostRanks(kv, job)
	if err != nil {
		return err
	}
	everyone := make([]int, job.Size)
	n.queuePeers = make([]bool, job.Size)
	for r := range everyone {
		everyone[r] = r
		n.queuePeers[r] = true
	}
	for _, r := range local {
		n.queuePeers[r] = false
	}
	mux, err := llc.NewMux(job.Size, []llc.MuxNetwork{{Transport: n.mart, Procs: local}, {Transport: n.tcp, Procs: everyone}})
	if err != nil {
		return err
	}
	n.net = &muxNetwork{mux}
	return nil
}

// hostRanks returns the ranks of this process's host by their index in
// its segment.
func hostRanks(kv map[string]string, job *launch.Job) ([]int, error) {
	local := make([]int, job.LocalSize)
	for i := range local {
		local[i] = -1
	}
	for r := range job.Size {
		v, ok := kv[placeKey(r)]
		if !ok {
			return nil, fmt.Errorf("bootstrap: rank %d published no host", r)
		}
		idx, host, _ := strings.Cut(v, " ")
		i, err := strconv.Atoi(idx)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: the place of rank %d: %q", r, v)
		}
		if host != job.Host {
			continue
		}
		if i < 0 || i >= len(local) || local[i] >= 0 {
			return nil, fmt.Errorf("bootstrap: rank %d claims index %d of host %q, of %d ranks", r, i, host, len(local))
		}
		local[i] = r
	}
	for i, r := range local {
		if r < 0 {
			return nil, fmt.Errorf("bootstrap: no rank has index %d of host %q", i, job.Host)
		}
	}
	return local, nil
}

// muxNetwork is the Mux of a job across hosts; netSetup.close closes its
// networks.
type muxNetwork struct{ *llc.Mux }

func (m *muxNetwork) Close() error { return nil }
