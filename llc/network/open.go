package network

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/mux"
)

// Nets are the networks of a process being initialized: one network, or
// for a job across hosts one within the process's host and one between
// hosts, which Connect joins in a mux.Mux once the bootstrap exchange
// has told which processes share the host.
type Nets struct {
	// net is the network the engine drives (set by Connect for both).
	net Network
	// host and job are the networks by reach; either may be nil.
	host, job Network
	// queuePeers marks the processes of other hosts, reached through the
	// receive queue over the job network (both networks only).
	queuePeers []bool
}

// Open opens the networks the job's settings and placement choose: the
// network the settings name (launch.Settings.Transport), or by default
// (auto) the Host network for a job on one host (mpirun's segment, the
// one a PMI job's processes make, or a singleton's own), the Job network
// for a job of several processes that has no segment, and both for a job
// across hosts.
func Open(job *launch.Job) (*Nets, error) {
	spans := job.LocalSize < job.Size
	t := job.Settings.Transport
	if t != "" && t != launch.TransportAuto {
		return openNamed(job, t, spans)
	}
	if job.Segment == nil && job.Size > 1 && !job.MakesSegment() {
		return openReach(job, Job)
	}
	n, err := openReach(job, Host)
	if err != nil || !spans {
		return n, err
	}
	_, d, err := byReach(Job)
	if err == nil {
		n.job, err = d.Open(job)
	}
	if err != nil {
		n.Close()
		return nil, err
	}
	n.net = nil // made by Connect
	return n, nil
}

// openNamed opens the network registered as name alone.
func openNamed(job *launch.Job, name string, spans bool) (*Nets, error) {
	d, err := lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", launch.EnvTransport, name, err)
	}
	if d.Reach() == Host && spans {
		return nil, fmt.Errorf("%s=%s: the network reaches the %d ranks of host %q, not the job's %d on several hosts (use %s)",
			launch.EnvTransport, name, job.LocalSize, job.Host, job.Size, launch.TransportAuto)
	}
	return open(job, d)
}

// openReach opens the first registered network of reach alone.
func openReach(job *launch.Job, reach Reach) (*Nets, error) {
	_, d, err := byReach(reach)
	if err != nil {
		return nil, err
	}
	return open(job, d)
}

func open(job *launch.Job, d Driver) (*Nets, error) {
	net, err := d.Open(job)
	if err != nil {
		return nil, err
	}
	n := &Nets{net: net}
	if d.Reach() == Host {
		n.host = net
	} else {
		n.job = net
	}
	return n, nil
}

// Spans reports whether the process has a network within its host and
// one between hosts, which Connect joins by the processes' hosts.
func (n *Nets) Spans() bool { return n.host != nil && n.job != nil }

// Addr returns what this process publishes in the bootstrap exchange for
// the others to reach it: its address on the Job network, if that is
// Addressed; "" if it needs none.
func (n *Nets) Addr() string {
	if a, ok := n.job.(Addressed); ok {
		return a.Addr()
	}
	return ""
}

// Connect gives the networks of job's process what the bootstrap exchange
// brought: every rank's Addr (nil if Addr was ""), and with Spans the
// ranks of this process's host by their index there
// (launch.Job.LocalRank), by which it joins both networks in a Mux.
func (n *Nets) Connect(job *launch.Job, addrs []string, local []int) error {
	if a, ok := n.job.(Addressed); ok {
		if err := a.SetPeers(addrs); err != nil {
			return err
		}
	}
	if !n.Spans() {
		return nil
	}
	size := job.Size
	everyone := make([]int, size)
	n.queuePeers = make([]bool, size)
	for r := range everyone {
		everyone[r] = r
		n.queuePeers[r] = true
	}
	for _, r := range local {
		n.queuePeers[r] = false
	}
	m, err := mux.New(size, []mux.Network{{Transport: n.host, Procs: local}, {Transport: n.job, Procs: everyone}})
	if err != nil {
		return err
	}
	n.net = &Mux{Mux: m, host: n.host}
	return nil
}

// Network returns the network the engine drives; with Spans, once
// Connect has made it.
func (n *Nets) Network() Network { return n.net }

// QueuePeers marks, by rank, the processes reached through the receive
// queue (llc.Config.QueuePeers): those of other hosts once Connect has
// joined the networks; nil otherwise.
func (n *Nets) QueuePeers() []bool { return n.queuePeers }

// Caps returns the capabilities the engine is configured from: the
// network's, and with both networks the records' limit of the Job
// network, which carries them (the Mux reports the smallest of its
// networks').
func (n *Nets) Caps() llc.Caps {
	c := n.net.Caps()
	if n.queuePeers != nil {
		c.MaxRecord = n.job.Caps().MaxRecord
	}
	return c
}

// MemorySize is the memory the process may allocate for the engine's
// rings and bootstrap area: the Host network's when there is one.
func (n *Nets) MemorySize() int {
	if n.host != nil {
		return n.host.MemorySize()
	}
	return n.job.MemorySize()
}

// AllocBoot allocates this process's bootstrap area: on the Host network
// when there is one (the rings within a host are connected through it;
// as the first network of a Mux its regions carry no tag bits), else on
// the Job network.
func (n *Nets) AllocBoot(job *launch.Job) (llc.RegionID, error) {
	if n.host != nil {
		return llc.AllocBoot(n.host, job.LocalRank, job.Size)
	}
	return llc.AllocBoot(n.job, job.Rank, job.Size)
}

// Offload returns the synchronisation network of the Host network when
// that network reaches every process and has one; nil otherwise.
func (n *Nets) Offload() Offload {
	if n.job != nil {
		return nil
	}
	o, _ := n.host.(Offload)
	return o
}

// Modelled reports whether the Host network runs under a timing model.
func (n *Nets) Modelled() bool {
	m, ok := n.host.(Modelled)
	return ok && m.Modelled()
}

// VirtualClock returns the Host network's virtual clock: nil unless the
// job runs in virtual time.
func (n *Nets) VirtualClock() llc.Clock {
	if m, ok := n.host.(Modelled); ok {
		return m.VirtualClock()
	}
	return nil
}

// Close closes the networks Open opened.
func (n *Nets) Close() error {
	var errs []error
	if n.job != nil {
		errs = append(errs, n.job.Close())
	}
	if n.host != nil {
		errs = append(errs, n.host.Close())
	}
	return errors.Join(errs...)
}

// Mux is the network of a job across hosts: the Host network to the
// processes of this host, the Job network to every other. Nets.Close
// closes its networks; its own Close does nothing.
type Mux struct {
	*mux.Mux
	host Network
}

// MemorySize is the Host network's.
func (m *Mux) MemorySize() int { return m.host.MemorySize() }

// Close does nothing: Nets.Close closes the Mux's networks.
func (m *Mux) Close() error { return nil }
