package collectives

import (
	"fmt"
	"testing"
)

func TestScatter(t *testing.T) {
	for _, alg := range knownAlgorithms(scatterAlgorithms) {
		for _, size := range testSizes {
			for _, blk := range blockSizes {
				for root := range size {
					for _, inPlace := range []bool{false, true} {
						what := fmt.Sprintf("scatter %s, %d ranks, %d bytes, root %d, in place %v", alg, size, blk, root, inPlace)
						// The root's send buffer is longer than needed
						// (unless in place) and must be left alone.
						all := data(size*blk+3, size, blk)
						exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
							rank := n.Rank()
							want := all[rank*blk : (rank+1)*blk]
							if rank != root {
								recv := junk(blk)
								return recv, want, Scatter(n, alg, nil, recv, root)
							}
							send := append([]byte{}, all...)
							if inPlace {
								err := Scatter(n, alg, send[:size*blk], nil, root)
								return send, all, err
							}
							recv := junk(blk)
							err := Scatter(n, alg, send, recv, root)
							return concat(recv, send), concat(want, all), err
						})
					}
				}
			}
		}
	}
}

func TestScatterv(t *testing.T) {
	for _, alg := range knownAlgorithms(scattervAlgorithms) {
		for _, size := range testSizes {
			for seed := range 3 {
				counts, displs, length := vector(size, seed)
				all := data(length, size, seed)
				for root := range size {
					for _, inPlace := range []bool{false, true} {
						what := fmt.Sprintf("scatterv %s, %d ranks, counts %v, root %d, in place %v", alg, size, counts, root, inPlace)
						exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
							rank := n.Rank()
							want := all[displs[rank] : displs[rank]+counts[rank]]
							recv := junk(counts[rank])
							if rank != root {
								// send, counts and displs are not significant here.
								return recv, want, Scatterv(n, alg, nil, nil, nil, recv, root)
							}
							send := append([]byte{}, all...)
							if inPlace {
								return send, all, Scatterv(n, alg, send, counts, displs, nil, root)
							}
							err := Scatterv(n, alg, send, counts, displs, recv, root)
							return concat(recv, send), concat(want, all), err
						})
					}
				}
			}
		}
	}
}

func TestScatterBuffers(t *testing.T) {
	for _, alg := range knownAlgorithms(scatterAlgorithms) {
		local(t, "scatter, send buffer too short", 3, ErrBuffer, func(n Net) error {
			return Scatter(n, alg, make([]byte, 11), make([]byte, 4), n.Rank())
		})
		local(t, "scatter in place, send buffer no multiple", 3, ErrBuffer, func(n Net) error {
			return Scatter(n, alg, make([]byte, 10), nil, n.Rank())
		})
	}
	local(t, "scatterv, wrong number of displacements", 3, ErrBuffer, func(n Net) error {
		return Scatterv(n, "linear", make([]byte, 10), []int{1, 2, 3}, []int{0, 1}, nil, n.Rank())
	})
	local(t, "scatterv, block out of the buffer", 3, ErrBuffer, func(n Net) error {
		return Scatterv(n, "linear", make([]byte, 10), []int{1, 2, 3}, []int{0, 1, 8}, nil, n.Rank())
	})
}

func TestScatterMismatch(t *testing.T) {
	for _, alg := range knownAlgorithms(scatterAlgorithms) {
		for _, size := range []int{2, 3, 5, 8} {
			for _, bad := range []int{0, size - 1} {
				for _, root := range []int{0, size / 2} {
					what := fmt.Sprintf("scatter %s, %d ranks, root %d, rank %d receives 5 bytes, not 4", alg, size, root, bad)
					// The ranks whose block has the wrong size fail.
					must := func(r int) bool { return r != root && (r == bad || bad == root) }
					mismatch(t, what, size, must, func(n Net) error {
						blk := 4
						if n.Rank() == bad {
							blk = 5
						}
						return Scatter(n, alg, make([]byte, size*blk), make([]byte, blk), root)
					})
				}
			}
		}
	}
	for _, size := range []int{2, 3, 5} {
		counts, displs, length := vector(size, 0)
		for _, bad := range []int{0, size - 1} {
			what := fmt.Sprintf("scatterv, %d ranks, rank %d receives one byte more", size, bad)
			mismatch(t, what, size, func(r int) bool { return r == bad }, func(n Net) error {
				recv := make([]byte, counts[n.Rank()])
				if n.Rank() == bad {
					recv = append(recv, 1)
				}
				return Scatterv(n, "linear", make([]byte, length), counts, displs, recv, 0)
			})
		}
	}
}
