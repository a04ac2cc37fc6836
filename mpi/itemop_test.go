package mpi_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["item-op"] = scenarioItemOp
}

// TestItemOp reduces items whose size no element type has, with
// operations made by NewItemOp.
func TestItemOp(t *testing.T) {
	t.Parallel()
	runAt(t, "item-op", []int{1, 2, 3, 4, 5})
}

// mat3 is a 3×3 matrix of int32, 36 bytes as an item.
type mat3 [9]int32

const mat3Size = 36

func (m mat3) mul(o mat3) mat3 {
	var p mat3
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				p[3*i+j] += m[3*i+k] * o[3*k+j]
			}
		}
	}
	return p
}

func (m mat3) put(b []byte) {
	for i, v := range m {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
}

func getMat3(b []byte) mat3 {
	var m mat3
	for i := range m {
		m[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return m
}

// rankMat is rank r's j-th matrix: a permutation scaled, so that products
// in different orders differ.
func rankMat(r, j int) mat3 {
	var m mat3
	perm := [][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}}[(r+j)%4]
	for i := range 3 {
		m[3*i+perm[i]] = int32(1 + (r+i+j)%3)
	}
	return m
}

// scenarioItemOp: a non-commutative product of 36-byte matrices by
// Allreduce, Reduce and Scan, checked against the product in rank order;
// and a commutative sum of 12-byte records over a vector long enough that
// the reduction is cut into pieces, each of whole records.
func scenarioItemOp(w *mpi.Comm) error {
	rank, size := w.Rank(), w.Size()
	product := mpi.NewItemOp("matmul", mat3Size, func(in, inout []byte) {
		for i := 0; i+mat3Size <= len(inout); i += mat3Size {
			getMat3(in[i:]).mul(getMat3(inout[i:])).put(inout[i:])
		}
	}, false)
	const k = 7
	mine := make([]byte, k*mat3Size)
	for j := range k {
		rankMat(rank, j).put(mine[j*mat3Size:])
	}
	want := func(upto, j int) mat3 {
		p := rankMat(0, j)
		for r := 1; r <= upto; r++ {
			p = p.mul(rankMat(r, j))
		}
		return p
	}
	check := func(what string, got []byte, upto int) error {
		for j := range k {
			if m := getMat3(got[j*mat3Size:]); m != want(upto, j) {
				return fmt.Errorf("%s: matrix %d is %v, want %v", what, j, m, want(upto, j))
			}
		}
		return nil
	}
	all := make([]byte, len(mine))
	if err := mpi.Allreduce(w, mine, all, product); err != nil {
		return err
	}
	if err := check("Allreduce", all, size-1); err != nil {
		return err
	}
	root := make([]byte, len(mine))
	if err := mpi.Reduce(w, mine, root, product, size-1); err != nil {
		return err
	}
	if rank == size-1 {
		if err := check("Reduce", root, size-1); err != nil {
			return err
		}
	}
	prefix := make([]byte, len(mine))
	if err := mpi.Scan(w, mine, prefix, product); err != nil {
		return err
	}
	if err := check("Scan", prefix, rank); err != nil {
		return err
	}
	return itemSums(w)
}

// itemSums sums 12-byte records of three int32 over 50,000 records.
func itemSums(w *mpi.Comm) error {
	rank, size := w.Rank(), w.Size()
	sum := mpi.NewItemOp("record sum", 12, func(in, inout []byte) {
		if len(in)%12 != 0 || len(inout)%12 != 0 {
			panic(fmt.Sprintf("record sum: %d and %d bytes, not whole records", len(in), len(inout)))
		}
		for i := 0; i < len(inout); i += 4 {
			v := binary.LittleEndian.Uint32(in[i:]) + binary.LittleEndian.Uint32(inout[i:])
			binary.LittleEndian.PutUint32(inout[i:], v)
		}
	}, true)
	const n = 50000
	mine, got := make([]byte, 12*n), make([]byte, 12*n)
	for i := 0; i < 3*n; i++ {
		binary.LittleEndian.PutUint32(mine[4*i:], uint32(i+rank))
	}
	if err := mpi.Allreduce(w, mine, got, sum); err != nil {
		return err
	}
	for i := 0; i < 3*n; i++ {
		if v, want := binary.LittleEndian.Uint32(got[4*i:]), uint32(size*i+size*(size-1)/2); v != want {
			return fmt.Errorf("record sum: word %d is %d, want %d", i, v, want)
		}
	}
	return nil
}
