package mpi

import (
	"errors"
	"fmt"
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
type Datatype struct {
	blocks []typeBlock // in increasing order of displacement unless built otherwise
	lb     int         // lower bound: where an item starts relative to its displacement origin
	extent int         // distance between consecutive items
	size   int         // elements per item
}

// typeBlock is n consecutive elements at displacement disp.
type typeBlock struct{ disp, n int }

// Element is the datatype of one element of the buffer's type: the
// predefined datatype (MPI_DOUBLE for a []float64 buffer, and so on)
// that the constructors build on.
var Element = &Datatype{blocks: []typeBlock{{0, 1}}, extent: 1, size: 1}

// newDatatype makes a Datatype of blocks, merging consecutive ones; its
// bounds are left to the caller.
func newDatatype(blocks []typeBlock) *Datatype {
	dt := &Datatype{}
	for _, b := range blocks {
		dt.size += b.n
		dt.blocks = appendBlock(dt.blocks, b)
	}
	return dt
}

// appendBlock appends b to blocks, merging it into the last block when it
// continues it.
func appendBlock(blocks []typeBlock, b typeBlock) []typeBlock {
	if b.n == 0 {
		return blocks
	}
	if k := len(blocks) - 1; k >= 0 && blocks[k].disp+blocks[k].n == b.disp {
		blocks[k].n += b.n
		return blocks
	}
	return append(blocks, b)
}

// Size returns the number of elements one item holds (MPI_Type_size, in
// elements).
func (dt *Datatype) Size() int { return dt.size }

// Extent returns the distance between consecutive items, in elements
// (MPI_Type_get_extent's extent).
func (dt *Datatype) Extent() int { return dt.extent }

// LowerBound returns the displacement where an item starts
// (MPI_Type_get_extent's lb).
func (dt *Datatype) LowerBound() int { return dt.lb }

// span returns the number of elements a buffer needs for count items:
// the end of the last block of the last item.
func (dt *Datatype) span(count int) int {
	if count == 0 || dt.size == 0 {
		return 0
	}
	end := 0
	for _, b := range dt.blocks {
		end = max(end, b.disp+b.n)
	}
	return (count-1)*dt.extent + end
}

// check reports whether count items of dt fit a buffer of n elements. A
// block before the start of the buffer is an error: a Go slice has
// nothing there.
func (dt *Datatype) check(op string, count, n int) error {
	if err := dt.fits(count, n); err != nil {
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	return nil
}

// fits is check without the name of the call.
func (dt *Datatype) fits(count, n int) error {
	if dt == nil {
		return fmt.Errorf("%w: nil", ErrDatatype)
	}
	if count < 0 {
		return fmt.Errorf("%w: %d items", ErrCount, count)
	}
	if count == 0 || dt.size == 0 {
		return nil
	}
	for _, b := range dt.blocks {
		if b.disp < 0 {
			return fmt.Errorf("%w: a block at displacement %d precedes the buffer", ErrDatatype, b.disp)
		}
	}
	if need := dt.span(count); need > n {
		return fmt.Errorf("%w: %d items of the datatype reach element %d of a buffer of %d", ErrBuffer, count, need, n)
	}
	return nil
}

// Contiguous returns the datatype of count consecutive items of old
// (MPI_Type_contiguous).
func (old *Datatype) Contiguous(count int) (*Datatype, error) {
	return old.Vector(count, 1, 1)
}

// Contiguous returns the datatype of count consecutive elements
// (MPI_Type_contiguous).
func Contiguous(count int) (*Datatype, error) { return Element.Contiguous(count) }

// Vector returns the datatype of count blocks of blocklen items of old,
// the starts of consecutive blocks stride items of old apart
// (MPI_Type_vector): a column of a row-major matrix of n columns is
// Vector(rows, 1, n).
func (old *Datatype) Vector(count, blocklen, stride int) (*Datatype, error) {
	if count < 0 || blocklen < 0 {
		return nil, fmt.Errorf("mpi: Vector: %w: count %d, block length %d", ErrDatatype, count, blocklen)
	}
	displs := make([]int, count)
	for i := range displs {
		displs[i] = i * stride
	}
	return old.indexed("Vector", nil, blocklen, displs)
}

// Vector returns the datatype of count blocks of blocklen elements whose
// starts are stride elements apart (MPI_Type_vector).
func Vector(count, blocklen, stride int) (*Datatype, error) {
	return Element.Vector(count, blocklen, stride)
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
// when lens is nil) at displs[i] items of old.
func (old *Datatype) indexed(op string, lens []int, blocklen int, displs []int) (*Datatype, error) {
	if old == nil {
		return nil, fmt.Errorf("mpi: %s: %w: nil old datatype", op, ErrDatatype)
	}
	var blocks []typeBlock
	for i, d := range displs {
		n := blocklen
		if lens != nil {
			n = lens[i]
		}
		if n < 0 {
			return nil, fmt.Errorf("mpi: %s: %w: block %d has length %d", op, ErrDatatype, i, n)
		}
		for k := range n {
			base := (d + k) * old.extent
			for _, b := range old.blocks {
				blocks = append(blocks, typeBlock{base + b.disp, b.n})
			}
		}
	}
	dt := newDatatype(blocks)
	dt.lb, dt.extent = boundsOf(lens, blocklen, displs, old)
	return dt, nil
}

// boundsOf returns the lower bound and extent of blocks of items of old
// at displs: from the first item's lower bound to the last one's upper
// bound (lower bound plus extent), as MPI's typemap rules have it.
func boundsOf(lens []int, blocklen int, displs []int, old *Datatype) (int, int) {
	lo, hi, found := 0, 0, false
	for i, d := range displs {
		n := blocklen
		if lens != nil {
			n = lens[i]
		}
		if n == 0 {
			continue
		}
		l, h := d*old.extent+old.lb, (d+n)*old.extent+old.lb
		if !found {
			lo, hi, found = l, h, true
		}
		lo, hi = min(lo, l), max(hi, h)
	}
	return lo, hi - lo
}

// Resized returns dt with lower bound lb and extent extent, in elements
// (MPI_Type_create_resized): the data stays where it is, and consecutive
// items start extent elements apart.
func (dt *Datatype) Resized(lb, extent int) (*Datatype, error) {
	if extent < 0 {
		return nil, fmt.Errorf("mpi: Resized: %w: extent %d", ErrDatatype, extent)
	}
	return &Datatype{blocks: dt.blocks, lb: lb, extent: extent, size: dt.size}, nil // blocks are never modified: shared
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
// total the number of elements.
func arrayLayout(sizes []int, order Order) (dim func(k int) int, stride []int, total int) {
	d := len(sizes)
	dim = func(k int) int {
		if order == OrderC {
			return d - 1 - k
		}
		return k
	}
	stride = make([]int, d)
	total = 1
	for k := range d {
		stride[dim(k)] = total
		total *= sizes[dim(k)]
	}
	return dim, stride, total
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
		if sizes[i] <= 0 || subsizes[i] <= 0 || starts[i] < 0 || starts[i]+subsizes[i] > sizes[i] {
			return nil, fmt.Errorf("mpi: Subarray: %w: dimension %d: size %d, subsize %d, start %d", ErrDatatype, i, sizes[i], subsizes[i], starts[i])
		}
	}
	dim, stride, total := arrayLayout(sizes, order)
	var blocks []typeBlock
	idx := make([]int, d) // position within the subarray, by k
	for {
		off := 0
		for k := range d {
			off += (starts[dim(k)] + idx[k]) * stride[dim(k)]
		}
		blocks = appendBlock(blocks, typeBlock{off, subsizes[dim(0)]})
		k := 1
		for ; k < d; k++ {
			if idx[k]++; idx[k] < subsizes[dim(k)] {
				break
			}
			idx[k] = 0
		}
		if k >= d {
			break
		}
	}
	dt := newDatatype(blocks)
	dt.lb, dt.extent = 0, total
	return dt, nil
}
