package mux

import (
	"testing"

	"github.com/rhinet-go/martini/llc"
)

// stub is a network that records the commands it is given, gives region
// 5 to every allocation, and delivers one record from its process 1.
type stub struct {
	name string
	got  []llc.Command
}

func (s *stub) Caps() llc.Caps { return llc.Caps{Name: s.name} }
func (s *stub) Execute(c *llc.Command) *llc.Event {
	s.got = append(s.got, *c)
	return &llc.Event{Kind: llc.EvDone, Token: c.Token, Value: 5}
}
func (s *stub) Poll(sink llc.Sink) bool {
	sink.Step(&llc.Event{Kind: llc.EvRecord, Peer: 1})
	return true
}
func (s *stub) Arm() uint32  { return 0 }
func (s *stub) Sleep(uint32) {}
func (s *stub) Disarm()      {}

type sinkFunc func(*llc.Event)

func (f sinkFunc) Step(ev *llc.Event) { f(ev) }

// A Mux sends each command to its peer's network under the peer's index
// there, tags the regions a network gives with the network's index and
// routes commands on them back to it, and names the senders of records
// in the job.
func TestMuxRoutes(t *testing.T) {
	host, wide := &stub{name: "host"}, &stub{name: "wide"}
	m, err := New(3, []Network{{Transport: host, Procs: []int{2, 0}}, {Transport: wide, Procs: []int{0, 1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Network(0) != "host" || m.Network(1) != "wide" || m.Caps().Name != "host+wide" {
		t.Fatalf("networks %q %q, caps %q", m.Network(0), m.Network(1), m.Caps().Name)
	}
	ev := llc.Outcome(m.Execute(&llc.Command{Kind: llc.CmdAlloc, Peer: 1, Token: 7}))
	if ev.Kind != llc.EvDone || llc.RegionID(ev.Value) != 1<<RegionShift|5 || len(wide.got) != 1 || wide.got[0].Peer != 1 {
		t.Fatalf("alloc for process 1: %+v, the wide network got %+v", ev, wide.got)
	}
	m.Execute(&llc.Command{Kind: llc.CmdWrite, Peer: 2, Region: 0<<RegionShift | 5})
	if len(host.got) != 1 || host.got[0].Peer != 0 || host.got[0].Region != 5 {
		t.Fatalf("write to process 2: the host network got %+v", host.got)
	}
	if ev := llc.Outcome(m.Execute(&llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: 5, Token: 3})); ev.Kind != llc.EvError || ev.Token != 3 {
		t.Fatalf("write to process 1 on a region of the host network: %+v", ev)
	}
	var from []int
	m.Poll(sinkFunc(func(ev *llc.Event) { from = append(from, ev.Peer) }))
	if len(from) != 2 || from[0] != 0 || from[1] != 1 {
		t.Fatalf("records from job processes %v, want [0 1]", from)
	}
}

// A combination goes to its peer's network with both its regions, the
// bytes' and the lock's, untagged; one whose lock lies on another
// network fails. PeerCaps are the facts of the network reaching each
// process.
func TestMuxCombine(t *testing.T) {
	host, wide := &stub{name: "host"}, &combineStub{stub{name: "wide"}}
	m, err := New(2, []Network{{Transport: host, Procs: []int{0}}, {Transport: wide, Procs: []int{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if m.PeerCaps(0).Combine || !m.PeerCaps(1).Combine || m.Caps().Combine {
		t.Fatalf("combinations served: to 0 %v, to 1 %v, by the mux %v; want false, true, false", m.PeerCaps(0).Combine, m.PeerCaps(1).Combine, m.Caps().Combine)
	}
	c := llc.Command{Kind: llc.CmdCombine, Peer: 1, Region: 1<<RegionShift | 5, Size: 1<<RegionShift | 6, Token: 2}
	if ev := llc.Outcome(m.Execute(&c)); ev.Kind != llc.EvDone || len(wide.got) != 1 || wide.got[0].Region != 5 || wide.got[0].Size != 6 {
		t.Fatalf("combination: %+v, the wide network got %+v", ev, wide.got)
	}
	if c.Region != 1<<RegionShift|5 || c.Size != 1<<RegionShift|6 {
		t.Fatalf("the caller's command changed: regions %#x, %#x", c.Region, c.Size)
	}
	c.Size = 6
	if ev := llc.Outcome(m.Execute(&c)); ev.Kind != llc.EvError || len(wide.got) != 1 {
		t.Fatalf("combination with its lock on another network: %+v", ev)
	}
}

// combineStub is a stub whose network serves combinations.
type combineStub struct{ stub }

func (s *combineStub) Caps() llc.Caps { return llc.Caps{Name: s.name, Combine: true} }
