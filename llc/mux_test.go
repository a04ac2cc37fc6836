package llc

import (
	"fmt"
	"testing"
)

// muxJob is a job of two hosts of two processes each: rings over a
// load/store network within a host, and records over a third network
// reaching every process between hosts, multiplexed per peer.
type muxJob struct {
	eps  []*Endpoint
	host []*memNet // the network of each host
	wide *memNet   // the network between hosts
}

func newMuxJob(t *testing.T, rndv RndvMode) *muxJob {
	t.Helper()
	j := &muxJob{host: []*memNet{newMemNet(2), newMemNet(2)}, wide: newMemNet(4)}
	var muxes []TestMux
	boot := make([]RegionID, 4) // allocated through each process's mux
	for p := range 4 {
		h, local := p/2, p%2
		mux, err := NewTestMux(4, []Transport{&memTransport{net: j.host[h], self: local}, &memTransport{net: j.wide, self: p}}, [][]int{{2 * h, 2*h + 1}, {0, 1, 2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		if got := mux.Network(p ^ 1); got != "memnet" {
			t.Fatalf("process %d reaches its host neighbour over %q", p, got)
		}
		if boot[p], err = AllocBoot(mux, p, 4); err != nil {
			t.Fatal(err)
		}
		muxes = append(muxes, mux)
	}
	for p, mux := range muxes {
		queued := make([]bool, 4)
		for q := range 4 {
			queued[q] = q/2 != p/2
		}
		eng, err := NewEngine(Config{Self: p, Size: 4, Boot: boot, QueuePeers: queued, QueueSize: testQueueSize,
			EagerLimit: 1024, RingSize: 4096, RingCap: 1 << 30, Rendezvous: rndv})
		if err != nil {
			t.Fatal(err)
		}
		ep := NewEndpoint(eng, mux)
		ep.Exclusive(func() {}) // issue the start-up commands: the queue
		j.eps = append(j.eps, ep)
	}
	return j
}

// run drives every endpoint until every op is done.
func (j *muxJob) run(t *testing.T, ops []Completion) {
	t.Helper()
	for round := 0; round < 100000; round++ {
		done := true
		for _, op := range ops {
			done = done && op.Done()
		}
		if done {
			return
		}
		for _, ep := range j.eps {
			ep.Progress()
		}
	}
	for i, ep := range j.eps {
		t.Logf("process %d: %v", i, ep.Err())
	}
	t.Fatal("operations not done after 100000 rounds")
}

// Every pair of processes exchanges eager and rendezvous messages, within
// a host through rings and between hosts through records, in order.
func TestMuxPerPeerNetworks(t *testing.T) {
	for _, rndv := range []RndvMode{RndvPull, RndvPush, RndvSplit} {
		t.Run(rndv.String(), func(t *testing.T) {
			j := newMuxJob(t, rndv)
			sizes := []int{0, 8, 100, 1024, 1025, 5000}
			var ops []Completion
			var recvs []*RecvOp
			var want [][]byte
			for src := range 4 {
				for dst := range 4 {
					for k, n := range sizes {
						data := pattern(src*100+dst*10+k, n)
						s := &SendOp{Peer: dst, Tag: int32(k), Data: data}
						r := &RecvOp{Source: src, Tag: int32(k), Buf: make([]byte, n)}
						j.eps[dst].Recv(r)
						j.eps[src].Send(s)
						ops = append(ops, s, r)
						recvs, want = append(recvs, r), append(want, data)
					}
				}
			}
			j.run(t, ops)
			for i, r := range recvs {
				checkRecv(t, fmt.Sprint("message ", i), r, r.Source, r.Tag, want[i])
			}
			for p, ep := range j.eps {
				st := ep.Stats()
				if st.Connections != 2 || st.RingsGranted != 2 {
					// Rings to itself and its host neighbour only.
					t.Errorf("process %d: %d connections, %d rings granted; want 2 and 2 (itself and its host neighbour)", p, st.Connections, st.RingsGranted)
				}
			}
			for p := range 4 {
				if j.wide.queues[p] == nil || j.wide.queues[p].released == 0 {
					t.Errorf("process %d received nothing through the network between hosts", p)
				}
			}
		})
	}
}

// Commands naming a process no network reaches, or a region of no
// network, fail with their token.
func TestMuxErrors(t *testing.T) {
	net := newMemNet(2)
	if _, err := NewTestMux(3, []Transport{&memTransport{net: net}}, [][]int{{0, 1}}); err == nil {
		t.Error("a job of 3 processes over a network reaching 2 was accepted")
	}
	m, err := NewTestMux(2, []Transport{&memTransport{net: net}}, [][]int{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Command{
		{Kind: CmdWrite, Peer: 5, Token: 9},
		{Kind: CmdRelease, Region: 3 << RegionNetShift, Token: 9},
		{Kind: CmdRead, Peer: 1, Region: 2<<RegionNetShift | 1, Data: make([]byte, 1), Token: 9},
	} {
		if ev := Outcome(m.Execute(&c)); ev.Kind != EvError || ev.Token != 9 {
			t.Errorf("%v: %+v, want an error", traced{0, c}, ev)
		}
	}
}

// Memory allocated on the network of a host and registered on the one
// between hosts as well is the target of one-sided operations of every
// process: atomics of the host neighbour through the first region and of
// the other host's processes through the second land in the same words.
func TestMuxRMAAcrossNetworks(t *testing.T) {
	j := newMuxJob(t, RndvSplit)
	mux := j.eps[0].tr.(TestMux)
	alloc := &ExposeOp{Peer: 0, Size: 64}
	if err := j.eps[0].Expose(alloc, false); err != nil {
		t.Fatal(err)
	}
	regions := make([]RegionID, 4)
	var regs []*ExposeOp
	for p := range 4 {
		if mux.Serves(alloc.Region, p) {
			regions[p] = alloc.Region
			continue
		}
		r := &ExposeOp{Peer: p, Data: alloc.Mem}
		if err := j.eps[0].Expose(r, false); err != nil {
			t.Fatal(err)
		}
		if !mux.Serves(r.Region, p) || mux.Serves(r.Region, 1) {
			t.Fatalf("region %#x registered for process %d: serves it %v, serves process 1 %v", r.Region, p, mux.Serves(r.Region, p), mux.Serves(r.Region, 1))
		}
		regions[p], regs = r.Region, append(regs, r)
	}
	if regions[1] != alloc.Region || regions[2] == alloc.Region || regions[3] == alloc.Region {
		t.Fatalf("regions by process %#x: want the allocation's (%#x) for 0 and 1 only", regions, alloc.Region)
	}
	var ops []Completion
	for p := 1; p < 4; p++ {
		for k := range 5 {
			op := &RMAOp{Kind: RMAFetchAdd, Peer: 0, Region: regions[p], Off: 8, Limit: 64, Operand: uint64(1) << (8 * p)}
			put := &RMAOp{Kind: RMAPut, Peer: 0, Region: regions[p], Off: uint64(16 + 8*p), Limit: 64, Data: []byte{byte(p), byte(k)}}
			j.eps[p].RMA(op)
			j.eps[p].RMA(put)
			ops = append(ops, op, put)
		}
	}
	j.run(t, ops)
	for _, op := range ops {
		if err := op.(*RMAOp).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if got := *word(alloc.Mem, 8); got != 5<<8|5<<16|5<<24 {
		t.Errorf("counter %#x, want %#x", got, 5<<8|5<<16|5<<24)
	}
	for p := 1; p < 4; p++ {
		if got := alloc.Mem[16+8*p : 18+8*p]; got[0] != byte(p) || got[1] != 4 {
			t.Errorf("put of process %d: %v, want [%d 4]", p, got, p)
		}
	}
	for _, r := range append(regs, alloc) {
		if err := j.eps[0].Expose(r, true); err != nil {
			t.Error(err)
		}
	}
}
