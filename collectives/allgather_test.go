package collectives

import (
	"errors"
	"fmt"
	"testing"
)

func TestAllgather(t *testing.T) {
	for _, alg := range knownAlgorithms(allgatherAlgorithms) {
		for _, size := range sizesFor(alg == "recursive-doubling") {
			for _, blk := range blockSizes {
				for _, inPlace := range []bool{false, true} {
					what := fmt.Sprintf("allgather %s, %d ranks, %d bytes, in place %v", alg, size, blk, inPlace)
					want := make([]byte, 0, size*blk)
					for r := range size {
						want = append(want, data(blk, r, 1)...)
					}
					want = append(want, junk(3)...)
					exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
						rank := n.Rank()
						send := data(blk, rank, 1)
						// A longer buffer, whose tail must be left alone.
						recv := junk(size*blk + 3)
						if inPlace {
							copy(recv[rank*blk:], send)
							return recv, want, Allgather(n, alg, nil, recv[:size*blk])
						}
						return recv, want, Allgather(n, alg, send, recv)
					})
				}
			}
		}
	}
}

func TestAllgatherPowerOfTwo(t *testing.T) {
	for _, size := range testSizes {
		errs := runRanks(t, size, func(n Net) error {
			return Allgather(n, "recursive-doubling", make([]byte, 4), make([]byte, 4*size))
		})
		for r, err := range errs {
			if isPowerOfTwo(size) != (err == nil) || err != nil && !errors.Is(err, ErrAlgorithm) {
				t.Errorf("allgather recursive-doubling, %d ranks: rank %d: %v", size, r, err)
			}
		}
	}
}

func TestAllgatherv(t *testing.T) {
	for _, alg := range knownAlgorithms(allgathervAlgorithms) {
		for _, size := range testSizes {
			for seed := range 3 {
				counts, displs, length := vector(size, seed)
				want := junk(length)
				for r := range size {
					copy(want[displs[r]:], data(counts[r], r, seed))
				}
				for _, inPlace := range []bool{false, true} {
					what := fmt.Sprintf("allgatherv %s, %d ranks, counts %v, in place %v", alg, size, counts, inPlace)
					exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
						rank := n.Rank()
						send := data(counts[rank], rank, seed)
						recv := junk(length)
						if inPlace {
							copy(recv[displs[rank]:], send)
							send = nil
						}
						return recv, want, Allgatherv(n, alg, send, recv, counts, displs)
					})
				}
			}
		}
	}
}

func TestAllgatherBuffers(t *testing.T) {
	for _, alg := range knownAlgorithms(allgatherAlgorithms) {
		local(t, "allgather, receive buffer too short", 4, ErrBuffer, func(n Net) error {
			return Allgather(n, alg, make([]byte, 4), make([]byte, 15))
		})
		local(t, "allgather in place, receive buffer no multiple", 4, ErrBuffer, func(n Net) error {
			return Allgather(n, alg, nil, make([]byte, 10))
		})
	}
	local(t, "allgatherv, block out of the buffer", 3, ErrBuffer, func(n Net) error {
		return Allgatherv(n, "ring", nil, make([]byte, 10), []int{1, 2, 3}, []int{0, 1, 8})
	})
	local(t, "allgatherv, no counts", 3, ErrBuffer, func(n Net) error {
		return Allgatherv(n, "ring", nil, make([]byte, 10), nil, nil)
	})
}

func TestAllgatherMismatch(t *testing.T) {
	for _, alg := range knownAlgorithms(allgatherAlgorithms) {
		for _, size := range sizesFor(alg == "recursive-doubling") {
			if size == 1 {
				continue
			}
			for _, bad := range []int{0, size - 1} {
				what := fmt.Sprintf("allgather %s, %d ranks, rank %d sends 5 bytes, not 4", alg, size, bad)
				// Every rank's result holds the bad block, and the
				// mismatch reaches all.
				mismatch(t, what, size, func(int) bool { return true }, func(n Net) error {
					blk := 4
					if n.Rank() == bad {
						blk = 5
					}
					return Allgather(n, alg, make([]byte, blk), make([]byte, size*blk))
				})
			}
		}
	}
	for _, alg := range knownAlgorithms(allgathervAlgorithms) {
		for _, size := range []int{2, 3, 5} {
			counts, displs, length := vector(size, 1)
			for _, bad := range []int{0, size - 1} {
				what := fmt.Sprintf("allgatherv %s, %d ranks, rank %d sends one byte more", alg, size, bad)
				mismatch(t, what, size, func(int) bool { return true }, func(n Net) error {
					send := make([]byte, counts[n.Rank()])
					if n.Rank() == bad {
						send = append(send, 1)
					}
					return Allgatherv(n, alg, send, make([]byte, length), counts, displs)
				})
				what = fmt.Sprintf("allgatherv %s, %d ranks, rank %d counts one byte more for itself", alg, size, bad)
				mismatch(t, what, size, func(r int) bool { return r != bad }, func(n Net) error {
					c := append([]int{}, counts...)
					if n.Rank() == bad {
						c[bad]++
					}
					return Allgatherv(n, alg, make([]byte, c[n.Rank()]), make([]byte, length+1), c, displs)
				})
			}
		}
	}
}
