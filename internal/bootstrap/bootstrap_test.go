package bootstrap

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/network"
)

// fakeNet is a network whose bootstrap region is 100 plus its process's
// rank, and which remembers the peers it was given.
type fakeNet struct {
	name  string
	rank  int
	addr  string
	peers []string
}

func (f *fakeNet) Caps() llc.Caps { return llc.Caps{Name: f.name, MaxRecord: 1024} }
func (f *fakeNet) Execute(*llc.Command) *llc.Event {
	return &llc.Event{Kind: llc.EvDone, Value: uint64(100 + f.rank)}
}
func (f *fakeNet) Poll(llc.Sink) bool { return false }
func (f *fakeNet) Arm() uint32        { return 0 }
func (f *fakeNet) Sleep(uint32)       {}
func (f *fakeNet) Disarm()            {}
func (f *fakeNet) Stats() []llc.Stat  { return nil }
func (f *fakeNet) Wake()              {}
func (f *fakeNet) MemorySize() int    { return 1 << 20 }
func (f *fakeNet) Close() error       { return nil }
func (f *fakeNet) Addr() string       { return f.addr }
func (f *fakeNet) SetPeers(a []string) error {
	f.peers = a
	return nil
}

type fakeDriver struct {
	reach network.Reach
	mu    sync.Mutex
	nets  map[int]*fakeNet // by rank
}

func (d *fakeDriver) Reach() network.Reach { return d.reach }

func (d *fakeDriver) Open(job *launch.Job) (network.Network, error) {
	f := &fakeNet{name: fmt.Sprint(d.reach), rank: job.Rank, addr: fmt.Sprintf("addr-%d", job.Rank)}
	d.mu.Lock()
	d.nets[job.Rank] = f
	d.mu.Unlock()
	return f, nil
}

var (
	hostDriver = &fakeDriver{reach: network.Host, nets: map[int]*fakeNet{}}
	jobDriver  = &fakeDriver{reach: network.Job, nets: map[int]*fakeNet{}}
)

func init() {
	network.Register("fake-host", hostDriver)
	network.Register("fake-job", jobDriver)
}

// A job of 4 ranks on 2 hosts: every rank learns every bootstrap region,
// no World barrier (no network reaches every process with an offload),
// the job network gets every address, and the Mux sends to the ranks of
// the other host through the receive queue.
func TestExchangeAcrossHosts(t *testing.T) {
	const n = 4
	stores := storeJob(t, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job := &launch.Job{Rank: r, Size: n, Store: stores[r], Segment: os.Stdin, Host: fmt.Sprint("h", r/2),
				LocalRank: r % 2, LocalSize: 2, Launcher: launch.LauncherMpirun, Settings: launch.DefaultSettings()}
			nets, err := network.Open(job)
			if err != nil {
				t.Error(err)
				return
			}
			res, err := Exchange(job, nets)
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
				return
			}
			if want := []llc.RegionID{100, 101, 102, 103}; !slices.Equal(res.Boot, want) || res.WorldBarrier != -1 {
				t.Errorf("rank %d: regions %v, World barrier %d; want %v and -1", r, res.Boot, res.WorldBarrier, want)
			}
			other := r/2 == 0
			if want := []bool{!other, !other, other, other}; !slices.Equal(nets.QueuePeers(), want) {
				t.Errorf("rank %d: queue peers %v, want %v", r, nets.QueuePeers(), want)
			}
		}()
	}
	wg.Wait()
	for r := range n {
		if want := []string{"addr-0", "addr-1", "addr-2", "addr-3"}; !slices.Equal(jobDriver.nets[r].peers, want) {
			t.Errorf("rank %d: peers %v, want %v", r, jobDriver.nets[r].peers, want)
		}
	}
}
