package mpi_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// refType is the typemap of a datatype written out in full: the
// displacement of every element of one item, in the order Pack visits
// them, with the item's lower bound and extent. It is the naive model the
// datatype walker is checked against.
type refType struct {
	disps   []int
	lb, ext int
}

var refElement = refType{disps: []int{0}, lb: 0, ext: 1}

// refIndexed is MPI_Type_indexed over old, written out: block i holds
// lens[i] items of old starting at item displs[i]; the bounds run from
// the lowest block's lower bound to the highest block's upper bound.
func refIndexed(old refType, lens, displs []int) refType {
	var r refType
	found := false
	lo, hi := 0, 0
	for i, d := range displs {
		for k := range lens[i] {
			for _, e := range old.disps {
				r.disps = append(r.disps, (d+k)*old.ext+e)
			}
		}
		if lens[i] == 0 {
			continue
		}
		l, h := d*old.ext+old.lb, (d+lens[i])*old.ext+old.lb
		if !found {
			lo, hi, found = l, h, true
		}
		lo, hi = min(lo, l), max(hi, h)
	}
	r.lb, r.ext = lo, hi-lo
	return r
}

func refVector(old refType, count, blocklen, stride int) refType {
	lens, displs := make([]int, count), make([]int, count)
	for j := range count {
		lens[j], displs[j] = blocklen, j*stride
	}
	return refIndexed(old, lens, displs)
}

// refSubarray lists the elements of an array of extents sizes, in storage
// order, that lie inside the box of subsizes at starts.
func refSubarray(sizes, subsizes, starts []int, order mpi.Order) refType {
	d := len(sizes)
	total := 1
	for _, s := range sizes {
		total *= s
	}
	r := refType{lb: 0, ext: total}
	for off := range total {
		idx, rest, inside := make([]int, d), off, true
		for k := range d {
			i := k // Fortran: the first index varies fastest
			if order == mpi.OrderC {
				i = d - 1 - k
			}
			idx[i], rest = rest%sizes[i], rest/sizes[i]
		}
		for i := range d {
			inside = inside && idx[i] >= starts[i] && idx[i] < starts[i]+subsizes[i]
		}
		if inside {
			r.disps = append(r.disps, off)
		}
	}
	return r
}

// trueBounds returns the lowest element displacement and the distance to
// just past the highest; 0, 0 without elements.
func (r refType) trueBounds() (int, int) {
	if len(r.disps) == 0 {
		return 0, 0
	}
	return slices.Min(r.disps), slices.Max(r.disps) + 1 - slices.Min(r.disps)
}

// pack returns count items of r from buf, or the error class Pack must
// report.
func (r refType) pack(buf []float64, count int) ([]float64, error) {
	if count == 0 || len(r.disps) == 0 {
		return []float64{}, nil
	}
	lo, ext := r.trueBounds()
	if lo < 0 {
		return nil, mpi.ErrDatatype
	}
	if (count-1)*r.ext+lo+ext > len(buf) {
		return nil, mpi.ErrBuffer
	}
	var out []float64
	for i := range count {
		for _, d := range r.disps {
			out = append(out, buf[i*r.ext+d])
		}
	}
	return out, nil
}

// unpack writes in into count items of r in buf, in typemap order, until
// in runs out.
func (r refType) unpack(in, buf []float64, count int) {
	k := 0
	for i := range count {
		for _, d := range r.disps {
			if k == len(in) {
				return
			}
			buf[i*r.ext+d] = in[k]
			k++
		}
	}
}

// randomType returns a random small datatype of nesting depth up to depth,
// built with the package's constructors, and its model.
func randomType(rng *rand.Rand, depth int) (*mpi.Datatype, refType, string) {
	if depth == 0 {
		if rng.IntN(3) > 0 {
			return mpi.Element, refElement, "E"
		}
		return randomSubarray(rng)
	}
	old, ref, name := randomType(rng, depth-1)
	switch rng.IntN(5) {
	case 0:
		n := rng.IntN(4)
		return must(old.Contiguous(n)), refVector(ref, n, 1, 1), fmt.Sprintf("Contiguous(%d, %s)", n, name)
	case 1:
		count, bl, stride := rng.IntN(4), rng.IntN(3), rng.IntN(7)-1
		return must(old.Vector(count, bl, stride)), refVector(ref, count, bl, stride),
			fmt.Sprintf("Vector(%d, %d, %d, %s)", count, bl, stride, name)
	case 2:
		n := rng.IntN(4)
		lens, displs := make([]int, n), make([]int, n)
		for i := range n {
			lens[i], displs[i] = rng.IntN(3), rng.IntN(8)-1
		}
		return must(old.Indexed(lens, displs)), refIndexed(ref, lens, displs),
			fmt.Sprintf("Indexed(%v, %v, %s)", lens, displs, name)
	case 3:
		n, bl := rng.IntN(4), rng.IntN(3)
		displs, lens := make([]int, n), make([]int, n)
		for i := range n {
			displs[i], lens[i] = rng.IntN(8), bl
		}
		return must(old.IndexedBlock(bl, displs)), refIndexed(ref, lens, displs),
			fmt.Sprintf("IndexedBlock(%d, %v, %s)", bl, displs, name)
	default:
		lb, ext := rng.IntN(5)-2, rng.IntN(7)
		r := ref
		r.lb, r.ext = lb, ext
		return must(old.Resized(lb, ext)), r, fmt.Sprintf("Resized(%d, %d, %s)", lb, ext, name)
	}
}

// randomSubarray returns a random subarray of a small array of up to
// three dimensions.
func randomSubarray(rng *rand.Rand) (*mpi.Datatype, refType, string) {
	d := 1 + rng.IntN(3)
	sizes, subsizes, starts := make([]int, d), make([]int, d), make([]int, d)
	for i := range d {
		sizes[i] = 1 + rng.IntN(4)
		subsizes[i] = 1 + rng.IntN(sizes[i])
		starts[i] = rng.IntN(sizes[i] - subsizes[i] + 1)
	}
	order := mpi.Order(rng.IntN(2))
	dt, err := mpi.Subarray(sizes, subsizes, starts, order)
	if err != nil {
		panic(err)
	}
	return dt, refSubarray(sizes, subsizes, starts, order),
		fmt.Sprintf("Subarray(%v, %v, %v, %d)", sizes, subsizes, starts, order)
}

// TestDatatypeMatchesReference builds random nested datatypes and checks
// their bounds, Pack and Unpack against the typemap written out in full.
func TestDatatypeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 3))
	for range 3000 {
		dt, ref, name := randomType(rng, rng.IntN(4))
		checkAgainstReference(t, rng, dt, ref, name)
		if t.Failed() {
			return
		}
	}
}

// checkAgainstReference compares dt with its model ref on random buffers.
func checkAgainstReference(t *testing.T, rng *rand.Rand, dt *mpi.Datatype, ref refType, name string) {
	t.Helper()
	tlb, text := ref.trueBounds()
	if dt.Size() != len(ref.disps) || dt.LowerBound() != ref.lb || dt.Extent() != ref.ext ||
		dt.TrueLowerBound() != tlb || dt.TrueExtent() != text {
		t.Errorf("%s: size, lb, extent, true lb, true extent = %d, %d, %d, %d, %d; want %d, %d, %d, %d, %d", name,
			dt.Size(), dt.LowerBound(), dt.Extent(), dt.TrueLowerBound(), dt.TrueExtent(),
			len(ref.disps), ref.lb, ref.ext, tlb, text)
		return
	}
	count := rng.IntN(4)
	need := 0
	if count > 0 && len(ref.disps) > 0 {
		need = max(0, (count-1)*ref.ext+tlb+text)
	}
	buf := iota(max(0, need-rng.IntN(2))) // exactly enough, or one short
	for i := range buf {
		buf[i]++
	}
	want, werr := ref.pack(buf, count)
	out := make([]float64, count*dt.Size())
	n, err := mpi.Pack(buf, count, dt, out)
	if werr != nil || err != nil {
		if !errors.Is(err, werr) || werr == nil {
			t.Errorf("%s: Pack of %d into %d: %v, want %v", name, count, len(buf), err, werr)
		}
		return
	}
	if n != len(want) || !slices.Equal(out[:n], want) {
		t.Errorf("%s: Pack of %d: %v, want %v", name, count, out[:n], want)
		return
	}
	short := want[:rng.IntN(len(want)+1)]
	got, exp := make([]float64, len(buf)), make([]float64, len(buf))
	ref.unpack(short, exp, count)
	if n, err := mpi.Unpack(short, got, count, dt); err != nil || n != len(short) || !slices.Equal(got, exp) {
		t.Errorf("%s: Unpack of %d elements into %d items: %d, %v, %v; want %v", name, len(short), count, n, err, got, exp)
	}
}

// refDarray lists the elements of an array of extents gsizes, in storage
// order, whose every index the process of grid coordinates coords owns:
// index k of a dimension split in blocks of b over p processes belongs to
// process k/b (block) or (k/b) mod p (cyclic).
func refDarray(gsizes []int, distribs []mpi.Distribution, blocks, coords, psizes []int, order mpi.Order) refType {
	all := refSubarray(gsizes, gsizes, make([]int, len(gsizes)), order)
	r := refType{ext: all.ext}
	for _, off := range all.disps {
		rest, mine := off, true
		for k := range gsizes {
			i := k
			if order == mpi.OrderC {
				i = len(gsizes) - 1 - k
			}
			idx := rest % gsizes[i]
			rest /= gsizes[i]
			switch distribs[i] {
			case mpi.DistributeBlock:
				mine = mine && idx/blocks[i] == coords[i]
			case mpi.DistributeCyclic:
				mine = mine && (idx/blocks[i])%psizes[i] == coords[i]
			}
		}
		if mine {
			r.disps = append(r.disps, off)
		}
	}
	return r
}

// TestDarrayMatchesReference checks random distributions of small arrays
// against the elements each process owns by definition.
func TestDarrayMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 7))
	for range 2000 {
		d := 1 + rng.IntN(3)
		gsizes, psizes, dargs, blocks := make([]int, d), make([]int, d), make([]int, d), make([]int, d)
		distribs := make([]mpi.Distribution, d)
		size := 1
		for i := range d {
			gsizes[i], psizes[i] = 1+rng.IntN(7), 1+rng.IntN(3)
			distribs[i] = mpi.Distribution(rng.IntN(3))
			dargs[i] = mpi.DistributeDefault
			if distribs[i] == mpi.DistributeNone {
				psizes[i] = 1
			} else if rng.IntN(2) == 0 {
				dargs[i] = 1 + rng.IntN(4)
			}
			switch b := dargs[i]; {
			case b != mpi.DistributeDefault:
				blocks[i] = b
			case distribs[i] == mpi.DistributeBlock:
				blocks[i] = (gsizes[i] + psizes[i] - 1) / psizes[i]
			default:
				blocks[i] = 1
			}
			size *= psizes[i]
		}
		rank, order := rng.IntN(size), mpi.Order(rng.IntN(2))
		name := fmt.Sprintf("Darray(%d, %d, %v, %v, %v, %v, %d)", size, rank, gsizes, distribs, dargs, psizes, order)
		coords, rest := make([]int, d), rank
		covered := true
		for i := d - 1; i >= 0; i-- {
			coords[i], rest = rest%psizes[i], rest/psizes[i]
			covered = covered && (distribs[i] != mpi.DistributeBlock || blocks[i]*psizes[i] >= gsizes[i])
		}
		dt, err := mpi.Darray(size, rank, gsizes, distribs, dargs, psizes, order)
		if !covered {
			if !errors.Is(err, mpi.ErrDatatype) {
				t.Fatalf("%s: %v, want ErrDatatype", name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkAgainstReference(t, rng, dt, refDarray(gsizes, distribs, blocks, coords, psizes, order), name)
		if t.Failed() {
			return
		}
	}
}
