package collectives

import (
	"fmt"
	"testing"
)

// a2a is the block rank from sends to rank to.
func a2a(from, to, blk int) []byte { return data(blk, from, to, 7) }

func TestAlltoall(t *testing.T) {
	for _, alg := range knownAlgorithms(alltoallAlgorithms) {
		for _, size := range testSizes {
			for _, blk := range blockSizes {
				for _, inPlace := range []bool{false, true} {
					what := fmt.Sprintf("alltoall %s, %d ranks, %d bytes, in place %v", alg, size, blk, inPlace)
					exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
						rank := n.Rank()
						var send, want []byte
						for i := range size {
							send = append(send, a2a(rank, i, blk)...)
							want = append(want, a2a(i, rank, blk)...)
						}
						if send == nil {
							send = []byte{}
						}
						if inPlace {
							recv := append([]byte{}, send...)
							return recv, want, Alltoall(n, alg, nil, recv)
						}
						// A longer receive buffer, whose tail must be left
						// alone, and a send buffer that must be too.
						sent := append([]byte{}, send...)
						recv := junk(len(send) + 3)
						err := Alltoall(n, alg, send, recv)
						return concat(recv, send), concat(want, junk(3), sent), err
					})
				}
			}
		}
	}
}

// alltoallvCount is the size of the block rank from sends rank to; the
// same both ways if sym.
func alltoallvCount(from, to, seed int, sym bool) int {
	if sym && from > to {
		from, to = to, from
	}
	if (from+2*to+seed)%5 == 3 {
		return 0
	}
	return (from*13 + to*7 + seed*5) % 19
}

// alltoallvLayout returns the counts and displacements of the blocks rank
// sends and receives, some empty, laid out in a scrambled order with gaps,
// and the buffer lengths.
func alltoallvLayout(size, rank, seed int, sym bool) (sc, sd []int, slen int, rc, rd []int, rlen int) {
	sc, sd, rc, rd = make([]int, size), make([]int, size), make([]int, size), make([]int, size)
	for k := range size {
		i := (k*3 + seed) % size // a permutation when size is not a multiple of 3
		if size%3 == 0 {
			i = size - 1 - k
		}
		sc[i], sd[i] = alltoallvCount(rank, i, seed, sym), slen+k%2
		slen = sd[i] + sc[i]
		rc[i], rd[i] = alltoallvCount(i, rank, seed, sym), rlen+(k+1)%2
		rlen = rd[i] + rc[i]
	}
	return sc, sd, slen + 1, rc, rd, rlen + 1
}

func TestAlltoallv(t *testing.T) {
	for _, alg := range knownAlgorithms(alltoallvAlgorithms) {
		for _, size := range testSizes {
			for seed := range 3 {
				for _, inPlace := range []bool{false, true} {
					what := fmt.Sprintf("alltoallv %s, %d ranks, seed %d, in place %v", alg, size, seed, inPlace)
					exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
						rank := n.Rank()
						// In place, both directions use the receive
						// layout: blocks of the same size both ways.
						sc, sd, slen, rc, rd, rlen := alltoallvLayout(size, rank, seed, inPlace)
						want := junk(rlen)
						for i := range size {
							copy(want[rd[i]:], a2a(i, rank, rc[i]))
						}
						if inPlace {
							recv := junk(rlen)
							for i := range size {
								copy(recv[rd[i]:], a2a(rank, i, rc[i]))
							}
							return recv, want, Alltoallv(n, alg, nil, nil, nil, recv, rc, rd)
						}
						send := junk(slen)
						for i := range size {
							copy(send[sd[i]:], a2a(rank, i, sc[i]))
						}
						sent := append([]byte{}, send...)
						recv := junk(rlen)
						err := Alltoallv(n, alg, send, sc, sd, recv, rc, rd)
						return concat(recv, send), concat(want, sent), err
					})
				}
			}
		}
	}
}

func TestAlltoallBuffers(t *testing.T) {
	for _, alg := range knownAlgorithms(alltoallAlgorithms) {
		local(t, "alltoall, send buffer no multiple", 3, ErrBuffer, func(n Net) error {
			return Alltoall(n, alg, make([]byte, 10), make([]byte, 10))
		})
		local(t, "alltoall, receive buffer too short", 3, ErrBuffer, func(n Net) error {
			return Alltoall(n, alg, make([]byte, 12), make([]byte, 11))
		})
		local(t, "alltoall in place, receive buffer no multiple", 3, ErrBuffer, func(n Net) error {
			return Alltoall(n, alg, nil, make([]byte, 10))
		})
	}
	local(t, "alltoallv, send block out of the buffer", 2, ErrBuffer, func(n Net) error {
		return Alltoallv(n, "pairwise", make([]byte, 4), []int{2, 3}, []int{0, 2}, make([]byte, 4), []int{2, 2}, []int{0, 2})
	})
	local(t, "alltoallv, too few receive counts", 2, ErrBuffer, func(n Net) error {
		return Alltoallv(n, "pairwise", make([]byte, 4), []int{2, 2}, []int{0, 2}, make([]byte, 4), []int{2}, []int{0, 2})
	})
}

func TestAlltoallMismatch(t *testing.T) {
	for _, alg := range knownAlgorithms(alltoallAlgorithms) {
		for _, size := range []int{2, 3, 4, 5, 8} {
			for _, bad := range []int{0, size - 1} {
				what := fmt.Sprintf("alltoall %s, %d ranks, rank %d sends blocks of 5 bytes, not 4", alg, size, bad)
				mismatch(t, what, size, func(int) bool { return true }, func(n Net) error {
					blk := 4
					if n.Rank() == bad {
						blk = 5
					}
					return Alltoall(n, alg, make([]byte, size*blk), make([]byte, size*blk))
				})
			}
		}
	}
	for _, size := range []int{2, 3, 5} {
		for _, bad := range []int{0, size - 1} {
			// bad expects one byte more from every rank than it sends it.
			what := fmt.Sprintf("alltoallv, %d ranks, rank %d expects one byte more", size, bad)
			mismatch(t, what, size, func(r int) bool { return r == bad }, func(n Net) error {
				sc, sd, slen, rc, rd, rlen := alltoallvLayout(size, n.Rank(), 0, false)
				if n.Rank() == bad {
					for i := range rc {
						if i != bad {
							rc[i]++
						}
						rd[i] += i
					}
					rlen += size
				}
				return Alltoallv(n, "pairwise", make([]byte, slen), sc, sd, make([]byte, rlen), rc, rd)
			})
		}
	}
}
