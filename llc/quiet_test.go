package llc

import (
	"testing"

	"github.com/rhinet-go/martini/internal/spinwait"
)

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
	c.net.local[0].HoldReads(1, 1<<62)
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
	c.net.local[0].HoldReads(1, 0)
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
