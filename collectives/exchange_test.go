package collectives

import (
	"bytes"
	"fmt"
	"testing"
)

// exchangeNet is a memNet that is an Exchanger: it sends every message of
// an exchange, then receives them in order (its sends never block).
type exchangeNet struct{ memNet }

func (n *exchangeNet) Exchange(sends, recvs []Transfer) error {
	return n.sendsThenRecvs(sends, recvs, nil)
}

// sendsThenRecvs is Exchange, calling between, if not nil, after the
// sends and before the receives.
func (n *exchangeNet) sendsThenRecvs(sends, recvs []Transfer, between func()) error {
	for _, s := range sends {
		if err := n.Send(s.Peer, s.Data); err != nil {
			return err
		}
	}
	if between != nil {
		between()
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

// copyingExchangeNet is an exchangeNet that is a CopyingExchanger: it
// sends every message of an exchange, makes the copy, then receives them.
// It counts the copies made with messages in flight and the receives
// marked Whole.
type copyingExchangeNet struct {
	exchangeNet
	during, whole int
}

func (n *copyingExchangeNet) ExchangeCopying(sends, recvs []Transfer, dst, src []byte) error {
	for _, r := range recvs {
		if r.Whole {
			n.whole++
		}
	}
	if dst != nil && len(sends)+len(recvs) > 0 {
		n.during++
	}
	return n.sendsThenRecvs(sends, recvs, func() { copy(dst, src) })
}

// runCopyingExchangeRanks is runRanks on copyingExchangeNets.
func runCopyingExchangeRanks(t *testing.T, size int, f func(n Net) error) []error {
	t.Helper()
	return runRanks(t, size, func(n Net) error { return f(&copyingExchangeNet{exchangeNet: exchangeNet{*n.(*memNet)}}) })
}

// TestScatterCopiesDuring: a linear scatter's root copies its own block
// while its sends are in flight where the Net can (CopyingExchanger), once,
// on more ranks than one exchange takes at once too, and every other
// rank receives its block marked Whole; the blocks arrive all the same.
func TestScatterCopiesDuring(t *testing.T) {
	for _, size := range []int{2, 3, exchangeWindow + 2} {
		const blk, root = 40, 1
		all := data(size*blk, size, blk)
		during, whole := make([]int, size), make([]int, size)
		errs := runCopyingExchangeRanks(t, size, func(n Net) error {
			rank := n.Rank()
			recv := junk(blk)
			var send []byte
			if rank == root {
				send = all
			}
			err := Scatter(n, "linear", send, recv, root)
			if err == nil && !bytes.Equal(recv, all[rank*blk:(rank+1)*blk]) {
				err = fmt.Errorf("%s", diff(recv, all[rank*blk:(rank+1)*blk]))
			}
			x := n.(*copyingExchangeNet)
			during[rank], whole[rank] = x.during, x.whole
			return err
		})
		for r, err := range errs {
			wantDuring, wantWhole := 0, 1
			if r == root {
				wantDuring, wantWhole = 1, 0
			}
			switch {
			case err != nil:
				t.Errorf("%d ranks: rank %d: %v", size, r, err)
			case during[r] != wantDuring || whole[r] != wantWhole:
				t.Errorf("%d ranks: rank %d copied %d times during an exchange and received %d blocks whole, want %d and %d",
					size, r, during[r], whole[r], wantDuring, wantWhole)
			}
		}
	}
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
