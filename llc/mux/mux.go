// Package mux is the llc.Transport of a job over several networks: the
// per-peer choice of a network (shared memory within a host, TCP between
// hosts), with the regions and processes of each translated to the
// job's.
package mux

import (
	"fmt"
	"strings"
	"time"

	"github.com/rhinet-go/martini/llc"
)

// Mux is an llc.Transport over several networks, each of which reaches
// some of the job's processes: the per-peer choice of a network, as Open MPI's
// BTL selection makes it (shared memory between processes of one host,
// TCP between hosts). A process is reached by the first network that
// lists it. Commands go to the network of their peer; the regions a
// network gives carry its index in their top bits, so that commands on a
// region go back to it; events from a network name processes of the job.
type Mux struct {
	nets    []muxNet
	route   []muxRoute       // by job process
	advisor llc.YieldAdvisor // the first network that is one, or nil
	ev      llc.Event        // the event of Execute's own errors, refilled
}

type muxNet struct {
	tr     llc.Transport
	global []int // the network's process index -> job process
	sink   muxSink
}

type muxRoute struct {
	net  int // index in Mux.nets, -1: unreachable
	peer int // the process's index in that network
}

// muxSink translates the processes named by a network's events.
type muxSink struct {
	to     llc.Sink
	global []int
}

// Step passes on an event, naming the sender of a record in the job (in
// *ev, see llc.Sink).
func (s *muxSink) Step(ev *llc.Event) {
	if ev.Kind == llc.EvRecord || ev.Kind == llc.EvLine {
		if ev.Peer < 0 || ev.Peer >= len(s.global) {
			s.to.Step(&llc.Event{Kind: llc.EvError, Err: fmt.Errorf("mux: a record from process %d of a network of %d", ev.Peer, len(s.global))})
			return
		}
		ev.Peer = s.global[ev.Peer]
	}
	s.to.Step(ev)
}

// RegionShift places a network's index in the top bits of the regions
// a Mux gives.
const (
	RegionShift = 28
	maxNets     = 1 << (32 - RegionShift)
)

// Network is one network of a Mux: its transport, and the job
// processes it reaches, in the network's own order (Procs[i] is the job
// process that is process i of the network).
type Network struct {
	Transport llc.Transport
	Procs     []int
}

// New returns a Mux for a job of size processes over nets, in order of
// preference. Every process must be reached by some network.
func New(size int, nets []Network) (*Mux, error) {
	if len(nets) == 0 || len(nets) > maxNets {
		return nil, fmt.Errorf("mux: a multiplexer of %d networks (1 to %d)", len(nets), maxNets)
	}
	m := &Mux{route: make([]muxRoute, size)}
	for p := range m.route {
		m.route[p].net = -1
	}
	for i, n := range nets {
		for local, p := range n.Procs {
			if p < 0 || p >= size {
				return nil, fmt.Errorf("mux: network %q reaches process %d of a job of %d", n.Transport.Caps().Name, p, size)
			}
			if m.route[p].net < 0 {
				m.route[p] = muxRoute{net: i, peer: local}
			}
		}
		m.nets = append(m.nets, muxNet{tr: n.Transport, global: n.Procs})
		if a, ok := n.Transport.(llc.YieldAdvisor); ok && m.advisor == nil {
			m.advisor = a
		}
	}
	for i := range m.nets {
		m.nets[i].sink.global = m.nets[i].global
	}
	for p, r := range m.route {
		if r.net < 0 {
			return nil, fmt.Errorf("mux: no network reaches process %d", p)
		}
	}
	return m, nil
}

// Network returns the name of the network that reaches process p.
func (m *Mux) Network(p int) string { return m.nets[m.route[p].net].tr.Caps().Name }

// Serves reports whether region, one this Mux gave, lies on the network
// that reaches process p, so that p can name it in its operations. Memory
// that processes of several networks access is registered on each of
// them (a window of a job across hosts).
func (m *Mux) Serves(region llc.RegionID, p int) bool {
	return p >= 0 && p < len(m.route) && int(region>>RegionShift) == m.route[p].net
}

// Caps combines the networks' facts: what every one of them offers, what
// some do (AnyLoadStore, Async, Modelled), the smallest of their limits,
// and the slowest of the costs they know (unknown if none does).
func (m *Mux) Caps() llc.Caps {
	c := m.nets[0].tr.Caps()
	names := []string{c.Name}
	rings := c.LoadStore // a network that shares memory came first
	for _, n := range m.nets[1:] {
		o := n.tr.Caps()
		names = append(names, o.Name)
		// Ring records travel only on the networks that share memory.
		switch {
		case !o.LoadStore:
		case !rings:
			c.PackedRecords, rings = o.PackedRecords, true
		default:
			c.PackedRecords = min(c.PackedRecords, o.PackedRecords)
		}
		c.LoadStore = c.LoadStore && o.LoadStore
		c.AnyLoadStore = c.AnyLoadStore || o.AnyLoadStore
		c.SharedLines = c.SharedLines && o.SharedLines
		c.MaxRecord = min(c.MaxRecord, o.MaxRecord)
		c.MaxInline = min(c.MaxInline, o.MaxInline)
		c.Offload = false // a synchronisation network spans one network's processes
		c.Combine = c.Combine && o.Combine
		c.Async = c.Async || o.Async
		c.Modelled = c.Modelled || o.Modelled
		c.Latency = max(c.Latency, o.Latency) // 0, unknown, is below every latency
		c.Bandwidth = slowerBandwidth(c.Bandwidth, o.Bandwidth)
	}
	c.Name = strings.Join(names, "+")
	return c
}

// PeerCaps returns the facts of the network that reaches process p (the
// first network's for a process of no network).
func (m *Mux) PeerCaps(p int) llc.Caps {
	if p < 0 || p >= len(m.route) {
		return m.nets[0].tr.Caps()
	}
	return m.nets[m.route[p].net].tr.Caps()
}

// slowerBandwidth is the smaller of two bandwidths, either one where the
// other is not known (0).
func slowerBandwidth(a, b float64) float64 {
	if a == 0 || b == 0 {
		return max(a, b)
	}
	return min(a, b)
}

// Execute issues c on the network of its peer, or of its region for the
// commands on this process's own regions.
func (m *Mux) Execute(c *llc.Command) *llc.Event {
	peer, region := c.Peer, c.Region
	var net int
	switch c.Kind {
	case llc.CmdRelease, llc.CmdWatchRing, llc.CmdWatchSlot:
		net = int(region >> RegionShift)
		if net >= len(m.nets) {
			return m.failed(llc.Event{Kind: llc.EvError, Token: c.Token, Err: fmt.Errorf("mux: %v of region %#x of no network", c.Kind, region)})
		}
	default:
		if peer < 0 || peer >= len(m.route) {
			return m.failed(llc.Event{Kind: llc.EvError, Token: c.Token, Err: fmt.Errorf("mux: %v to process %d of a job of %d", c.Kind, peer, len(m.route))})
		}
		net = m.route[peer].net
		if region != 0 && int(region>>RegionShift) != net {
			return m.failed(llc.Event{Kind: llc.EvError, Token: c.Token, Err: fmt.Errorf("mux: %v to process %d on region %#x of another network", c.Kind, peer, region)})
		}
	}
	if peer >= 0 && peer < len(m.route) && m.route[peer].net == net {
		c.Peer = m.route[peer].peer
	}
	c.Region = region & (1<<RegionShift - 1)
	lock := c.Size
	if c.Kind == llc.CmdCombine && lock != 0 { // the lock's region, on the same network
		if lock>>RegionShift != net {
			return m.failed(llc.Event{Kind: llc.EvError, Token: c.Token, Err: fmt.Errorf("mux: %v to process %d with its lock on region %#x of another network", c.Kind, peer, lock)})
		}
		c.Size = lock & (1<<RegionShift - 1)
	}
	ev := m.nets[net].tr.Execute(c)
	c.Peer, c.Region, c.Size = peer, region, lock
	if ev != nil && ev.Kind == llc.EvDone {
		switch c.Kind {
		case llc.CmdRegister, llc.CmdAlloc, llc.CmdAllocQueue:
			if ev.Value >= 1<<RegionShift {
				return m.failed(llc.Event{Kind: llc.EvError, Token: c.Token, Err: fmt.Errorf("mux: network %d gave region %#x, beyond %d bits", net, ev.Value, RegionShift)})
			}
			ev.Value |= uint64(net) << RegionShift
		}
	}
	return ev
}

// failed returns ev, an error of Execute's own, as Execute's result.
func (m *Mux) failed(ev llc.Event) *llc.Event { return llc.Report(&m.ev, ev) }

// Poll polls every network.
func (m *Mux) Poll(sink llc.Sink) bool {
	p := false
	for i := range m.nets {
		n := &m.nets[i]
		n.sink.to = sink
		if n.tr.Poll(&n.sink) {
			p = true
		}
	}
	return p
}

// MaxSleep bounds a Mux's sleep on its first network when it has more
// than one: traffic on the others does not ring the first one's doorbell,
// so a sleeping process looks at them again at least this often.
const MaxSleep = 200 * time.Microsecond

// Arm arms the first network.
func (m *Mux) Arm() uint32 { return m.nets[0].tr.Arm() }

// Sleep sleeps on the first network, for at most MaxSleep when there are
// others.
func (m *Mux) Sleep(ticket uint32) {
	if len(m.nets) > 1 {
		m.SleepFor(ticket, MaxSleep)
		return
	}
	m.nets[0].tr.Sleep(ticket)
}

// SleepFor is Sleep bounded by d as well (llc.TimedSleeper).
func (m *Mux) SleepFor(ticket uint32, d time.Duration) {
	if len(m.nets) > 1 {
		d = min(d, MaxSleep)
	}
	first := m.nets[0].tr
	if ts, ok := first.(llc.TimedSleeper); ok {
		ts.SleepFor(ticket, d)
		return
	}
	first.Disarm()
	time.Sleep(d)
}

// Disarm disarms the first network.
func (m *Mux) Disarm() { m.nets[0].tr.Disarm() }

// Wake wakes the goroutines asleep on any network. It may be called from
// any goroutine, also while another polls: it reads the networks'
// transports alone, never the sinks Poll writes.
func (m *Mux) Wake() {
	for i := range m.nets {
		if w, ok := m.nets[i].tr.(llc.Waker); ok {
			w.Wake()
		}
	}
}

// YieldHelps asks the first network that is an llc.YieldAdvisor (the one
// between the processes of this host, which may share its processors),
// and reports true if none is.
func (m *Mux) YieldHelps() bool {
	return m.advisor == nil || m.advisor.YieldHelps()
}

// PublishCPU tells the first network that is an llc.YieldAdvisor, where
// it is an llc.CPUPublisher too, the CPU this process is pinned to (-1:
// none).
func (m *Mux) PublishCPU(cpu int) {
	if p, ok := m.advisor.(llc.CPUPublisher); ok {
		p.PublishCPU(cpu)
	}
}

// PeerUnpinned asks the network PublishCPU tells; false if there is none.
func (m *Mux) PeerUnpinned() bool {
	p, ok := m.advisor.(llc.CPUPublisher)
	return ok && p.PeerUnpinned()
}

// CPUMates asks the network PublishCPU tells; -1 and none if there is
// none.
func (m *Mux) CPUMates() (cpu int, pids []int) {
	if p, ok := m.advisor.(llc.CPUPublisher); ok {
		return p.CPUMates()
	}
	return -1, nil
}

// Stats returns the counters of every network, each name prefixed by its
// network's ("tcp.frames").
func (m *Mux) Stats() []llc.Stat {
	var out []llc.Stat
	for i := range m.nets {
		tr := m.nets[i].tr
		if r, ok := tr.(llc.StatsReporter); ok {
			name := tr.Caps().Name
			for _, s := range r.Stats() {
				out = append(out, llc.Stat{Name: name + "." + s.Name, Value: s.Value})
			}
		}
	}
	return out
}

// PeerMemory maps region of process peer through the network that
// reaches peer, when that network shares memory.
func (m *Mux) PeerMemory(peer int, region llc.RegionID) ([]byte, error) {
	if peer < 0 || peer >= len(m.route) {
		return nil, fmt.Errorf("mux: memory of process %d of a job of %d", peer, len(m.route))
	}
	r := m.route[peer]
	n := m.nets[r.net].tr
	sm, ok := n.(llc.SharedMemory)
	if !ok {
		return nil, fmt.Errorf("mux: memory of process %d: its network, %s, shares no memory with this process", peer, n.Caps().Name)
	}
	if !m.Serves(region, peer) {
		return nil, fmt.Errorf("mux: memory of process %d: region %#x is not on its network, %s", peer, region, n.Caps().Name)
	}
	return sm.PeerMemory(r.peer, region&(1<<RegionShift-1))
}

// SharesMemory reports whether the network that reaches peer maps the
// memory peer allocates into this process (llc.SharedMemory).
func (m *Mux) SharesMemory(peer int) bool {
	if peer < 0 || peer >= len(m.route) {
		return false
	}
	_, ok := m.nets[m.route[peer].net].tr.(llc.SharedMemory)
	return ok
}
