package llc

import (
	"testing"

	"github.com/rhinet-go/martini/internal/spinwait"
)

// TestLineQuietAdapts scripts a quiet window's reads on a counter of one
// tick a nanosecond: late answers grow it up to its cap, answers found at
// the first read shrink it, reads in vain end the wait without changing
// it, and without a counter there is no window.
func TestLineQuietAdapts(t *testing.T) {
	q := newLineQuiet(1000)
	if q.grow != quietGrowNs || q.max != quietMaxNs {
		t.Fatalf("steps of %d and %d ticks at 1000 a microsecond, want %d and %d", q.grow, q.max, quietGrowNs, quietMaxNs)
	}
	q.written(1000)
	if q.holds(1000) {
		t.Fatal("a window of zero holds a read")
	}
	q.read(false)
	q.read(true) // the answer came at the second read: late
	if q.window != quietGrowNs || q.wrote != 0 {
		t.Fatalf("after a late answer: window %d, waiting since %d; want %d and no wait", q.window, q.wrote, quietGrowNs)
	}
	q.written(2000)
	if !q.holds(2000+quietGrowNs-1) || q.holds(2000+quietGrowNs) {
		t.Fatalf("a window of %d does not end %d ticks after the write", q.window, quietGrowNs)
	}
	q.read(true) // found at the first read: the window may be too long
	if q.window != quietGrowNs-1 {
		t.Fatalf("after an answer at the first read: window %d, want %d", q.window, quietGrowNs-1)
	}
	q.written(3000)
	for range quietLate - 1 {
		q.read(false)
	}
	if q.wrote == 0 {
		t.Fatalf("the wait ended after %d reads in vain, before %d", quietLate-1, quietLate)
	}
	q.read(false)
	if q.wrote != 0 || q.window != quietGrowNs-1 {
		t.Fatalf("after %d reads in vain: waiting since %d, window %d; want no wait and the window unchanged", quietLate, q.wrote, q.window)
	}
	for i := range 100 {
		q.written(uint64(4000 + i))
		q.read(false)
		q.read(true)
	}
	if q.window != quietMaxNs {
		t.Fatalf("after 100 late answers: window %d, want the cap %d", q.window, quietMaxNs)
	}
	for range 1000 {
		q.written(9000)
		q.read(true)
	}
	if q.window != 0 {
		t.Fatalf("after 1000 answers at the first read: window %d, want 0", q.window)
	}
	none := newLineQuiet(0)
	none.written(5)
	q.written(0) // a counter that reads 0: none
	if none.wrote != 0 || q.wrote != 0 {
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
