package collectives

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// A key hashes as its root-less part with the root mixed in, the way
// smallHash hashes calls that differ only by their root.
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

// Allgathers and alltoalls whose every input fits a data word run in one
// barrier (smallShared), in place or not, and move the right blocks; a
// rank whose call differs, by its count or by arguments its own checks
// refuse (the driver takes those), fails everyone's call, and the group
// goes on.
func TestSmallAllgatherAlltoall(t *testing.T) {
	for _, n := range []int{2, 3} {
		errs := runRunners(t, n, true, true, nil, func(u *Runner) error {
			rank := u.Net.Rank()
			blk := DatumSize / n / 2 * 2
			for i := range 2 {
				if err := checkMoves(u, blk, i); err != nil {
					return err
				}
			}
			if c := u.Stats.Counts(); c["allgather/shared-nic"] != 4 || c["alltoall/shared-nic"] != 4 {
				return fmt.Errorf("the calls took other paths: %v", c)
			}
			// Rank 0 passes another count, then a receive buffer too short
			// (refused by its own checks, in the driver): every rank fails.
			blk0 := blk
			if rank == 0 {
				blk0 = blk / 2
			}
			err := u.Allgather(make([]byte, blk0), make([]byte, n*blk), 1)
			if !errors.Is(err, ErrMismatch) {
				return fmt.Errorf("allgather with rank 0's count %d: %v, want ErrMismatch", blk/2, err)
			}
			short := n * blk
			if rank == 0 {
				short--
			}
			if err := u.Alltoall(make([]byte, n*blk), make([]byte, short), 1); err == nil {
				return fmt.Errorf("alltoall with rank 0's receive buffer short: no error")
			}
			// And the group still works.
			out := make([]byte, n*blk)
			return u.Allgather(make([]byte, blk), out, 1)
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("n=%d rank %d: %v", n, r, err)
			}
		}
	}
}

// Reductions whose vectors are longer than a data word run in one barrier
// with the vectors as payloads (smallReduction) where the driver would
// take AlgShared, in place or not, to rotating roots; a rank whose call
// differs, by its length or by a root its own checks refuse (the driver
// takes it), fails everyone's call, and the group goes on.
func TestSmallReductionPayloads(t *testing.T) {
	sum, _ := ReducerFor[int32](Sum)
	for _, n := range []int{2, 3} {
		lengths := []int{DatumSize + 4, DatumSize + 20, memPayloadSize - keySize}
		errs := runRunners(t, n, true, true, nil, func(u *Runner) error {
			rank := u.Net.Rank()
			for i, length := range lengths {
				if err := payloadReductions(u, sum, i, length); err != nil {
					return err
				}
			}
			if u.c.Net != nil {
				return fmt.Errorf("the driver took a call: %v", u.Stats.Counts())
			}
			length := 64
			if rank == 0 {
				length += 4
			}
			err := u.Allreduce(make([]byte, length), make([]byte, length), sum)
			if !errors.Is(err, ErrMismatch) {
				return fmt.Errorf("allreduce with rank 0's length 68: %v, want ErrMismatch", err)
			}
			root := 0
			if rank == 0 {
				root = n // refused by rank 0's own checks
			}
			if err := u.Reduce(make([]byte, 64), make([]byte, 64), sum, root); err == nil {
				return fmt.Errorf("reduce with rank 0's root %d: no error", n)
			}
			return payloadReductions(u, sum, 9, 64) // the group still works
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("n=%d rank %d: %v", n, r, err)
			}
		}
	}
}

// payloadReductions runs an Allreduce and a Reduce to every root of
// length bytes of int32, in place and not, on u, and checks their results.
func payloadReductions(u *Runner, sum Reducer, seed, length int) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	input := func(r int) []byte {
		b := make([]byte, length)
		for j := 0; j < length; j += 4 {
			binary.LittleEndian.PutUint32(b[j:], uint32(1000*r+j+seed))
		}
		return b
	}
	want := make([]byte, length)
	for j := 0; j < length; j += 4 {
		binary.LittleEndian.PutUint32(want[j:], uint32(1000*n*(n-1)/2+n*(j+seed)))
	}
	for _, inPlace := range []bool{false, true} {
		send, recv := input(rank), make([]byte, length)
		if inPlace {
			copy(recv, send)
			send = nil
		}
		if err := u.Allreduce(send, recv, sum); err != nil {
			return err
		}
		if !bytes.Equal(recv, want) {
			return fmt.Errorf("allreduce of %d bytes, in place %v: wrong result", length, inPlace)
		}
		for root := range n {
			send, recv := input(rank), make([]byte, length)
			if inPlace && rank == root {
				copy(recv, send)
				send = nil
			}
			if err := u.Reduce(send, recv, sum, root); err != nil {
				return err
			}
			if rank == root && !bytes.Equal(recv, want) {
				return fmt.Errorf("reduce of %d bytes to %d, in place %v: wrong result", length, root, inPlace)
			}
		}
	}
	return nil
}

// Broadcasts, allgathers and alltoalls whose inputs are longer than a data
// word run in one barrier with the inputs as payloads where the driver
// would take AlgShared, in place or not; a rank whose call differs fails
// everyone's, and the group goes on.
func TestSmallPayloadMoves(t *testing.T) {
	for _, n := range []int{2, 3} {
		errs := runRunners(t, n, true, true, nil, func(u *Runner) error {
			rank := u.Net.Rank()
			blk := (memPayloadSize - keySize) / n / 4 * 4 // an alltoall's input is n blocks
			for i := range 2 * n {
				root := i % n
				buf := make([]byte, memPayloadSize-keySize)
				if rank == root {
					for j := range buf {
						buf[j] = byte(j + i)
					}
				}
				if err := u.Bcast(buf, root, 1); err != nil {
					return err
				}
				for j := range buf {
					if buf[j] != byte(j+i) {
						return fmt.Errorf("call %d: broadcast from %d: byte %d is %d", i, root, j, buf[j])
					}
				}
				if err := checkMoves(u, blk, i); err != nil {
					return err
				}
			}
			if u.c.Net != nil {
				return fmt.Errorf("the driver took a call: %v", u.Stats.Counts())
			}
			length := memPayloadSize - keySize
			if rank == 0 {
				length -= 8
			}
			if err := u.Bcast(make([]byte, length), 1, 1); !errors.Is(err, ErrMismatch) {
				return fmt.Errorf("bcast with rank 0's length %d: %v, want ErrMismatch", length, err)
			}
			b := blk
			if rank == 0 {
				b -= 4
			}
			if err := u.Allgather(make([]byte, b), make([]byte, n*blk), 1); !errors.Is(err, ErrMismatch) {
				return fmt.Errorf("allgather with rank 0's block %d: %v, want ErrMismatch", b, err)
			}
			return checkMoves(u, blk, 99) // the group still works
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("n=%d rank %d: %v", n, r, err)
			}
		}
	}
}

// checkMoves runs an allgather and an alltoall of blk-byte blocks on u,
// in place and not, and checks what arrived.
func checkMoves(u *Runner, blk, seed int) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	for _, inPlace := range []bool{false, true} {
		own := make([]byte, blk)
		for j := range own {
			own[j] = byte(16*rank + j + seed)
		}
		recv, send := make([]byte, n*blk), own
		if inPlace {
			copy(recv[rank*blk:], own)
			send = nil
		}
		if err := u.Allgather(send, recv, 1); err != nil {
			return err
		}
		for r := range n {
			for j := range blk {
				if got, want := recv[r*blk+j], byte(16*r+j+seed); got != want {
					return fmt.Errorf("allgather byte %d of %d is %d, want %d", j, r, got, want)
				}
			}
		}
		in := make([]byte, n*blk)
		for j := range in {
			in[j] = byte(16*rank + j + seed)
		}
		out, src := make([]byte, n*blk), in
		if inPlace {
			copy(out, in)
			src = nil
		}
		if err := u.Alltoall(src, out, 1); err != nil {
			return err
		}
		for r := range n {
			for j := range blk {
				if got, want := out[r*blk+j], byte(16*r+rank*blk+j+seed); got != want {
					return fmt.Errorf("alltoall byte %d from %d is %d, want %d", j, r, got, want)
				}
			}
		}
	}
	return nil
}

// Gathers and scatters of blocks that fit a data word, or the barrier's
// payload, run in one barrier (smallGather, smallScatter) to rotating
// roots, in place or not, and move the right blocks; a rank whose call
// differs, by its count or by arguments its own checks refuse (the driver
// takes those), fails everyone's call, and the group goes on.
func TestSmallGatherScatter(t *testing.T) {
	for _, n := range []int{2, 3, 4} { // 4: more than memHW's inline ranks
		for _, blk := range []int{DatumSize / n, (memPayloadSize - keySize) / n} {
			errs := runRunners(t, n, true, true, nil, func(u *Runner) error {
				rank, calls := u.Net.Rank(), uint64(0)
				for i := range 2 * n {
					for _, inPlace := range []bool{false, true} {
						if err := checkRooted(u, blk, i%n, i, inPlace); err != nil {
							return fmt.Errorf("call %d (in place %v): %w", i, inPlace, err)
						}
						calls++
					}
				}
				if u.c.Net != nil {
					return fmt.Errorf("the driver took a call: %v", u.Stats.Counts())
				}
				if c := u.Stats.Counts(); c["gather/shared-nic"] != calls || c["scatter/shared-nic"] != calls {
					return fmt.Errorf("the calls took other paths: %v", c)
				}
				b := blk
				if rank == 0 {
					b--
				}
				if err := u.Gather(make([]byte, b), make([]byte, n*blk), 1, 1); !errors.Is(err, ErrMismatch) {
					return fmt.Errorf("gather with rank 0's block %d: %v, want ErrMismatch", b, err)
				}
				short := n * blk
				if rank == 1 {
					short--
				}
				if err := u.Scatter(make([]byte, short), make([]byte, blk), 1, 1); err == nil {
					return fmt.Errorf("scatter with the root's send buffer short: no error")
				}
				return checkRooted(u, blk, n-1, 99, false)
			})
			for r, err := range errs {
				if err != nil {
					t.Errorf("n=%d blk=%d rank %d: %v", n, blk, r, err)
				}
			}
		}
	}
}

// checkRooted runs a gather to root and a scatter from root of blk-byte
// blocks on u, the root's in place or not, and checks what arrived.
func checkRooted(u *Runner, blk, root, seed int, inPlace bool) error {
	n, rank := u.Net.Size(), u.Net.Rank()
	own := make([]byte, blk)
	for j := range own {
		own[j] = byte(16*rank + j + seed)
	}
	send, recv := own, make([]byte, n*blk)
	if inPlace && rank == root {
		copy(recv[rank*blk:], own)
		send = nil
	}
	if err := u.Gather(send, recv, root, 1); err != nil {
		return err
	}
	for r := range n {
		for j := range blk {
			if got, want := recv[r*blk+j], byte(16*r+j+seed); rank == root && got != want {
				return fmt.Errorf("gather byte %d of %d is %d, want %d", j, r, got, want)
			}
		}
	}
	all := make([]byte, n*blk)
	for j := range all {
		all[j] = byte(3*j + seed)
	}
	var in []byte
	out := make([]byte, blk)
	if rank == root {
		in = all
		if inPlace {
			out = nil
		}
	}
	if err := u.Scatter(in, out, root, 1); err != nil {
		return err
	}
	got := out
	if out == nil {
		got = all[rank*blk : (rank+1)*blk]
	}
	for j := range blk {
		if want := byte(3*(rank*blk+j) + seed); got[j] != want {
			return fmt.Errorf("scatter byte %d is %d, want %d", j, got[j], want)
		}
	}
	return nil
}

// smallHash's cache hands out a key's hash only for the key it holds:
// each call below differs from the one before it in one of the key's
// parts (the collective, the element size, the byte count, the root, the
// element kind, the operation, a reducer or none), and its hash and
// record are those a fresh Runner computes; calls with different keys
// hash apart.
func TestSmallHashCache(t *testing.T) {
	sumF, _ := ReducerFor[float64](Sum)
	maxF, _ := ReducerFor[float64](Max)
	sumI, _ := ReducerFor[int64](Sum)
	type call struct {
		coll              Collective
		elem, bytes, root int
		r                 *Reducer
	}
	calls := []call{
		{CollAllreduce, 8, 8, 0, &sumF}, {CollAllreduce, 8, 8, 0, &sumF}, // a repeat
		{CollAllreduce, 8, 8, 0, &maxF}, // the operation
		{CollAllreduce, 8, 8, 0, &sumF}, // back
		{CollAllreduce, 8, 8, 0, &sumI}, // the element kind alone
		{CollReduce, 8, 8, 0, &sumI},    // the collective
		{CollReduce, 8, 8, 1, &sumI},    // the root
		{CollReduce, 8, 16, 1, &sumI},   // the byte count
		{CollBcast, 8, 16, 1, nil},      // no reducer
		{CollBcast, 1, 16, 1, nil},      // the element size alone
		{CollBcast, 1, 16, 0, nil},      // the root again
		{CollAllreduce, 8, 8, 0, &sumF}, // the first key again
	}
	u := &Runner{HW: &loneHW{}}
	seen := map[uint64]int{}
	for i, c := range calls {
		got := u.smallHash(c.coll, c.elem, c.bytes, c.root, c.r)
		fresh := &Runner{HW: &loneHW{}}
		want := fresh.smallHash(c.coll, c.elem, c.bytes, c.root, c.r)
		if got != want {
			t.Errorf("call %d %+v: hash %#x, a fresh Runner's %#x", i, c, got, want)
		}
		if u.small.rec != fresh.small.rec {
			t.Errorf("call %d: the record encodes %v, a fresh Runner's %v", i, getKey(u.small.rec[:]), getKey(fresh.small.rec[:]))
		}
		k := Key{Coll: c.coll, Elem: c.elem, Root: c.root, Bytes: c.bytes}
		if c.r != nil {
			k.Kind, k.Op = uint8(c.r.Kind), opID(*c.r)
		}
		var rec [keySize]byte
		k.put(rec[:])
		if fresh.small.rec != rec {
			t.Errorf("call %d: the record encodes %v, want %v", i, getKey(fresh.small.rec[:]), k)
		}
		if j, ok := seen[want]; ok && calls[j] != c {
			t.Errorf("calls %d and %d hash alike", j, i)
		}
		seen[want] = i
	}
}

// wordOf and putWord move the first bytes of a data word, whatever their
// number, and wordOf leaves the rest of the word it fills as it was.
func TestWordOf(t *testing.T) {
	u := &Runner{}
	for n := 0; n <= DatumSize; n++ {
		for i := range u.out {
			u.out[i] = 0xee
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i + 1)
		}
		w := u.wordOf(b)
		if w != &u.out {
			t.Fatalf("%d bytes: the word is not the Runner's", n)
		}
		for i := range w {
			if i < n && w[i] != byte(i+1) || i >= n && w[i] != 0xee {
				t.Fatalf("%d bytes: word %v", n, w)
			}
		}
		out := make([]byte, n)
		putWord(out, w)
		if !bytes.Equal(out, b) {
			t.Fatalf("%d bytes: putWord gave %v, want %v", n, out, b)
		}
	}
}

// A reduce's root that keeps its own vector off the board (payloadReduction)
// still folds every rank's vector in rank order: the composition of affine
// maps, which does not commute, comes out as d0 ∘ d1 ∘ … at every root, in
// place or not.
func TestPayloadReduceOrder(t *testing.T) {
	op := NewOp("affine", func(in, inout []uint64) {
		for i := range inout {
			inout[i] = composeAffine(in[i], inout[i])
		}
	}, false)
	red, err := ReducerFor[uint64](op)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		want := affineVector(n - 1)
		for r := n - 2; r >= 0; r-- {
			for j, x := range affineVector(r) {
				want[j] = composeAffine(x, want[j])
			}
		}
		errs := runRunners(t, n, true, true, nil, func(u *Runner) error {
			return reduceAffineEverywhere(u, n, red, want)
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("n=%d rank %d: %v", n, r, err)
			}
		}
	}
}

// composeAffine composes affine maps: each element is an affine map
// x -> m*x + c mod 2^32, m in the high half: a ∘ b is a after b.
func composeAffine(a, b uint64) uint64 {
	am, ac, bm, bc := uint32(a>>32), uint32(a), uint32(b>>32), uint32(b)
	return uint64(am*bm)<<32 | uint64(am*bc+ac)
}

// affineElems is the length of a rank's vector of affine maps: 64 bytes,
// the vectors travel as payloads.
const affineElems = 8

// affineVector returns rank r's vector of affine maps.
func affineVector(r int) []uint64 {
	v := make([]uint64, affineElems)
	for j := range v {
		v[j] = uint64(2*r+3+j)<<32 | uint64(7*r+j+1)
	}
	return v
}

// affineBytes returns v's bytes, little-endian.
func affineBytes(v []uint64) []byte {
	b := make([]byte, 8*len(v))
	for j, x := range v {
		binary.LittleEndian.PutUint64(b[8*j:], x)
	}
	return b
}

// reduceAffineEverywhere reduces every rank's vector to every root of n,
// in place or not, and wants every root to get want, with no call taken
// by the driver.
func reduceAffineEverywhere(u *Runner, n int, red Reducer, want []uint64) error {
	rank := u.Net.Rank()
	for _, inPlace := range []bool{false, true} {
		for root := range n {
			send, recv := affineBytes(affineVector(rank)), make([]byte, 8*affineElems)
			if inPlace && rank == root {
				copy(recv, send)
				send = nil
			}
			if err := u.Reduce(send, recv, red, root); err != nil {
				return err
			}
			if rank == root && !bytes.Equal(recv, affineBytes(want)) {
				return fmt.Errorf("reduce to %d, in place %v: wrong result", root, inPlace)
			}
		}
	}
	if u.c.Net != nil {
		return fmt.Errorf("the driver took a call: %v", u.Stats.Counts())
	}
	return nil
}
