package collectives

import (
	"bytes"
	"fmt"
	"testing"
)

// TestGatherCopiesDuringCheck: with CopyDuringCheck, the root of a linear
// gather whose check comes first copies its own block between its
// arrival at the check's barrier and its wait for the release;
// without it, after the release. The other ranks wait as before.
func TestGatherCopiesDuringCheck(t *testing.T) {
	for _, during := range []bool{true, false} {
		for _, size := range []int{2, 3} {
			const blk, root = 40, 1
			h := newMemHardware(size)
			waits := make([]int, size)   // WaitReleased calls, by rank
			copied := make([]bool, size) // the root's block in place at the wait
			errs := runRanksKill(t, size, func(n Net) error {
				rank := n.Rank()
				send, recv := data(blk, rank), junk(size*blk)
				hw := &splitHW{memHW: &memHW{h: h, rank: rank}}
				hw.waiting = func() {
					waits[rank]++
					copied[rank] = bytes.Equal(recv[root*blk:(root+1)*blk], send)
				}
				u := &Runner{Net: n, HW: hw, Check: true, CopyDuringCheck: during,
					Force: Selection{CollGather: "linear"}, Stats: &Stats{}}
				if err := u.Gather(send, recv, root, 1); err != nil || rank != root {
					return err
				}
				for r := range size {
					if got := recv[r*blk : (r+1)*blk]; !bytes.Equal(got, data(blk, r)) {
						return fmt.Errorf("block %d: %s", r, diff(got, data(blk, r)))
					}
				}
				return nil
			}, func() {
				h.mu.Lock()
				h.dead = true
				h.cond.Broadcast()
				h.mu.Unlock()
			})
			for r, err := range errs {
				wantWaits := 0
				if during && r == root {
					wantWaits = 1
				}
				switch {
				case err != nil:
					t.Errorf("during %v, %d ranks: rank %d: %v", during, size, r, err)
				case waits[r] != wantWaits || wantWaits == 1 && !copied[r]:
					t.Errorf("during %v, %d ranks: rank %d waited for the release %d times (want %d), its block copied then: %v",
						during, size, r, waits[r], wantWaits, copied[r])
				}
			}
		}
	}
}

func TestGather(t *testing.T) {
	for _, alg := range knownAlgorithms(gatherAlgorithms) {
		for _, size := range testSizes {
			for _, blk := range blockSizes {
				for root := range size {
					for _, inPlace := range []bool{false, true} {
						what := fmt.Sprintf("gather %s, %d ranks, %d bytes, root %d, in place %v", alg, size, blk, root, inPlace)
						want := make([]byte, 0, size*blk)
						for r := range size {
							want = append(want, data(blk, r)...)
						}
						// The root's buffer is longer than needed: the
						// tail must be left alone.
						want = append(want, junk(3)...)
						exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
							rank := n.Rank()
							send := data(blk, rank)
							if rank != root {
								return nil, nil, Gather(n, alg, send, nil, root)
							}
							recv := junk(size*blk + 3)
							if inPlace {
								copy(recv[rank*blk:], send)
								send = nil
								recv = recv[:size*blk]
							}
							err := Gather(n, alg, send, recv, root)
							return recv[:cap(recv)], want, err
						})
					}
				}
			}
		}
	}
}

// vector returns counts and displacements of size blocks, some empty,
// laid out in reverse rank order with gaps, and the buffer length.
func vector(size, seed int) (counts, displs []int, length int) {
	counts, displs = make([]int, size), make([]int, size)
	for i := range size {
		counts[i] = (i*37 + seed*11) % 23
		if (i+seed)%4 == 1 {
			counts[i] = 0
		}
	}
	for i := size - 1; i >= 0; i-- {
		displs[i] = length + i%3
		length = displs[i] + counts[i]
	}
	return counts, displs, length + 2
}

func TestGatherv(t *testing.T) {
	for _, alg := range knownAlgorithms(gathervAlgorithms) {
		for _, size := range testSizes {
			for seed := range 3 {
				counts, displs, length := vector(size, seed)
				for root := range size {
					for _, inPlace := range []bool{false, true} {
						what := fmt.Sprintf("gatherv %s, %d ranks, counts %v, root %d, in place %v", alg, size, counts, root, inPlace)
						want := junk(length)
						for r := range size {
							copy(want[displs[r]:], data(counts[r], r, seed))
						}
						exercise(t, what, size, func(n Net) ([]byte, []byte, error) {
							rank := n.Rank()
							send := data(counts[rank], rank, seed)
							if rank != root {
								// counts and displs are not significant here.
								return nil, nil, Gatherv(n, alg, send, nil, nil, nil, root)
							}
							recv := junk(length)
							if inPlace {
								copy(recv[displs[rank]:], send)
								send = nil
							}
							err := Gatherv(n, alg, send, recv, counts, displs, root)
							return recv, want, err
						})
					}
				}
			}
		}
	}
}

func TestGatherBuffers(t *testing.T) {
	for _, alg := range knownAlgorithms(gatherAlgorithms) {
		local(t, "gather, receive buffer too short", 3, ErrBuffer, func(n Net) error {
			return Gather(n, alg, make([]byte, 4), make([]byte, 11), n.Rank())
		})
		local(t, "gather in place, receive buffer no multiple", 3, ErrBuffer, func(n Net) error {
			return Gather(n, alg, nil, make([]byte, 10), n.Rank())
		})
	}
	local(t, "gatherv, wrong number of counts", 3, ErrBuffer, func(n Net) error {
		return Gatherv(n, "linear", nil, make([]byte, 10), []int{1, 2}, []int{0, 1}, n.Rank())
	})
	local(t, "gatherv, block out of the buffer", 3, ErrBuffer, func(n Net) error {
		return Gatherv(n, "linear", nil, make([]byte, 10), []int{1, 2, 3}, []int{0, 1, 8}, n.Rank())
	})
	local(t, "gatherv, negative count", 3, ErrBuffer, func(n Net) error {
		return Gatherv(n, "linear", nil, make([]byte, 10), []int{1, -2, 3}, []int{0, 1, 2}, n.Rank())
	})
}

func TestGatherMismatch(t *testing.T) {
	for _, alg := range knownAlgorithms(gatherAlgorithms) {
		for _, size := range []int{2, 3, 5, 8} {
			for _, bad := range []int{0, size - 1} {
				for _, root := range []int{0, size / 2} {
					what := fmt.Sprintf("gather %s, %d ranks, root %d, rank %d sends 5 bytes, not 4", alg, size, root, bad)
					mismatch(t, what, size, func(r int) bool { return r == root }, func(n Net) error {
						blk := 4
						if n.Rank() == bad {
							blk = 5
						}
						return Gather(n, alg, make([]byte, blk), make([]byte, size*blk), root)
					})
				}
			}
		}
	}
	for _, size := range []int{2, 3, 5} {
		counts, displs, length := vector(size, 0)
		for _, bad := range []int{0, size - 1} {
			what := fmt.Sprintf("gatherv, %d ranks, rank %d sends one byte more", size, bad)
			mismatch(t, what, size, func(r int) bool { return r == 0 }, func(n Net) error {
				send := make([]byte, counts[n.Rank()])
				if n.Rank() == bad {
					send = append(send, 1)
				}
				return Gatherv(n, "linear", send, make([]byte, length), counts, displs, 0)
			})
		}
	}
}
