package main

// The decoding of derived datatypes (MPI_Type_get_envelope,
// MPI_Type_get_contents): every constructor records how it was called,
// and the two calls give it back, as tools that walk a datatype (MPI-IO
// layers, debuggers, language bindings) expect.

import "C"

import (
	"slices"
	"unsafe"
)

// The combiners of MPICH's mpi.h: which constructor made a datatype.
const (
	combinerNamed         = 1 // predefined
	combinerDup           = 2
	combinerContiguous    = 3
	combinerVector        = 4
	combinerHvector       = 6
	combinerIndexed       = 7
	combinerHindexed      = 9
	combinerIndexedBlock  = 10
	combinerStruct        = 12
	combinerSubarray      = 13
	combinerResized       = 18
	combinerHindexedBlock = 19
)

// envelope is how a derived datatype was made: its constructor and the
// integers, addresses and datatypes it was called with, in the order
// MPI_Type_get_contents returns them.
type envelope struct {
	combiner int32
	ints     []int32
	addrs    []int64
	types    []typeRef
}

// typeRef is a datatype an envelope names: a predefined one by its
// handle, a derived one by its object, which lives on after the program
// frees its handle (MPI_Type_get_contents must still return it).
type typeRef struct {
	h   int32
	obj *typeObj // nil: the predefined h
}

// refOf returns the reference to datatype h.
func refOf(h int32) typeRef {
	if o, ok := userTypes.get(h); ok {
		return typeRef{obj: o}
	}
	return typeRef{h: h}
}

// handle returns a handle of the datatype r names: the predefined handle,
// or a new handle of the derived datatype, which the caller frees.
func (r typeRef) handle() (int32, error) {
	if r.obj == nil {
		return r.h, nil
	}
	o := *r.obj
	h, ok := userTypes.add(&o)
	if !ok {
		return 0, errorf(errNoMem, "too many datatypes")
	}
	return h, nil
}

// record keeps env as the envelope of datatype h, just made.
func record(h int32, env envelope) {
	if o, ok := userTypes.get(h); ok {
		o.env = &env
	}
}

// addrs64 returns a copy of the n MPI_Aint values at p.
func addrs64(p unsafe.Pointer, n int) []int64 {
	if n <= 0 || p == nil {
		return nil
	}
	return slices.Clone(unsafe.Slice((*int64)(p), n))
}

// PMPI_Type_get_envelope implements MPI_Type_get_envelope.
//
//export PMPI_Type_get_envelope
func PMPI_Type_get_envelope(dt int32, nints, naddrs, ntypes, combiner *int32) (rc int32) {
	defer guard("MPI_Type_get_envelope", &rc)
	if _, ok := predefinedTypes[dt]; ok {
		*nints, *naddrs, *ntypes, *combiner = 0, 0, 0, combinerNamed
		return errSuccess
	}
	env, err := envelopeOf(dt)
	if err != nil {
		return fail("MPI_Type_get_envelope", nil, commWorld, err)
	}
	*nints, *naddrs, *ntypes, *combiner = int32(len(env.ints)), int32(len(env.addrs)), int32(len(env.types)), env.combiner
	return errSuccess
}

// envelopeOf returns the envelope of the derived datatype h.
func envelopeOf(h int32) (*envelope, error) {
	o, ok := userTypes.get(h)
	switch {
	case !ok:
		return nil, errorf(errType, "invalid datatype %#x", uint32(h))
	case o.env == nil:
		return nil, errorf(errType, "datatype %#x: made by no constructor that records its arguments", uint32(h))
	}
	return o.env, nil
}

// PMPI_Type_get_contents implements MPI_Type_get_contents.
//
//export PMPI_Type_get_contents
func PMPI_Type_get_contents(dt, maxInts, maxAddrs, maxTypes int32, ints, addrs, types unsafe.Pointer) (rc int32) {
	defer guard("MPI_Type_get_contents", &rc)
	const fn = "MPI_Type_get_contents"
	if _, ok := predefinedTypes[dt]; ok {
		return fail(fn, nil, commWorld, errorf(errType, "datatype %#x is predefined: it has no contents (MPI_COMBINER_NAMED)", uint32(dt)))
	}
	env, err := envelopeOf(dt)
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	if int(maxInts) < len(env.ints) || int(maxAddrs) < len(env.addrs) || int(maxTypes) < len(env.types) {
		return fail(fn, nil, commWorld, errorf(errArg, "room for %d integers, %d addresses and %d datatypes; the contents are %d, %d and %d",
			maxInts, maxAddrs, maxTypes, len(env.ints), len(env.addrs), len(env.types)))
	}
	copy(intArray(ints, len(env.ints)), env.ints)
	if len(env.addrs) > 0 {
		copy(unsafe.Slice((*int64)(addrs), len(env.addrs)), env.addrs)
	}
	out := intArray(types, len(env.types))
	for i, r := range env.types {
		if out[i], err = r.handle(); err != nil {
			for _, h := range out[:i] {
				if _, ok := predefinedTypes[h]; !ok {
					userTypes.remove(h)
				}
			}
			return fail(fn, nil, commWorld, err)
		}
	}
	return errSuccess
}
