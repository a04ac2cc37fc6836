package llc

import (
	"testing"

	"github.com/rhinet-go/martini/internal/spinwait"
)

// TestLineQuietAdapts scripts a quiet window's reads on a counter of one
// tick a nanosecond: late answers grow it up to its cap, answers found at
// the first read shrink it, reads in vain end the wait without changing
// it, the clock is read only while the window is not zero, and without a
// counter there is no window.
func TestLineQuietAdapts(t *testing.T) {
	at := func(now uint64) func() uint64 { return func() uint64 { return now } }
	unread := func() uint64 { t.Fatal("the clock read for a window of zero"); return 0 }
	q := newLineQuiet(1000)
	if q.grow != quietGrowNs || q.max != quietMaxNs {
		t.Fatalf("steps of %d and %d ticks at 1000 a microsecond, want %d and %d", q.grow, q.max, quietGrowNs, quietMaxNs)
	}
	q.written(unread)
	if q.holding || !q.waiting {
		t.Fatalf("a window of zero: holding %v, waiting %v", q.holding, q.waiting)
	}
	q.read(false)
	q.read(true) // the answer came at the second read: late
	if q.window != quietGrowNs || q.waiting {
		t.Fatalf("after a late answer: window %d, waiting %v; want %d and no wait", q.window, q.waiting, quietGrowNs)
	}
	q.written(at(2000))
	if !q.holds(2000+quietGrowNs-1) || !q.holding || q.holds(2000+quietGrowNs) || q.holding {
		t.Fatalf("a window of %d does not end %d ticks after the write", q.window, quietGrowNs)
	}
	q.read(true) // found at the first read: the window may be too long
	if q.window != quietGrowNs-1 {
		t.Fatalf("after an answer at the first read: window %d, want %d", q.window, quietGrowNs-1)
	}
	q.written(at(3000))
	if q.holds(2999) || q.holding {
		t.Fatal("a clock that went back holds the read")
	}
	for range quietLate - 1 {
		q.read(false)
	}
	if !q.waiting {
		t.Fatalf("the wait ended after %d reads in vain, before %d", quietLate-1, quietLate)
	}
	q.read(false)
	if q.waiting || q.window != quietGrowNs-1 {
		t.Fatalf("after %d reads in vain: waiting %v, window %d; want no wait and the window unchanged", quietLate, q.waiting, q.window)
	}
	for i := range 100 {
		q.written(at(uint64(4000 + i)))
		q.read(false)
		q.read(true)
	}
	if q.window != quietMaxNs {
		t.Fatalf("after 100 late answers: window %d, want the cap %d", q.window, quietMaxNs)
	}
	for range 1000 {
		q.written(at(9000))
		q.read(true)
	}
	if q.window != 0 {
		t.Fatalf("after 1000 answers at the first read: window %d, want 0", q.window)
	}
	none := newLineQuiet(0)
	none.written(unread)
	if none.waiting || none.holding {
		t.Fatal("a window without a counter")
	}
}

// TestLineQuietDelivery runs the window in a pair's line: a record that
// arrives while process 0's window holds is read only once it has ended,
// and a record already there when process 0 writes opens no window.
func TestLineQuietDelivery(t *testing.T) {
	if spinwait.TicksPerMicrosecond() == 0 {
		t.Skip("no processor counter: no quiet window")
	}
	for _, crossed := range []bool{false, true} {
		c := lineCluster(t, 2, 4096)
		c.connect(0, 1)
		c.connect(1, 0)
		l1 := &c.eng[1].peers[0].line
		l1.acked = l1.sent // both halves free (see TestLineCrossed)
		half := c.net.local[0].lines[1]
		half.quiet.window = 1 << 62 // holds every read once it starts
		r0 := c.recv(0, 1, 1, 0, 8)
		var s0, s1 *SendOp
		if crossed {
			s1 = c.send(1, 0, 1, 0, pattern(2, 8))
			s0 = c.send(0, 1, 1, 0, pattern(1, 8))
		} else {
			s0 = c.send(0, 1, 1, 0, pattern(1, 8))
			s1 = c.send(1, 0, 1, 0, pattern(2, 8))
		}
		if st := c.eng[1].Stats(); st.LineSent != 2 {
			t.Fatalf("crossed %v: process 1 wrote %d line records, want 2", crossed, st.LineSent)
		}
		for range 5 {
			c.poll(0)
		}
		if r0.Done() != crossed {
			t.Fatalf("crossed %v: the record was read in the window: %v", crossed, r0.Done())
		}
		half.quiet.window = 0
		r1 := c.recv(1, 0, 1, 0, 8)
		c.wait(s0, s1, r0, r1)
		checkRecv(t, "1 to 0", r0, 1, 1, pattern(2, 8))
		checkRecv(t, "0 to 1", r1, 0, 1, pattern(1, 8))
		c.noErrs()
	}
}
