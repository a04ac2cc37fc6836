package network

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// fakeNet is a network that records what was asked of it.
type fakeNet struct {
	name   string
	record int // its Caps' MaxRecord
	memory int
	addr   string // "" for a network that is not Addressed
	peers  []string
	closed bool
}

func (f *fakeNet) Caps() llc.Caps                                             { return llc.Caps{Name: f.name, MaxRecord: f.record} }
func (f *fakeNet) Execute(*llc.Command) *llc.Event                            { return &llc.Event{Kind: llc.EvDone, Value: 1} }
func (f *fakeNet) Poll(llc.Sink) bool                                         { return false }
func (f *fakeNet) Arm() uint32                                                { return 0 }
func (f *fakeNet) Sleep(uint32)                                               {}
func (f *fakeNet) Disarm()                                                    {}
func (f *fakeNet) Stats() []llc.Stat                                          { return nil }
func (f *fakeNet) Wake()                                                      {}
func (f *fakeNet) MemorySize() int                                            { return f.memory }
func (f *fakeNet) Close() error                                               { f.closed = true; return nil }
func (f *fakeNet) AllocBarrier() (int, error)                                 { return 0, errors.New("none") }
func (f *fakeNet) Modelled() bool                                             { return true }
func (f *fakeNet) VirtualClock() llc.Clock                                    { return nil }
func (f *fakeNet) SyncGroup(*llc.Endpoint, int, int, []int, uint32) SyncGroup { return nil }

// addressed is a fakeNet that is Addressed.
type addressed struct{ *fakeNet }

func (a addressed) Addr() string { return a.addr }
func (a addressed) SetPeers(addrs []string) error {
	a.peers = addrs
	return nil
}

// fakeDriver opens fakeNets and remembers them.
type fakeDriver struct {
	reach  Reach
	opened []*fakeNet
}

func (d *fakeDriver) Reach() Reach { return d.reach }

func (d *fakeDriver) Open(job *launch.Job) (Network, error) {
	f := &fakeNet{name: "host", record: 4096, memory: 1 << 20}
	if d.reach == Job {
		f = &fakeNet{name: "job", record: 512, memory: 2 << 20, addr: "addr" + string(rune('0'+job.Rank))}
		d.opened = append(d.opened, f)
		return addressed{f}, nil
	}
	d.opened = append(d.opened, f)
	return f, nil
}

// withDrivers runs the test with only the given drivers registered.
func withDrivers(t *testing.T, regs ...registered) {
	t.Helper()
	saved := drivers
	drivers = regs
	t.Cleanup(func() { drivers = saved })
}

func testJob(rank, size, localRank, localSize int, segment bool) *launch.Job {
	j := &launch.Job{Rank: rank, Size: size, LocalRank: localRank, LocalSize: localSize, Host: "a", Settings: launch.DefaultSettings()}
	if segment {
		j.Launcher = launch.LauncherMpirun
		j.Segment = os.Stdin // never read: the fake host driver ignores it
	}
	return j
}

// Open chooses by the job's placement and settings, and says which import
// is missing when no network is registered.
func TestOpenChooses(t *testing.T) {
	host, job := &fakeDriver{reach: Host}, &fakeDriver{reach: Job}
	withDrivers(t, registered{"host", host}, registered{"job", job})
	for _, tc := range []struct {
		name      string
		job       *launch.Job
		transport string
		want      string // the network the engine drives before Connect, "" for none yet
		spans     bool
	}{
		{"one host", testJob(1, 4, 1, 4, true), "", "host", false},
		{"singleton", testJob(0, 1, 0, 1, false), "", "host", false},
		{"no segment", testJob(1, 4, 1, 4, false), "", "job", false},
		{"named", testJob(1, 4, 1, 4, true), "job", "job", false},
		{"across hosts", testJob(3, 4, 1, 2, true), launch.TransportAuto, "", true},
	} {
		tc.job.Settings.Transport = tc.transport
		n, err := Open(tc.job)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := ""
		if n.Network() != nil {
			got = n.Network().Caps().Name
		}
		if got != tc.want || n.Spans() != tc.spans {
			t.Errorf("%s: network %q, spans %v; want %q, %v", tc.name, got, n.Spans(), tc.want, tc.spans)
		}
		if want := tc.want == "host" || tc.spans; n.Modelled() != want {
			t.Errorf("%s: modelled %v, want %v (the host network's model)", tc.name, n.Modelled(), want)
		}
		if off := n.Offload(); (off != nil) != (tc.want == "host") {
			t.Errorf("%s: offload %v, want one only from the host network reaching every process", tc.name, off)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	withDrivers(t)
	if _, err := Open(testJob(0, 1, 0, 1, false)); err == nil || !strings.Contains(err.Error(), Import) {
		t.Errorf("no network registered: error %v, want one naming %s", err, Import)
	}
	withDrivers(t, registered{"host", &fakeDriver{reach: Host}})
	j := testJob(0, 4, 0, 2, true)
	j.Settings.Transport = "host"
	if _, err := Open(j); err == nil || !strings.Contains(err.Error(), "several hosts") {
		t.Errorf("a host network across hosts: error %v", err)
	}
	j.Settings.Transport = launch.TransportTCP
	if _, err := Open(j); err == nil || !strings.Contains(err.Error(), "not registered") || !strings.Contains(err.Error(), Import) {
		t.Errorf("an unregistered network: error %v", err)
	}
	j.Settings.Transport = ""
	if _, err := Open(j); err == nil || !strings.Contains(err.Error(), "other hosts") {
		t.Errorf("across hosts without a job network: error %v", err)
	}
}

// Across hosts, Connect gives the job network every address and joins
// both networks in a Mux: the host network to the ranks of this host,
// whose records go as the job network's limit says, the others through
// the receive queue.
func TestConnectAcrossHosts(t *testing.T) {
	host, job := &fakeDriver{reach: Host}, &fakeDriver{reach: Job}
	withDrivers(t, registered{"host", host}, registered{"job", job})
	j := testJob(2, 4, 0, 2, true) // ranks 2 and 3 on this host
	n, err := Open(j)
	if err != nil {
		t.Fatal(err)
	}
	if n.Addr() != "addr2" || n.MemorySize() != 1<<20 {
		t.Errorf("address %q, memory %d; want the job network's address and the host network's memory", n.Addr(), n.MemorySize())
	}
	addrs := []string{"a0", "a1", "a2", "a3"}
	if err := n.Connect(j, addrs, []int{2, 3}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(job.opened[0].peers, addrs) {
		t.Errorf("job network's peers %v, want %v", job.opened[0].peers, addrs)
	}
	if _, ok := n.Network().(*Mux); !ok {
		t.Fatalf("network %T, want a *Mux", n.Network())
	}
	if got, want := n.QueuePeers(), []bool{true, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("queue peers %v, want %v", got, want)
	}
	if got := n.Caps().MaxRecord; got != 512 {
		t.Errorf("MaxRecord %d, want the job network's 512", got)
	}
	if n.Offload() != nil {
		t.Error("an offload across hosts, where the host network does not reach every process")
	}
	if err := n.Close(); err != nil || !host.opened[0].closed || !job.opened[0].closed {
		t.Errorf("Close: %v; host closed %v, job closed %v", err, host.opened[0].closed, job.opened[0].closed)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	withDrivers(t)
	Register("x", &fakeDriver{reach: Host})
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	Register("x", &fakeDriver{reach: Job})
}
