package main

// The constructors of derived datatypes (MPI_Type_contiguous ...
// MPI_Type_create_subarray): datatypes of package mpi over the buffer's
// bytes.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// construct runs build on old's datatype and stores the new handle at out;
// the new datatype's envelope is env, of old. A constructor whose old
// datatype may have a negative extent gives its typemap as lay too (nil:
// such a datatype is refused).
func construct(fn string, old int32, out *int32, env envelope, build func(dt *mpi.Datatype) (*mpi.Datatype, error), lay func(ext int) layout) int32 {
	dt, align, err := typeBase(old)
	var nd *mpi.Datatype
	var neg *typeBounds
	if err == nil {
		if ob := negBoundsOf(old); ob == nil {
			nd, err = build(dt)
		} else if lay == nil {
			err = errorf(errType, "%s of a datatype of negative extent %d: not supported", fn, ob.extent)
		} else {
			nd, neg, err = negBuild(dt, *ob, lay(ob.extent))
		}
	}
	return finish(fn, old, out, env, nd, neg, align, err)
}

// finish stores nd, built from old, of alignment align and MPI bounds neg
// where its extent is negative, and its handle at out; the new
// datatype's envelope is env, of old.
func finish(fn string, old int32, out *int32, env envelope, nd *mpi.Datatype, neg *typeBounds, align int, err error) int32 {
	var sig *signature
	if err == nil {
		sig = repeatSig(sigOf(old), nd.Size())
	}
	err = addType(nd, align, elemOf(old), sig, err, out)
	if err == nil {
		setNeg(*out, neg)
		setItemType(*out, itemTypeOf(old))
		env.types = []typeRef{refOf(old)}
		record(*out, env)
	}
	return check(fn, nil, commWorld, err)
}

// countArgs returns MPI_SUCCESS, or the error code of fn for the first
// of a constructor's counts and block lengths xs that is negative.
func countArgs(fn string, xs ...int64) int32 {
	for _, x := range xs {
		if err := checkCount(x, 0); err != nil {
			return fail(fn, nil, commWorld, err)
		}
	}
	return errSuccess
}

// PMPI_Type_contiguous implements MPI_Type_contiguous.
//
//export PMPI_Type_contiguous
func PMPI_Type_contiguous(count, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_contiguous", &rc)
	return typeContiguous("MPI_Type_contiguous", false, int64(count), old, out)
}

// typeContiguous is MPI_Type_contiguous, and MPI_Type_contiguous_c if
// large.
func typeContiguous(fn string, large bool, count int64, old int32, out *int32) int32 {
	if rc := countArgs(fn, count); rc != errSuccess {
		return rc
	}
	env := newEnvelope(combinerContiguous, large)
	env.count(count)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		return dt.Contiguous(int(count))
	}, func(int) layout { return single(int(count)) })
}

// PMPI_Type_vector implements MPI_Type_vector.
//
//export PMPI_Type_vector
func PMPI_Type_vector(count, blocklen, stride, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_vector", &rc)
	return typeVector("MPI_Type_vector", false, int64(count), int64(blocklen), int64(stride), old, out)
}

// typeVector is MPI_Type_vector, and MPI_Type_vector_c if large.
func typeVector(fn string, large bool, count, blocklen, stride int64, old int32, out *int32) int32 {
	if rc := countArgs(fn, count, blocklen); rc != errSuccess {
		return rc
	}
	env := newEnvelope(combinerVector, large)
	env.count(count, blocklen, stride)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		return dt.Vector(int(count), int(blocklen), int(stride))
	}, func(ext int) layout { return layout{int(count), int(stride) * ext, []int{int(blocklen)}, []int{0}} })
}

// PMPI_Type_create_hvector implements MPI_Type_create_hvector.
//
//export PMPI_Type_create_hvector
func PMPI_Type_create_hvector(count, blocklen int32, stride int64, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_hvector", &rc)
	return typeHvector("MPI_Type_create_hvector", false, int64(count), int64(blocklen), stride, old, out)
}

// typeHvector is MPI_Type_create_hvector, and its _c form if large.
func typeHvector(fn string, large bool, count, blocklen, stride int64, old int32, out *int32) int32 {
	if rc := countArgs(fn, count, blocklen); rc != errSuccess {
		return rc
	}
	env := newEnvelope(combinerHvector, large)
	env.count(count, blocklen)
	env.addr(stride)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		return hvector(int(count), int(blocklen), int(stride), dt)
	}, func(int) layout { return layout{int(count), int(stride), []int{int(blocklen)}, []int{0}} })
}

// PMPI_Type_hvector implements MPI_Type_hvector.
//
//export PMPI_Type_hvector
func PMPI_Type_hvector(count, blocklen int32, stride int64, old int32, out *int32) int32 {
	return PMPI_Type_create_hvector(count, blocklen, stride, old, out)
}

// PMPI_Type_indexed implements MPI_Type_indexed.
//
//export PMPI_Type_indexed
func PMPI_Type_indexed(count int32, blocklens, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_indexed", &rc)
	return typeIndexed("MPI_Type_indexed", false, int64(count), cInts(blocklens), cInts(displs), old, out)
}

// typeIndexed is MPI_Type_indexed, and MPI_Type_indexed_c if large.
func typeIndexed(fn string, large bool, count int64, blocklens, displs cArray, old int32, out *int32) int32 {
	if rc := countArgs(fn, count); rc != errSuccess {
		return rc
	}
	n := int(count)
	env := newEnvelope(combinerIndexed, large)
	env.count(count)
	env.countArray(blocklens, n)
	env.countArray(displs, n)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		return dt.Indexed(blocklens.scaled(n, 1), displs.scaled(n, 1))
	}, func(ext int) layout {
		return blocks(blocklens.scaled(n, 1), displs.scaled(n, 1), ext)
	})
}

// PMPI_Type_create_indexed_block implements MPI_Type_create_indexed_block.
//
//export PMPI_Type_create_indexed_block
func PMPI_Type_create_indexed_block(count, blocklen int32, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_indexed_block", &rc)
	return typeIndexedBlock("MPI_Type_create_indexed_block", false, int64(count), int64(blocklen), cInts(displs), old, out)
}

// typeIndexedBlock is MPI_Type_create_indexed_block, and its _c form if
// large.
func typeIndexedBlock(fn string, large bool, count, blocklen int64, displs cArray, old int32, out *int32) int32 {
	if rc := countArgs(fn, count, blocklen); rc != errSuccess {
		return rc
	}
	n := int(count)
	env := newEnvelope(combinerIndexedBlock, large)
	env.count(count, blocklen)
	env.countArray(displs, n)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		return dt.IndexedBlock(int(blocklen), displs.scaled(n, 1))
	}, func(ext int) layout {
		return blocks(repeated(int(blocklen), n), displs.scaled(n, 1), ext)
	})
}

// aints returns the n MPI_Aint values at p.
func aints(p unsafe.Pointer, n int) []int { return cWide(p).scaled(n, 1) }

// PMPI_Type_create_hindexed implements MPI_Type_create_hindexed.
//
//export PMPI_Type_create_hindexed
func PMPI_Type_create_hindexed(count int32, blocklens, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_hindexed", &rc)
	return typeHindexed("MPI_Type_create_hindexed", false, int64(count), cInts(blocklens), cWide(displs), old, out)
}

// typeHindexed is MPI_Type_create_hindexed, and its _c form if large.
func typeHindexed(fn string, large bool, count int64, blocklens, displs cArray, old int32, out *int32) int32 {
	if rc := countArgs(fn, count); rc != errSuccess {
		return rc
	}
	n := int(count)
	env := newEnvelope(combinerHindexed, large)
	env.count(count)
	env.countArray(blocklens, n)
	env.addrArray(displs, n)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		return hindexed(blocklens.scaled(n, 1), displs.scaled(n, 1), dt)
	}, func(int) layout { return blocks(blocklens.scaled(n, 1), displs.scaled(n, 1), 1) })
}

// PMPI_Type_hindexed implements MPI_Type_hindexed.
//
//export PMPI_Type_hindexed
func PMPI_Type_hindexed(count int32, blocklens, displs unsafe.Pointer, old int32, out *int32) int32 {
	return PMPI_Type_create_hindexed(count, blocklens, displs, old, out)
}

// PMPI_Type_create_struct implements MPI_Type_create_struct.
//
//export PMPI_Type_create_struct
func PMPI_Type_create_struct(count int32, blocklens, displs, types unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Type_create_struct", &rc)
	return typeStruct("MPI_Type_create_struct", false, int64(count), cInts(blocklens), cWide(displs), types, out)
}

// typeStruct is MPI_Type_create_struct, and its _c form if large.
func typeStruct(fn string, large bool, count int64, blocklens, displs cArray, types unsafe.Pointer, out *int32) int32 {
	if rc := countArgs(fn, count); rc != errSuccess {
		return rc
	}
	n := int(count)
	s, err := readStruct(n, blocklens, displs, types)
	var dt *mpi.Datatype
	var neg *typeBounds
	if err == nil {
		dt, neg, err = s.build()
	}
	err = addType(dt, s.align, s.elem, joinSigs(s.sigs), err, out)
	if err == nil {
		setNeg(*out, neg)
		setItemType(*out, s.itemType)
		env := newEnvelope(combinerStruct, large)
		env.count(count)
		env.countArray(blocklens, n)
		env.addrArray(displs, n)
		for _, h := range intArray(types, n) {
			env.types = append(env.types, refOf(h))
		}
		record(*out, env)
	}
	return check(fn, nil, commWorld, err)
}

// structArgs are the blocks of MPI_Type_create_struct, with the bounds
// that MPI_LB and MPI_UB markers among them set apart.
type structArgs struct {
	lens, displs []int
	parts        []*mpi.Datatype
	bounds       []typeBounds // MPI's bounds of parts[i]
	negative     bool         // some part's extent is negative
	sigs         []sigPart
	elem         elemKind // of all the values, or elemNone
	itemType     int32    // the predefined type whose items all the values are (itemTypeOf), or 0
	align        int
	lb, ub       int
	hasLB, hasUB bool
}

// readStruct reads the n blocks of MPI_Type_create_struct.
func readStruct(n int, blocklens, displs cArray, types unsafe.Pointer) (structArgs, error) {
	lens, ds := blocklens.scaled(n, 1), displs.scaled(n, 1)
	s := structArgs{elem: elemNone, align: 1}
	first := true
	for i, h := range intArray(types, n) {
		switch {
		case h == typeLB:
			s.lb, s.hasLB = min(ds[i], s.lbOr(ds[i])), true
			continue
		case h == typeUB:
			s.ub, s.hasUB = max(ds[i], s.ubOr(ds[i])), true
			continue
		}
		dt, a, err := typeBase(h)
		var b typeBounds
		if err == nil {
			b, err = boundsOf(h)
		}
		if err != nil {
			return s, err
		}
		s.bounds, s.negative = append(s.bounds, b), s.negative || b.extent < 0
		s.lens, s.displs, s.parts = append(s.lens, lens[i]), append(s.displs, ds[i]), append(s.parts, dt)
		s.sigs = append(s.sigs, sigPart{sigOf(h), lens[i]})
		s.align = max(s.align, a)
		if lens[i] == 0 {
			continue // an empty block has no values
		}
		if k, p := elemOf(h), itemTypeOf(h); first || k == s.elem && p == s.itemType {
			s.elem, s.itemType, first = k, p, false
		} else {
			s.elem, s.itemType = elemNone, 0
		}
	}
	return s, nil
}

// lbOr returns the lower bound a marker set, or d if none did yet.
func (s *structArgs) lbOr(d int) int {
	if s.hasLB {
		return s.lb
	}
	return d
}

// ubOr returns the upper bound a marker set, or d if none did yet.
func (s *structArgs) ubOr(d int) int {
	if s.hasUB {
		return s.ub
	}
	return d
}

// build returns the struct: its blocks, padded to their alignment as C
// pads a struct unless markers set its bounds, and its bounds where its
// extent is negative.
func (s *structArgs) build() (*mpi.Datatype, *typeBounds, error) {
	if len(s.parts) == 0 { // markers alone: bounds without data
		dt, err := mpi.Contiguous(0)
		if err != nil {
			return nil, nil, err
		}
		lb := s.lbOr(0)
		return withBounds(dt, typeBounds{lb, s.ubOr(0) - lb})
	}
	if s.negative {
		return s.buildNegative()
	}
	if !s.hasLB && !s.hasUB {
		dt, err := structOf(s.lens, s.displs, s.parts, s.align)
		return dt, nil, err
	}
	dt, err := structOf(s.lens, s.displs, s.parts, 1)
	if err != nil {
		return nil, nil, err
	}
	lb, ub := s.lbOr(dt.LowerBound()), s.ubOr(dt.LowerBound()+dt.Extent())
	return withBounds(dt, typeBounds{lb, ub - lb})
}

// buildNegative is build where a part has a negative extent: each block
// its items laid out one by one, the bounds gathered by MPI's rule, and
// not padded.
func (s *structArgs) buildNegative() (*mpi.Datatype, *typeBounds, error) {
	var acc boundsAcc
	runs := make([]*mpi.Datatype, len(s.parts))
	for i, p := range s.parts {
		var err error
		if runs[i], err = itemsOf(p, s.lens[i], s.bounds[i].extent); err != nil {
			return nil, nil, err
		}
		acc.add(s.displs[i], s.lens[i], s.bounds[i])
	}
	dt, err := joinParts(runs, s.displs)
	if err != nil {
		return nil, nil, err
	}
	b := acc.bounds()
	lb, ub := s.lbOr(b.lb), s.ubOr(b.lb+b.extent)
	return withBounds(dt, typeBounds{lb, ub - lb})
}

// PMPI_Type_struct implements MPI_Type_struct.
//
//export PMPI_Type_struct
func PMPI_Type_struct(count int32, blocklens, displs, types unsafe.Pointer, out *int32) int32 {
	return PMPI_Type_create_struct(count, blocklens, displs, types, out)
}

// PMPI_Type_create_resized implements MPI_Type_create_resized: any lower
// bound and extent, negative ones too.
//
//export PMPI_Type_create_resized
func PMPI_Type_create_resized(old int32, lb, extent int64, out *int32) (rc int32) {
	defer guard("MPI_Type_create_resized", &rc)
	return typeResized("MPI_Type_create_resized", false, old, lb, extent, out)
}

// typeResized is MPI_Type_create_resized, and its _c form if large.
func typeResized(fn string, large bool, old int32, lb, extent int64, out *int32) int32 {
	env := newEnvelope(combinerResized, large)
	env.addr(lb, extent)
	dt, align, err := typeBase(old)
	var nd *mpi.Datatype
	var neg *typeBounds
	if err == nil {
		nd, neg, err = withBounds(dt, typeBounds{int(lb), int(extent)})
	}
	return finish(fn, old, out, env, nd, neg, align, err)
}

// PMPI_Type_dup implements MPI_Type_dup.
//
//export PMPI_Type_dup
func PMPI_Type_dup(old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_dup", &rc)
	env := envelope{combiner: combinerDup}
	dt, align, err := typeBase(old)
	if err == nil {
		dt = dt.Dup()
	}
	rc = finish("MPI_Type_dup", old, out, env, dt, negBoundsOf(old), align, err)
	if rc == errSuccess {
		if err := copyObjAttrs(&typeAttrs, old, *out); err != nil {
			return fail("MPI_Type_dup", nil, commWorld, err)
		}
	}
	return rc
}

// Array orders of MPI_Type_create_subarray and MPI_Type_create_darray.
const (
	orderC       = 56
	orderFortran = 57
)

// PMPI_Type_create_subarray implements MPI_Type_create_subarray.
//
//export PMPI_Type_create_subarray
func PMPI_Type_create_subarray(ndims int32, sizes, subsizes, starts unsafe.Pointer, order, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_subarray", &rc)
	return typeSubarray("MPI_Type_create_subarray", false, ndims, cInts(sizes), cInts(subsizes), cInts(starts), order, old, out)
}

// typeSubarray is MPI_Type_create_subarray, and its _c form (whose
// sizes and starts are MPI_Counts) if large.
func typeSubarray(fn string, large bool, ndims int32, sizes, subsizes, starts cArray, order, old int32, out *int32) int32 {
	if rc := countArgs(fn, int64(ndims)); rc != errSuccess {
		return rc
	}
	n := int(ndims)
	env := newEnvelope(combinerSubarray, large)
	env.ints = append(env.ints, ndims)
	env.countArray(sizes, n)
	env.countArray(subsizes, n)
	env.countArray(starts, n)
	env.ints = append(env.ints, order)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		o, err := arrayOrder(order)
		if err != nil {
			return nil, err
		}
		sz, sub, st := sizes.scaled(n, 1), subsizes.scaled(n, 1), starts.scaled(n, 1)
		// A subarray of items of old: the innermost dimension in bytes,
		// when old is contiguous; else over items, laid out as old's.
		if ext := dt.Extent(); n > 0 && dt.IsContiguous() && dt.LowerBound() == 0 {
			in := n - 1
			if o == mpi.OrderFortran {
				in = 0
			}
			sz[in], sub[in], st[in] = sz[in]*ext, sub[in]*ext, st[in]*ext
			return mpi.Subarray(sz, sub, st, o)
		}
		items, err := mpi.Subarray(sz, sub, st, o)
		if err != nil {
			return nil, err
		}
		return fromItems(items, dt)
	}, nil)
}
