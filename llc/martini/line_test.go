package martini

import (
	"bytes"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// TestLineSizes sends a message of every size up to one past the most a
// shared line carries, each direction in turn as in a ping-pong, through
// the translator's stores into the segment and the shared memory's
// reads: each arrives whole, and those of up to layout.LineBody bytes
// through the line (the half, then each part of the extension).
func TestLineSizes(t *testing.T) {
	eps := pair(t, llc.RndvPull)
	for from := range 2 { // connect both directions
		exchange(t, [2]*llc.Endpoint{eps[from], eps[1-from]}, &llc.SendOp{Peer: 1 - from, Data: []byte{1}}, &llc.RecvOp{Source: from, Buf: make([]byte, 1)})
	}
	for n := 0; n <= layout.LineBody+1; n++ {
		for from := range 2 {
			to := 1 - from
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(n*7 + i*13 + from)
			}
			got := make([]byte, layout.LineBody+1)
			before := eps[from].Stats().LineSent
			s := &llc.SendOp{Peer: to, Tag: int32(n), Data: data}
			r := &llc.RecvOp{Source: from, Tag: int32(n), Buf: got}
			exchange(t, [2]*llc.Endpoint{eps[from], eps[to]}, s, r)
			if r.Status.Len != n || !bytes.Equal(got[:n], data) {
				t.Fatalf("%d bytes from %d: received %d bytes % x, want % x", n, from, r.Status.Len, got[:r.Status.Len], data)
			}
			line := eps[from].Stats().LineSent - before
			if want := n <= layout.LineBody; (line == 1) != want {
				t.Errorf("%d bytes from %d: %d line records", n, from, line)
			}
		}
	}
}
