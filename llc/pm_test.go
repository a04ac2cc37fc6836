package llc

import (
	"fmt"
	"testing"
)

// Every process connects to every process (itself included) when its
// engine starts, whether or not it sends; the handshakes that lose a
// responder's slot are retried until all are up, and the engines are not
// idle before.
func TestPMStartup(t *testing.T) {
	const n = 5
	c := newCluster(t, n, withEager(EagerPM, nil)) // start-up commands issued
	for i, e := range c.eng {
		if e.State().Idle {
			t.Fatalf("engine %d idle before its connections are up", i)
		}
	}
	// A send issued before its connection is up waits for it.
	s := c.send(0, n-1, 1, 0, pattern(1, 10))
	if s.Done() {
		t.Fatal("send done before the connection exists")
	}
	c.idle()
	var retries uint64
	for i, e := range c.eng {
		for dst := range n {
			if e.peers[dst].conn != connUp {
				t.Errorf("engine %d: connection to %d in state %d", i, dst, e.peers[dst].conn)
			}
		}
		st := e.State().Stats
		if st.Connections != n || st.RingsGranted != n || e.rings != n {
			t.Errorf("engine %d: %d connections, %d rings granted, %d inbound rings; want %d each",
				i, st.Connections, st.RingsGranted, e.rings, n)
		}
		if e.pmPending != 0 {
			t.Errorf("engine %d: %d connections pending", i, e.pmPending)
		}
		retries += st.ConnectRetries
	}
	if retries == 0 {
		t.Error("no initiator lost a slot: the start-up race was not exercised")
	}
	for i := range n {
		if got := bootWord(c, i, bootLock); got != 0 {
			t.Errorf("engine %d's common slot still held by %d", i, got-1)
		}
	}
	r := c.recv(n-1, 0, 1, 0, 10)
	c.wait(s, r)
	checkRecv(t, "early send", r, 0, 1, pattern(1, 10))
	// Traffic needs no connection any more: a send completes at once.
	s = c.send(2, 3, 2, 0, pattern(2, 20))
	checkSent(t, "send after start-up", s)
	c.noErrs()
}

// A refused start-up connection fails the sends to that peer only, and
// settles the engine.
func TestPMStartupRefused(t *testing.T) {
	const n = 3
	c := newCluster(t, n, withEager(EagerPM, func(i int, cfg *Config) {
		if i == 2 {
			cfg.RingCap = 2 * (ringCtl + cfg.RingSize) // one sender goes without
		}
	}))
	c.idle()
	refused := -1
	for i := range n {
		if c.eng[i].peers[2].conn == connFailed {
			if refused >= 0 {
				t.Fatalf("engines %d and %d were both refused", refused, i)
			}
			refused = i
		}
	}
	if refused < 0 {
		t.Fatal("nobody was refused by the capped responder")
	}
	s := c.send(refused, 2, 1, 0, pattern(1, 10))
	if !s.Done() || s.Err() == nil {
		t.Fatalf("send to the responder that refused: done %v err %v", s.Done(), s.Err())
	}
	c.noErrs()
}

// Every record, control records and wrap markers included, starts at a
// PMAlign-aligned position of its ring, and its size is a multiple of
// PMAlign.
func TestPMAlignment(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			const ring = 4 * PMAlign
			c := newCluster(t, 2, withEager(EagerPM, func(_ int, cfg *Config) {
				cfg.RingSize, cfg.EagerLimit, cfg.Rendezvous = ring, MaxEagerLimit(ring), mode
			}))
			c.idle()
			c.tracing = true
			for i := range 40 {
				size := []int{10, 2000, 33, 2000, 0, 3000, MaxEagerLimit(ring), 50000, 1, 500}[i%10]
				s := c.send(0, 1, 1, 0, pattern(i, size))
				r := c.recv(1, 0, 1, 0, size)
				c.wait(s, r)
				checkRecv(t, fmt.Sprint("message ", i), r, 0, 1, pattern(i, size))
			}
			c.idle()
			rings := map[[2]int]RegionID{{0, 1}: c.eng[0].peers[1].out.region, {1, 0}: c.eng[1].peers[0].out.region}
			var records, wraps, control int
			for _, cmd := range c.trace {
				if cmd.Kind != CmdWrite || cmd.Region != rings[[2]int{cmd.src, cmd.Peer}] || cmd.Signal == 0 {
					continue // not a ring's signal word
				}
				wrap := uint8(cmd.Signal) == recWrap
				// The signal's command starts at the record, packed or
				// split; a wrap marker is its signal word alone.
				pos, size := cmd.Off-ringCtl, cmd.Signal&0xffffffff
				if wrap {
					pos = cmd.SigOff - ringCtl
				}
				if pos%PMAlign != 0 || (!wrap && size%PMAlign != 0) {
					t.Errorf("%v: record at ring position %d of %d bytes", cmd, pos, size)
				}
				switch {
				case wrap:
					wraps++
				case cmd.recKind() != recEager:
					control++
				}
				records++
			}
			if records < 40 || wraps == 0 || control == 0 {
				t.Fatalf("%d records, %d wrap markers, %d control records traced", records, wraps, control)
			}
			if head := c.eng[0].peers[1].out.head; head%PMAlign != 0 || head < 4*ring {
				t.Fatalf("ring head %d", head)
			}
		})
	}
}
