package llc

import (
	"testing"

	"github.com/rhinet-go/martini/internal/spinwait"
)

// TestQuietWindowAdapts scripts a quiet window's reads on a counter of
// one tick a nanosecond: answers that come late but within the cap of the
// write grow it up to its cap, answers later than that leave it alone,
// answers found at the first read shrink it, reads in vain end the wait
// without changing it, and without a counter there is no window.
func TestQuietWindowAdapts(t *testing.T) {
	at := func(now uint64) func() uint64 { return func() uint64 { return now } }
	unread := func() uint64 { t.Fatal("the clock read where it need not be"); return 0 }
	q := newQuietWindow(1000)
	if q.grow != quietGrowNs || q.max != quietMaxNs {
		t.Fatalf("steps of %d and %d ticks at 1000 a microsecond, want %d and %d", q.grow, q.max, quietGrowNs, quietMaxNs)
	}
	q.written(at(1000))
	if q.holding || !q.waiting {
		t.Fatalf("a window of zero: holding %v, waiting %v", q.holding, q.waiting)
	}
	q.read(false, unread)
	q.read(true, at(1000+quietMaxNs)) // the answer came at the second read, in time: late
	if q.window != quietGrowNs || q.waiting {
		t.Fatalf("after a late answer: window %d, waiting %v; want %d and no wait", q.window, q.waiting, quietGrowNs)
	}
	q.written(at(1500))
	q.read(false, unread)
	q.read(true, at(1500+quietMaxNs+1)) // too late to count
	if q.window != quietGrowNs || q.waiting {
		t.Fatalf("after an answer later than the cap: window %d, waiting %v; want %d and no wait", q.window, q.waiting, quietGrowNs)
	}
	q.written(at(2000))
	if !q.holds(2000+quietGrowNs-1) || !q.holding || q.holds(2000+quietGrowNs) || q.holding {
		t.Fatalf("a window of %d does not end %d ticks after the write", q.window, quietGrowNs)
	}
	q.read(true, unread) // found at the first read: the window may be too long
	if q.window != quietGrowNs-1 {
		t.Fatalf("after an answer at the first read: window %d, want %d", q.window, quietGrowNs-1)
	}
	q.written(at(3000))
	if q.holds(2999) || q.holding {
		t.Fatal("a clock that went back holds the read")
	}
	for range quietLate - 1 {
		q.read(false, unread)
	}
	if !q.waiting {
		t.Fatalf("the wait ended after %d reads in vain, before %d", quietLate-1, quietLate)
	}
	q.read(false, unread)
	if q.waiting || q.window != quietGrowNs-1 {
		t.Fatalf("after %d reads in vain: waiting %v, window %d; want no wait and the window unchanged", quietLate, q.waiting, q.window)
	}
	for i := range 100 {
		q.written(at(uint64(4000 + i)))
		q.read(false, unread)
		q.read(true, at(uint64(4100+i)))
	}
	if q.window != quietMaxNs {
		t.Fatalf("after 100 late answers: window %d, want the cap %d", q.window, quietMaxNs)
	}
	for range 1000 {
		q.written(at(9000))
		q.read(true, unread)
	}
	if q.window != 0 {
		t.Fatalf("after 1000 answers at the first read: window %d, want 0", q.window)
	}
	none := newQuietWindow(0)
	none.written(unread)
	if none.waiting || none.holding {
		t.Fatal("a window without a counter")
	}
}

// TestQuietWindowDelivery runs the window between two processes, over
// their shared line (8 bytes) and over their rings (64 bytes): a record
// that arrives while process 0's window holds is read only once it has
// ended, and a record already there when process 0 writes opens no
// window.
func TestQuietWindowDelivery(t *testing.T) {
	if spinwait.TicksPerMicrosecond() == 0 {
		t.Skip("no processor counter: no quiet window")
	}
	for _, size := range []int{lineBody, 64} {
		for _, crossed := range []bool{false, true} {
			quietRound(t, size, crossed)
		}
	}
}

// quietRound is one case of TestQuietWindowDelivery: process 0 and 1 each
// send size bytes to the other, process 1 first if crossed, with process
// 0's window set to hold every read. Not crossed, process 0 then writes
// again, and finding process 1's record unread, ends the window.
func quietRound(t *testing.T, size int, crossed bool) {
	t.Helper()
	c := lineCluster(t, 2, 4096)
	c.connect(0, 1)
	c.connect(1, 0)
	l1 := &c.eng[1].peers[0].line
	l1.acked = l1.sent // both halves free (see TestLineCrossed)
	ring := c.net.local[0].ringOf[1]
	ring.quiet.window = 1 << 62
	lines := c.eng[1].State().Stats.LineSent
	r0 := c.recv(0, 1, 1, 0, size)
	var s0, s1 *SendOp
	if crossed {
		s1 = c.send(1, 0, 1, 0, pattern(2, size))
		s0 = c.send(0, 1, 1, 0, pattern(1, size))
	} else {
		s0 = c.send(0, 1, 1, 0, pattern(1, size))
		s1 = c.send(1, 0, 1, 0, pattern(2, size))
	}
	wantLine := uint64(0)
	if size <= lineBody {
		wantLine = 1
	}
	if got := c.eng[1].State().Stats.LineSent - lines; got != wantLine {
		t.Fatalf("%d bytes: process 1 wrote %d line records, want %d", size, got, wantLine)
	}
	for range 5 {
		c.poll(0)
	}
	if r0.Done() != crossed {
		t.Fatalf("%d bytes, crossed %v: the record read in the window: %v", size, crossed, r0.Done())
	}
	sends := []Completion{s0, s1}
	if !crossed {
		sends = append(sends, c.send(0, 1, 2, 0, pattern(3, size)))
		c.poll(0)
		if !r0.Done() {
			t.Fatalf("%d bytes: a write that found the record unread left the earlier window holding", size)
		}
	}
	ring.quiet.window = 0
	r1 := c.recv(1, 0, 1, 0, size)
	c.wait(append(sends, r0, r1)...)
	checkRecv(t, "1 to 0", r0, 1, 1, pattern(2, size))
	checkRecv(t, "0 to 1", r1, 0, 1, pattern(1, size))
	if !crossed {
		r1b := c.recv(1, 0, 2, 0, size)
		c.wait(r1b)
		checkRecv(t, "0 to 1, second", r1b, 0, 2, pattern(3, size))
	}
	c.noErrs()
}
