package collectives

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// A key hashes as its root-less part with the root mixed in, the way
// smallBarrier hashes calls that differ only by their root.
func TestKeyHashRoots(t *testing.T) {
	seen := map[uint64]int{}
	for _, root := range []int{0, 1, 2, 7, 1 << 20, 1<<23 - 1} {
		k := Key{Coll: CollReduce, Elem: 4, Kind: 13, Op: 0xed91, Root: root, Bytes: 8}
		var rec, base [keySize]byte
		k.put(rec[:])
		k.Root = 0
		k.put(base[:])
		h := keyHash(rec[:])
		if got := rootedHash(baseHash(base[:]), uint32(root)); got != h {
			t.Errorf("root %d: keyHash %#x, rootedHash of the base %#x", root, h, got)
		}
		if r, ok := seen[h]; ok {
			t.Errorf("roots %d and %d hash alike", r, root)
		}
		seen[h] = root
	}
}

// Small broadcasts and reductions whose root rotates agree on every
// call and move the right data (their key is re-encoded for each root).
func TestSmallRotatingRoots(t *testing.T) {
	sum, _ := ReducerFor[int32](Sum)
	for _, n := range []int{2, 3} {
		errs := runRunners(t, n, true, true, nil, func(u *Runner) error {
			rank := u.Net.Rank()
			for i := range 3 * n {
				root := i % n
				buf := make([]byte, 8)
				if rank == root {
					binary.LittleEndian.PutUint64(buf, uint64(100+i))
				}
				if err := u.Bcast(buf, root, 8); err != nil {
					return err
				}
				if got := binary.LittleEndian.Uint64(buf); got != uint64(100+i) {
					return fmt.Errorf("call %d: broadcast from %d gave %d", i, root, got)
				}
				send, recv := make([]byte, 4), make([]byte, 4)
				binary.LittleEndian.PutUint32(send, uint32(rank+i))
				if err := u.Reduce(send, recv, sum, root); err != nil {
					return err
				}
				if want := uint32(n*i + n*(n-1)/2); rank == root && binary.LittleEndian.Uint32(recv) != want {
					return fmt.Errorf("call %d: reduce to %d gave %d, want %d", i, root, binary.LittleEndian.Uint32(recv), want)
				}
			}
			if c := u.Stats.Counts(); c["bcast/shared-nic"] != uint64(3*n) || c["reduce/shared-nic"] != uint64(3*n) {
				return fmt.Errorf("the calls took other paths: %v", c)
			}
			return nil
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("n=%d rank %d: %v", n, r, err)
			}
		}
	}
}
