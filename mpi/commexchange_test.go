package mpi

import (
	"testing"

	"github.com/rhinet-go/martini/collectives"
)

// TestOneBuffer: an exchange sends one buffer when it has more than one
// send and every send is the same bytes (a linear allgather's block);
// distinct blocks, a different length over the same start, a single send
// or an empty one do not count.
func TestOneBuffer(t *testing.T) {
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name  string
		sends []collectives.Transfer
		want  bool
	}{
		{"one block to every peer", []collectives.Transfer{{Peer: 1, Data: buf}, {Peer: 2, Data: buf}, {Peer: 3, Data: buf}}, true},
		{"a block each", []collectives.Transfer{{Peer: 1, Data: buf[:32]}, {Peer: 2, Data: buf[32:]}}, false},
		{"the same start, another length", []collectives.Transfer{{Peer: 1, Data: buf}, {Peer: 2, Data: buf[:32]}}, false},
		{"one send", []collectives.Transfer{{Peer: 1, Data: buf}}, false},
		{"empty sends", []collectives.Transfer{{Peer: 1}, {Peer: 2}}, false},
	} {
		if got := oneBuffer(tc.sends); got != tc.want {
			t.Errorf("%s: oneBuffer %v, want %v", tc.name, got, tc.want)
		}
	}
}
