package main

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// typeObj is a derived datatype that the program built: a datatype of
// package mpi over the bytes of the buffer.
type typeObj struct {
	dt    *mpi.Datatype
	align int // the largest alignment of its predefined parts (struct padding)
	// elem is the element type of all its values, when they are all of one
	// (a contiguous datatype of MPI_DOUBLE's can then be reduced); else
	// elemNone.
	elem elemKind
	// itemType is the predefined datatype that all its values are items of,
	// where the reductions and accumulates combine that type's items
	// whole: a struct value/index type (MPI_DOUBLE_INT ..., pairacc.go),
	// long double or its complex (longdouble.go); else 0.
	itemType int32
	sig      *signature // its type signature, for MPI_Get_elements (nil: unknown)
	env      *envelope  // how it was made (nil: unknown)
	// neg holds MPI's lower bound and extent where the extent is negative,
	// which package mpi's datatypes cannot have: dt has that lower bound
	// and extent 0 then (nil: dt's own bounds are MPI's).
	neg *typeBounds
}

// elemOf returns the element type of the values of datatype h: that of a
// predefined datatype of one (not the struct value/index ones), or a
// derived one's.
func elemOf(h int32) elemKind {
	if o, ok := userTypes.get(h); ok {
		return o.elem
	}
	if ti, ok := predefinedTypes[h]; ok && !ti.loc {
		return ti.elem
	}
	return elemNone
}

// elemSizes are the sizes of the element types.
var elemSizes = [...]int{
	elemInt8: 1, elemUint8: 1, elemInt16: 2, elemUint16: 2, elemInt32: 4, elemUint32: 4,
	elemInt64: 8, elemUint64: 8, elemFloat32: 4, elemFloat64: 8, elemComplex64: 8, elemComplex128: 16,
}

// userTypes are the derived datatypes. Their handles are indirect: MPICH's
// predefined pair types take direct datatype handles.
var userTypes = newIndirectTable[*typeObj](kindDatatype)

// typeBase returns datatype h as a datatype of package mpi over bytes, and
// its alignment.
func typeBase(h int32) (*mpi.Datatype, int, error) {
	if o, ok := userTypes.get(h); ok {
		return o.dt, o.align, nil
	}
	size, ok := typeSize(h)
	if !ok || size == 0 {
		return nil, 0, errorf(errType, "invalid datatype %#x", uint32(h))
	}
	ti := predefinedTypes[h]
	if ti.loc {
		return locType(ti)
	}
	align := min(size, 8)
	switch {
	case ti.elem == elemComplex64:
		align = 4 // two floats
	case ti.elem == elemNone && size >= 16:
		align = 16 // long double and its complex, as x86-64 aligns them
	}
	dt, err := mpi.Contiguous(size)
	return dt, align, err
}

// locType returns a struct value/index type (MPI_DOUBLE_INT ...) as C
// lays it out: the value, then an int at locOffset, and the padding to
// the struct's size, which counts in its extent but not in its size.
func locType(ti typeInfo) (*mpi.Datatype, int, error) {
	value := ti.locValueSize()
	dt, err := mpi.Indexed([]int{value, 4}, []int{0, ti.locOffset})
	if err == nil {
		dt, err = dt.Resized(0, ti.size)
	}
	return dt, max(min(value, 8), 4), err
}

// addType stores dt, of alignment align and signature sig, and its
// handle at out.
func addType(dt *mpi.Datatype, align int, elem elemKind, sig *signature, err error, out *int32) error {
	if err != nil {
		return errorf(errType, "%v", err)
	}
	h, ok := userTypes.add(&typeObj{dt: dt, align: align, elem: elem, sig: sig})
	if !ok {
		return errorf(errNoMem, "too many datatypes")
	}
	*out = h
	return nil
}

// hvector builds count blocks of blocklen items of old whose starts are
// stride bytes apart.
func hvector(count, blocklen, stride int, old *mpi.Datatype) (*mpi.Datatype, error) {
	if ext := old.Extent(); ext > 0 && stride%ext == 0 {
		return old.Vector(count, blocklen, stride/ext)
	}
	blk, err := old.Contiguous(blocklen)
	if err == nil {
		blk, err = blk.Resized(0, stride)
	}
	if err == nil {
		blk, err = blk.Contiguous(count)
	}
	if err != nil || count == 0 {
		return blk, err
	}
	return blk.Resized(0, (count-1)*stride+blocklen*old.Extent())
}

// hindexed builds blocks of blocklens[i] items of old at byte
// displacements displs[i].
func hindexed(blocklens, displs []int, old *mpi.Datatype) (*mpi.Datatype, error) {
	ext := old.Extent()
	items := make([]int, len(displs))
	for i, d := range displs {
		if ext == 0 || d%ext != 0 {
			return structOf(blocklens, displs, []*mpi.Datatype{old}, ext)
		}
		items[i] = d / ext
	}
	return old.Indexed(blocklens, items)
}

// structOf builds blocks of blocklens[i] items of types[i] (or types[0]
// for all) at byte displacements displs[i], with the extent rounded up
// to align, as C lays out structs.
func structOf(blocklens, displs []int, types []*mpi.Datatype, align int) (*mpi.Datatype, error) {
	all := make([]*mpi.Datatype, len(blocklens))
	for i := range all {
		all[i] = types[min(i, len(types)-1)]
	}
	dt, err := mpi.Struct(blocklens, displs, all)
	if err != nil {
		return nil, errorf(errType, "%v", err)
	}
	extent := dt.Extent()
	if align > 1 && extent%align != 0 {
		extent += align - extent%align
	}
	return dt.Resized(dt.LowerBound(), extent)
}

// cbuf is a buffer of the C program: count items of a datatype at an
// address. Items of a predefined datatype, or of a derived one that is
// contiguous, are moved as plain bytes; the others with their datatype.
//
// Its bytes are kept as their first byte and length, not as a slice: so
// it is four words, which the compiler keeps in registers. A struct of
// five it keeps in memory, and copies by 16-byte moves across the stores
// that built it at every return (docs/decisions.md, "Stores and loads of
// different sizes").
type cbuf struct {
	p     *byte         // the first byte (unsafe.SliceData of the bytes)
	n     int           // how many bytes
	dt    *mpi.Datatype // nil for plain bytes
	count int
}

// plainBuf returns the cbuf of the bytes b.
func plainBuf(b []byte) cbuf { return cbuf{p: unsafe.SliceData(b), n: len(b)} }

// typedBuf returns the cbuf of count items of dt in the bytes b.
func typedBuf(b []byte, dt *mpi.Datatype, count int) cbuf {
	return cbuf{p: unsafe.SliceData(b), n: len(b), dt: dt, count: count}
}

// bytes returns cb's bytes.
func (cb cbuf) bytes() []byte { return unsafe.Slice(cb.p, cb.n) }

// bufOf is cbufOf for a C int count (the one-sided calls').
func bufOf(p unsafe.Pointer, count, h int32) (cbuf, error) { return cbufOf(p, int64(count), h) }

// cbufOf returns the buffer of count items of datatype h at p: inline
// for the predefined datatypes of fixed size.
func cbufOf(p unsafe.Pointer, count int64, h int32) (cbuf, error) {
	if b, ok := plainBytes(p, count, h); ok {
		return plainBuf(b), nil
	}
	return anyBuf(p, count, h)
}

// anyBuf is cbufOf for any datatype and count: a negative count, or one
// of more bytes than a buffer spans, is MPI_ERR_COUNT.
func anyBuf(p unsafe.Pointer, count int64, h int32) (cbuf, error) {
	if size, ok := typeSize(h); ok {
		if err := checkCount(count, size); err != nil {
			return cbuf{}, err
		}
		return plainBuf(byteSlice(p, int(count)*size)), nil
	}
	o, ok := userTypes.get(h)
	if !ok {
		if err := checkCount(count, 0); err != nil {
			return cbuf{}, err
		}
		return cbuf{}, errorf(errType, "invalid datatype %#x", uint32(h))
	}
	dt, ext := o.dt, o.dt.Extent()
	if o.neg != nil {
		ext = o.neg.extent
	}
	if err := checkCount(count, abs(ext)+dt.TrueExtent()); err != nil {
		return cbuf{}, err
	}
	if p == nil && count > 0 && dt.Size() > 0 && dt.TrueLowerBound() > 0 {
		return shiftedBuf(p, int(count), dt) // MPI_BOTTOM: the displacements are addresses
	}
	if count == 0 {
		return plainBuf(byteSlice(p, 0)), nil
	}
	if dt.TrueLowerBound() < 0 || o.neg != nil && count > 1 {
		return negativeBuf(p, int(count), o)
	}
	span := (int(count)-1)*dt.Extent() + dt.TrueLowerBound() + dt.TrueExtent()
	if dt.IsContiguous() {
		return plainBuf(byteSlice(p, span)), nil
	}
	return typedBuf(byteSlice(p, span), dt, int(count)), nil
}

// abs returns |x|.
func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// dataSize returns the bytes of data in one item of datatype h (0 and
// false for an invalid one).
func dataSize(h int32) (int, bool) {
	if n, ok := typeSize(h); ok {
		return n, true
	}
	if o, ok := userTypes.get(h); ok {
		return o.dt.Size(), true
	}
	return 0, false
}

// contiguousSize returns the size of datatype h if its items are
// contiguous bytes (a predefined datatype, or a derived one without gaps).
func contiguousSize(h int32) (int, bool) {
	if n, ok := typeSize(h); ok {
		return n, true
	}
	o, ok := userTypes.get(h)
	if !ok {
		return 0, false
	}
	if dt := o.dt; dt.IsContiguous() && dt.LowerBound() == 0 {
		return dt.Size(), true
	}
	return 0, false
}

// shiftedBuf returns the buffer of count items of derived datatype dt at
// p whose data may start before p (a negative true lower bound) or, at
// MPI_BOTTOM, at an address (MPI_Get_address): the bytes from the first
// one the items reach, with dt moved to start there.
func shiftedBuf(p unsafe.Pointer, count int, dt *mpi.Datatype) (cbuf, error) {
	base := dt.TrueLowerBound()
	// With an extent of one byte, one item at -base items is dt moved
	// down by base bytes; then its own bounds again, moved as well.
	one, err := dt.Resized(dt.LowerBound(), 1)
	var moved *mpi.Datatype
	if err == nil {
		moved, err = one.Indexed([]int{1}, []int{-base})
	}
	if err == nil {
		moved, err = moved.Resized(dt.LowerBound()-base, dt.Extent())
	}
	if err != nil {
		return cbuf{}, errorf(errType, "a buffer %d bytes from its first datum: %v", base, err)
	}
	span := (count-1)*dt.Extent() + dt.TrueExtent()
	b := unsafe.Slice((*byte)(unsafe.Add(p, base)), span)
	if moved.IsContiguous() {
		return plainBuf(b), nil
	}
	return typedBuf(b, moved, count), nil
}
