package collectives

import (
	"fmt"
	"testing"
)

// exchangeNet is a memNet that is an Exchanger: it sends every message of
// an exchange, then receives them in order (its sends never block).
type exchangeNet struct{ memNet }

func (n *exchangeNet) Exchange(sends, recvs []Transfer) error {
	for _, s := range sends {
		if err := n.Send(s.Peer, s.Data); err != nil {
			return err
		}
	}
	for i := range recvs {
		got, err := n.Recv(recvs[i].Peer, recvs[i].Data)
		if err != nil {
			return err
		}
		recvs[i].Len = got
	}
	return nil
}

// runExchangeRanks is runRanks on exchangeNets.
func runExchangeRanks(t *testing.T, size int, f func(n Net) error) []error {
	t.Helper()
	return runRanks(t, size, func(n Net) error { return f(&exchangeNet{*n.(*memNet)}) })
}

// TestExchangeWindows: the linear alltoalls on more ranks than one
// exchange takes at once, on every test network (the buffered and
// synchronous ones by the pairwise fallback).
func TestExchangeWindows(t *testing.T) {
	for _, size := range []int{exchangeWindow + 1, 2*exchangeWindow + 3} {
		for _, blk := range []int{0, 5, 300} {
			what := fmt.Sprintf("alltoall linear, %d ranks, %d bytes", size, blk)
			exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
				var send, want []byte
				for i := range size {
					send = append(send, a2a(n.Rank(), i, blk)...)
					want = append(want, a2a(i, n.Rank(), blk)...)
				}
				recv := make([]byte, len(send))
				return recv, want, Alltoall(n, "linear", send, recv)
			})
			what = fmt.Sprintf("alltoallv linear, %d ranks, seed %d", size, blk)
			exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
				sc, sd, slen, rc, rd, rlen := alltoallvLayout(size, n.Rank(), blk, false)
				send, recv := make([]byte, slen), make([]byte, rlen)
				want := make([]byte, rlen)
				for i := range size {
					copy(send[sd[i]:], a2a(n.Rank(), i, sc[i]))
					copy(want[rd[i]:], a2a(i, n.Rank(), rc[i]))
				}
				return recv, want, Alltoallv(n, "linear", send, sc, sd, recv, rc, rd)
			})
		}
	}
}
