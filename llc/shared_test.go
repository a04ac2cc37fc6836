package llc

import (
	"fmt"
	"strings"
	"testing"
)

// sharedTransport is the in-memory network with its memory mapped into
// every process, as martini's segment is.
type sharedTransport struct{ *memTransport }

func (s sharedTransport) PeerMemory(peer int, region RegionID) ([]byte, error) {
	s.net.mu.Lock()
	defer s.net.mu.Unlock()
	if mem, ok := s.net.procs[peer][region]; ok {
		return mem, nil
	}
	return nil, fmt.Errorf("no region %d of process %d", region, peer)
}

// Over a Mux, the memory of a process of the host comes through the
// host's network, which shares it; a process of the other host shares
// none, and a region of another network is refused.
func TestMuxPeerMemory(t *testing.T) {
	host, wide := newMemNet(2), newMemNet(4)
	mux := func(p int) TestMux {
		m, err := NewTestMux(4, []Transport{sharedTransport{&memTransport{net: host, self: p}}, &memTransport{net: wide, self: p}}, [][]int{{0, 1}, {0, 1, 2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m0, m1 := mux(0), mux(1)
	boot := make([]RegionID, 4)
	for p, m := range []TestMux{m0, m1} {
		var err error
		if boot[p], err = AllocBoot(m, p, 4); err != nil {
			t.Fatal(err)
		}
	}
	ep0 := NewEndpoint(mustEngine(t, 0, boot), m0)
	ep1 := NewEndpoint(mustEngine(t, 1, boot), m1)
	alloc := &ExposeOp{Peer: 1, Size: 32}
	if err := ep1.Expose(alloc, false); err != nil {
		t.Fatal(err)
	}
	if !ep0.SharesMemory(1) || ep0.SharesMemory(2) {
		t.Fatalf("process 0 shares memory with 1: %v (want true), with 2: %v (want false)", ep0.SharesMemory(1), ep0.SharesMemory(2))
	}
	view, err := ep0.PeerMemory(1, alloc.Region)
	if err != nil {
		t.Fatal(err)
	}
	view[5] = 42
	if alloc.Mem[5] != 42 {
		t.Error("a store through the view is not in the owner's memory")
	}
	for _, c := range []struct {
		peer   int
		region RegionID
		want   string
	}{
		{2, alloc.Region, "shares no memory"},
		{1, alloc.Region | 1<<RegionNetShift, "not on its network"},
		{7, alloc.Region, "job of 4"},
	} {
		if _, err := ep0.PeerMemory(c.peer, c.region); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PeerMemory(%d, %#x): %v, want an error saying %q", c.peer, c.region, err, c.want)
		}
	}
	if wrapped := NewEndpoint(mustEngine(t, 0, boot), struct{ Transport }{m0}); wrapped.SharesMemory(1) || wrapped.SharesMemory(2) {
		t.Error("a transport that is neither SharedMemory nor PeerSharer shares memory")
	}
	if _, err := NewEndpoint(mustEngine(t, 0, boot), &memTransport{net: host}).PeerMemory(1, alloc.Region); err == nil {
		t.Error("a network that shares no memory mapped a region")
	}
}

func mustEngine(t *testing.T, self int, boot []RegionID) *Engine {
	t.Helper()
	eng, err := NewEngine(Config{Self: self, Size: 4, Boot: boot, EagerLimit: 1024, RingSize: 4096, RingCap: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}
