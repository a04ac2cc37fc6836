package mpi

import (
	"errors"
	"fmt"
	"slices"
)

// ErrDatatype classes errors in building or using a Datatype.
var ErrDatatype = errors.New("invalid datatype")

// Datatype is a derived datatype: where the elements of one item lie in a
// buffer, counted in elements of the buffer's own type (a []float64's
// float64s, say). It is a list of blocks of consecutive elements, each at
// a displacement from the item's start, and an extent, the distance from
// one item to the next when a call transfers several. Send and receive
// them with SendType, RecvType, IsendType and IrecvType, or Pack and
// Unpack them.
//
// A Datatype is immutable and may be shared between goroutines; it needs
// no commit and no free (MPI_Type_commit, MPI_Type_free).
//
// It is stored as the constructors describe it, not as a list of its
// blocks: a vector keeps its count, block length and stride and the
// datatype it repeats, an indexed datatype its lengths and displacements,
// so that a datatype of any number of elements costs a few words more
// than the arrays it was built from. Every number it keeps fits an int:
// the constructors refuse, with ErrDatatype, a datatype whose size,
// bounds or displacements would not.
type Datatype struct {
	kind     typeKind
	child    *Datatype   // the datatype the blocks repeat
	children []*Datatype // kindIndexed: block i's datatype, where they differ; else nil
	count    int         // kindVector: number of blocks
	blocklen int         // items of child per block (kindIndexed: where lens is nil)
	disp     int         // kindVector: displacement of the first block, in elements
	stride   int         // kindVector: elements between the starts of consecutive blocks
	lens     []int       // kindIndexed: items of child in block i, or nil for blocklen
	displs   []int       // kindIndexed: displacement of block i, in elements

	size       int  // elements per item
	lb, extent int  // where an item starts relative to its origin, and the distance between items
	trueLB     int  // displacement of the first element of an item
	trueExtent int  // from the first element to just past the last
	dense      bool // an item's elements are the size elements from trueLB on, in order
}

// typeKind is the shape of a Datatype's layout.
type typeKind uint8

const (
	kindElement typeKind = iota // one element at displacement 0
	kindVector                  // count blocks, block j at disp + j·stride elements
	kindIndexed                 // block i at displs[i] elements
)

// Element is the datatype of one element of the buffer's type: the
// predefined datatype (MPI_DOUBLE for a []float64 buffer, and so on)
// that the constructors build on.
var Element = &Datatype{kind: kindElement, extent: 1, size: 1, trueExtent: 1, dense: true}

// Size returns the number of elements one item holds (MPI_Type_size, in
// elements).
func (dt *Datatype) Size() int { return dt.size }

// Extent returns the distance between consecutive items, in elements
// (MPI_Type_get_extent's extent).
func (dt *Datatype) Extent() int { return dt.extent }

// LowerBound returns the displacement where an item starts
// (MPI_Type_get_extent's lb).
func (dt *Datatype) LowerBound() int { return dt.lb }

// Contiguous returns the datatype of count consecutive items of old
// (MPI_Type_contiguous).
func (old *Datatype) Contiguous(count int) (*Datatype, error) {
	return old.vector("Contiguous", count, 1, 1)
}

// Contiguous returns the datatype of count consecutive elements
// (MPI_Type_contiguous).
func Contiguous(count int) (*Datatype, error) { return Element.Contiguous(count) }

// Vector returns the datatype of count blocks of blocklen items of old,
// the starts of consecutive blocks stride items of old apart
// (MPI_Type_vector): a column of a row-major matrix of n columns is
// Vector(rows, 1, n).
func (old *Datatype) Vector(count, blocklen, stride int) (*Datatype, error) {
	return old.vector("Vector", count, blocklen, stride)
}

// Vector returns the datatype of count blocks of blocklen elements whose
// starts are stride elements apart (MPI_Type_vector).
func Vector(count, blocklen, stride int) (*Datatype, error) {
	return Element.Vector(count, blocklen, stride)
}

// vector is Vector for the call op.
func (old *Datatype) vector(op string, count, blocklen, stride int) (*Datatype, error) {
	if old == nil {
		return nil, fmt.Errorf("mpi: %s: %w: nil old datatype", op, ErrDatatype)
	}
	if count < 0 || blocklen < 0 {
		return nil, fmt.Errorf("mpi: %s: %w: count %d, block length %d", op, ErrDatatype, count, blocklen)
	}
	var a arith
	step := 0
	if count > 1 { // a single block's stride is never used
		step = a.mul(stride, old.extent)
	}
	dt := hvector(&a, old, count, blocklen, step, 0)
	if a.over {
		return nil, fmt.Errorf("mpi: %s: %w: %d blocks of %d items of extent %d, %d items apart, overflow an int",
			op, ErrDatatype, count, blocklen, old.extent, stride)
	}
	return dt, nil
}

// Indexed returns the datatype of blocks of blocklens[i] items of old at
// displacements displs[i], in items of old (MPI_Type_indexed).
func (old *Datatype) Indexed(blocklens, displs []int) (*Datatype, error) {
	if len(blocklens) != len(displs) {
		return nil, fmt.Errorf("mpi: Indexed: %w: %d block lengths, %d displacements", ErrDatatype, len(blocklens), len(displs))
	}
	return old.indexed("Indexed", blocklens, 0, displs)
}

// Indexed returns the datatype of blocks of blocklens[i] elements at
// displacements displs[i] (MPI_Type_indexed).
func Indexed(blocklens, displs []int) (*Datatype, error) { return Element.Indexed(blocklens, displs) }

// IndexedBlock returns the datatype of blocks of blocklen elements at
// displacements displs (MPI_Type_create_indexed_block).
func IndexedBlock(blocklen int, displs []int) (*Datatype, error) {
	return Element.IndexedBlock(blocklen, displs)
}

// IndexedBlock returns the datatype of blocks of blocklen items of old at
// displacements displs, in items of old (MPI_Type_create_indexed_block).
func (old *Datatype) IndexedBlock(blocklen int, displs []int) (*Datatype, error) {
	return old.indexed("IndexedBlock", nil, blocklen, displs)
}

// indexed builds blocks of old: block i holds lens[i] items (or blocklen
// when lens is nil) at displs[i] items of old. It keeps copies of the
// arrays, the displacements converted to elements.
func (old *Datatype) indexed(op string, lens []int, blocklen int, displs []int) (*Datatype, error) {
	if old == nil {
		return nil, fmt.Errorf("mpi: %s: %w: nil old datatype", op, ErrDatatype)
	}
	if lens == nil && blocklen < 0 {
		return nil, fmt.Errorf("mpi: %s: %w: block length %d", op, ErrDatatype, blocklen)
	}
	var a arith
	dt := &Datatype{kind: kindIndexed, child: old, blocklen: blocklen, lens: slices.Clone(lens), displs: make([]int, len(displs))}
	var tb typeBounds
	for i, d := range displs {
		n := dt.blockLen(i)
		if n < 0 {
			return nil, fmt.Errorf("mpi: %s: %w: block %d has length %d", op, ErrDatatype, i, n)
		}
		if n == 0 {
			continue // an empty block's displacement is never used
		}
		dt.displs[i] = a.mul(d, old.extent)
		tb.add(&a, dt.displs[i], n, old)
		dt.size = a.add(dt.size, a.mul(n, old.size))
		if a.over {
			return nil, fmt.Errorf("mpi: %s: %w: block %d, %d items of extent %d at item %d, overflows an int",
				op, ErrDatatype, i, n, old.extent, d)
		}
	}
	tb.setOn(dt)
	dt.dense = dt.indexedDense()
	return dt, nil
}

// Struct returns the datatype of blocks of blocklens[i] items of types[i]
// at displacements displs[i], in elements of the buffer
// (MPI_Type_create_struct): where a record's fields of different
// datatypes lie in a buffer of bytes, say. Its items follow the blocks in
// the order given.
func Struct(blocklens, displs []int, types []*Datatype) (*Datatype, error) {
	if len(blocklens) != len(displs) || len(types) != len(displs) {
		return nil, fmt.Errorf("mpi: Struct: %w: %d block lengths, %d displacements, %d datatypes", ErrDatatype, len(blocklens), len(displs), len(types))
	}
	var a arith
	dt := &Datatype{kind: kindIndexed, children: slices.Clone(types), lens: slices.Clone(blocklens), displs: slices.Clone(displs)}
	var tb typeBounds
	for i, t := range types {
		n := blocklens[i]
		switch {
		case t == nil:
			return nil, fmt.Errorf("mpi: Struct: %w: block %d has no datatype", ErrDatatype, i)
		case n < 0:
			return nil, fmt.Errorf("mpi: Struct: %w: block %d has length %d", ErrDatatype, i, n)
		}
		tb.add(&a, displs[i], n, t)
		dt.size = a.add(dt.size, a.mul(n, t.size))
		if a.over {
			return nil, fmt.Errorf("mpi: Struct: %w: block %d, %d items of extent %d at %d, overflows an int", ErrDatatype, i, n, t.extent, displs[i])
		}
	}
	tb.setOn(dt)
	dt.dense = dt.indexedDense()
	return dt, nil
}

// Resized returns dt with lower bound lb and extent extent, in elements
// (MPI_Type_create_resized): the data stays where it is, and consecutive
// items start extent elements apart.
func (dt *Datatype) Resized(lb, extent int) (*Datatype, error) {
	if dt == nil {
		return nil, fmt.Errorf("mpi: Resized: %w: nil", ErrDatatype)
	}
	if extent < 0 {
		return nil, fmt.Errorf("mpi: Resized: %w: extent %d", ErrDatatype, extent)
	}
	r := *dt // the layout is never modified: shared
	r.lb, r.extent = lb, extent
	return &r, nil
}

// Order is the storage order of a multidimensional array.
type Order int

// The storage orders of Subarray.
const (
	OrderC       Order = iota // row-major: the last index varies fastest (MPI_ORDER_C)
	OrderFortran              // column-major: the first index varies fastest (MPI_ORDER_FORTRAN)
)

// arrayLayout describes an array of extents sizes stored in order: dim(k)
// is the dimension that varies k-th fastest (dim(0) the fastest), stride
// the distance in elements between neighbours along each dimension, and
// total the number of elements. It reports an error wrapping ErrDatatype
// where total overflows an int.
func arrayLayout(sizes []int, order Order) (dim func(k int) int, stride []int, total int, err error) {
	d := len(sizes)
	dim = func(k int) int {
		if order == OrderC {
			return d - 1 - k
		}
		return k
	}
	stride = make([]int, d)
	total = 1
	var a arith
	for k := range d {
		stride[dim(k)] = total
		total = a.mul(total, sizes[dim(k)])
	}
	if a.over {
		return nil, nil, 0, fmt.Errorf("%w: an array of extents %v has more elements than an int counts", ErrDatatype, sizes)
	}
	return dim, stride, total, nil
}

// Subarray returns the datatype of the subarray of extents subsizes at
// starts within an array of extents sizes stored in order
// (MPI_Type_create_subarray). Its extent is the whole array's, so
// that consecutive items are consecutive arrays.
func Subarray(sizes, subsizes, starts []int, order Order) (*Datatype, error) {
	d := len(sizes)
	if d == 0 || len(subsizes) != d || len(starts) != d {
		return nil, fmt.Errorf("mpi: Subarray: %w: %d sizes, %d subsizes, %d starts", ErrDatatype, len(sizes), len(subsizes), len(starts))
	}
	if order != OrderC && order != OrderFortran {
		return nil, fmt.Errorf("mpi: Subarray: %w: order %d", ErrDatatype, order)
	}
	for i := range d {
		if sizes[i] <= 0 || subsizes[i] <= 0 || starts[i] < 0 || starts[i] > sizes[i]-subsizes[i] {
			return nil, fmt.Errorf("mpi: Subarray: %w: dimension %d: size %d, subsize %d, start %d", ErrDatatype, i, sizes[i], subsizes[i], starts[i])
		}
	}
	dim, stride, total, err := arrayLayout(sizes, order)
	if err != nil {
		return nil, fmt.Errorf("mpi: Subarray: %w", err)
	}
	// A vector per dimension, the fastest innermost: every number is at
	// most total, which fits.
	var a arith
	dt := Element
	for k := range d {
		i := dim(k)
		dt = hvector(&a, dt, subsizes[i], 1, stride[i], a.mul(starts[i], stride[i]))
	}
	if a.over {
		return nil, fmt.Errorf("mpi: Subarray: %w: the subarray of %v overflows an int", ErrDatatype, sizes)
	}
	return dt.Resized(0, total)
}
