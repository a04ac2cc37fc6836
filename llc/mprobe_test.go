package llc

import (
	"errors"
	"fmt"
	"testing"
)

// Mprobe takes a message out of the matching: a later receive or probe
// does not see it, and RecvMatched receives it once, eager or rendezvous.
func TestMprobe(t *testing.T) {
	for _, mode := range modes {
		for _, size := range []int{0, 16, 1024, 5000, 300 << 10} {
			t.Run(fmt.Sprintf("%v/%d", mode, size), func(t *testing.T) {
				c := newCluster(t, 2, func(_ int, cfg *Config) { cfg.Rendezvous = mode })
				first, second := pattern(1, size), pattern(2, size+1)
				s1 := c.send(0, 1, 4, 0, first)
				s2 := c.send(0, 1, 4, 0, second)
				c.run("both arrived", func() bool { return c.eng[1].State().Stats.Unexpected == 2 })
				m, ok := mprobeOn(c.eng[1], AnySource, 4, 0)
				if !ok || m.Status != (Status{Source: 0, Tag: 4, Len: size}) {
					t.Fatalf("Mprobe: %v %+v, want the first message", ok, m)
				}
				if st, ok := probeOn(c.eng[1], 0, 4, 0); !ok || st.Len != size+1 {
					t.Fatalf("Probe after Mprobe: %+v %v, want the second message", st, ok)
				}
				r2 := c.recv(1, 0, 4, 0, size+1)
				r1 := &RecvOp{Source: 1, Tag: 99, Ctx: 7, Buf: make([]byte, size)} // ignored by RecvMatched
				recvMatchedOn(c.eng[1], m, r1)
				c.drain(1)
				c.wait(s1, s2, r1, r2)
				checkRecv(t, "matched", r1, 0, 4, first)
				checkRecv(t, "second", r2, 0, 4, second)
				again := &RecvOp{Buf: make([]byte, size)}
				recvMatchedOn(c.eng[1], m, again)
				if !again.Done() || !errors.Is(again.Err(), ErrMatchedTaken) {
					t.Fatalf("second RecvMatched: done=%v err=%v", again.Done(), again.Err())
				}
				c.noErrs()
				c.idle()
			})
		}
	}
}

// A matched message short enough to be held in its unexpected entry
// keeps its payload once that entry is given back and taken by the next
// message to arrive.
func TestMprobeSmallOutlivesEntry(t *testing.T) {
	for _, size := range []int{0, 8, 13, 16} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			c := newCluster(t, 2, nil)
			first, next := pattern(1, size), pattern(2, size)
			s1 := c.send(0, 1, 4, 0, first)
			c.run("arrived", func() bool { return c.eng[1].State().Stats.Unexpected == 1 })
			m, ok := mprobeOn(c.eng[1], 0, 4, 0)
			if !ok {
				t.Fatal("Mprobe found nothing")
			}
			s2 := c.send(0, 1, 4, 0, next) // into the entry the first left
			c.run("next arrived", func() bool { return c.eng[1].State().Stats.Unexpected == 2 })
			r1 := &RecvOp{Buf: make([]byte, size)}
			recvMatchedOn(c.eng[1], m, r1)
			r2 := c.recv(1, 0, 4, 0, size)
			c.drain(1)
			c.wait(s1, s2, r1, r2)
			checkRecv(t, "matched", r1, 0, 4, first)
			checkRecv(t, "next", r2, 0, 4, next)
			c.noErrs()
			c.idle()
		})
	}
}

// Mprobe of a synchronous message acknowledges it: the match has
// happened, though the data is received later.
func TestMprobeAcksSync(t *testing.T) {
	c := newCluster(t, 2, nil)
	s := c.ssend(0, 1, 2, 0, pattern(5, 20))
	c.run("arrived", func() bool { _, ok := probeOn(c.eng[1], 0, 2, 0); return ok })
	if _, ok := mprobeOn(c.eng[1], 0, 3, 0); ok {
		t.Fatal("Mprobe matched a message of another tag")
	}
	m, ok := mprobeOn(c.eng[1], 0, 2, 0)
	if !ok {
		t.Fatal("Mprobe found nothing")
	}
	c.drain(1)
	c.wait(s)
	checkSent(t, "ssend", s)
	if got := c.eng[1].State().Unreceived; len(got) != 0 {
		t.Fatalf("matched message still listed as unreceived: %+v", got)
	}
	r := &RecvOp{Buf: make([]byte, 10)}
	recvMatchedOn(c.eng[1], m, r)
	if !r.Done() || !errors.Is(r.Err(), ErrTruncated) || r.Status.Len != 20 {
		t.Fatalf("truncated matched receive: done=%v err=%v status %+v", r.Done(), r.Err(), r.Status)
	}
	c.idle()
}
