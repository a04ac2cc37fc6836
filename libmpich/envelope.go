package main

// The decoding of derived datatypes (MPI_Type_get_envelope,
// MPI_Type_get_contents): every constructor records how it was called,
// and the two calls give it back, as tools that walk a datatype (MPI-IO
// layers, debuggers, language bindings) expect.

import "C"

import "unsafe"

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
// integers, addresses, large counts and datatypes it was called with, in
// the order MPI_Type_get_contents returns them. A large-count (_c)
// constructor records its counts, strides, displacements and bounds as
// large counts (MPI_Type_get_contents_c's), as MPICH 4.0 does; its other
// integers (ndims, order, distributions) stay integers.
type envelope struct {
	combiner int32
	large    bool // made by a _c constructor
	ints     []int32
	addrs    []int64
	counts   []int64
	types    []typeRef
}

// newEnvelope starts the envelope of a constructor of combiner, a _c one
// if large.
func newEnvelope(combiner int32, large bool) envelope {
	return envelope{combiner: combiner, large: large}
}

// count records integer arguments that a _c constructor takes as
// MPI_Counts (counts, block lengths, strides in items).
func (e *envelope) count(xs ...int64) {
	for _, x := range xs {
		if e.large {
			e.counts = append(e.counts, x)
		} else {
			e.ints = append(e.ints, int32(x))
		}
	}
}

// addr records address arguments (byte displacements and strides,
// bounds): MPI_Counts of a _c constructor.
func (e *envelope) addr(xs ...int64) {
	if e.large {
		e.counts = append(e.counts, xs...)
	} else {
		e.addrs = append(e.addrs, xs...)
	}
}

// countArray records the first n elements of a, an array of counts.
func (e *envelope) countArray(a cArray, n int) {
	for i := 0; i < n && a.p != nil; i++ {
		e.count(int64(a.at(i)))
	}
}

// addrArray records the first n elements of a, an array of
// displacements in bytes.
func (e *envelope) addrArray(a cArray, n int) {
	for i := 0; i < n && a.p != nil; i++ {
		e.addr(int64(a.at(i)))
	}
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

// PMPI_Type_get_envelope implements MPI_Type_get_envelope: a datatype of
// a _c constructor needs MPI_Type_get_envelope_c (MPI_ERR_OTHER, as
// MPICH).
//
//export PMPI_Type_get_envelope
func PMPI_Type_get_envelope(dt int32, nints, naddrs, ntypes, combiner *int32) (rc int32) {
	defer guard("MPI_Type_get_envelope", &rc)
	const fn = "MPI_Type_get_envelope"
	var ni, na, nc, nt int64
	if rc = typeEnvelope(fn, dt, &ni, &na, &nc, &nt, combiner); rc != errSuccess {
		return rc
	}
	if nc > 0 {
		return fail(fn, nil, commWorld, errorf(errOther, "datatype %#x was made by a large-count constructor: its envelope takes MPI_Type_get_envelope_c", uint32(dt)))
	}
	*nints, *naddrs, *ntypes = int32(ni), int32(na), int32(nt)
	return errSuccess
}

// typeEnvelope stores the numbers of integers, addresses, large counts
// and datatypes of datatype dt's envelope, and its combiner:
// MPI_Type_get_envelope and MPI_Type_get_envelope_c.
func typeEnvelope(fn string, dt int32, nints, naddrs, ncounts, ntypes *int64, combiner *int32) int32 {
	if _, ok := predefinedTypes[dt]; ok {
		*nints, *naddrs, *ncounts, *ntypes, *combiner = 0, 0, 0, 0, combinerNamed
		return errSuccess
	}
	env, err := envelopeOf(dt)
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	*nints, *naddrs, *ncounts, *ntypes = int64(len(env.ints)), int64(len(env.addrs)), int64(len(env.counts)), int64(len(env.types))
	*combiner = env.combiner
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

// PMPI_Type_get_contents implements MPI_Type_get_contents: a datatype of
// a _c constructor needs MPI_Type_get_contents_c (MPI_ERR_OTHER, as
// MPICH).
//
//export PMPI_Type_get_contents
func PMPI_Type_get_contents(dt, maxInts, maxAddrs, maxTypes int32, ints, addrs, types unsafe.Pointer) (rc int32) {
	defer guard("MPI_Type_get_contents", &rc)
	room := contentsRoom{int64(maxInts), int64(maxAddrs), -1, int64(maxTypes)}
	return typeContents("MPI_Type_get_contents", dt, room, ints, addrs, nil, types)
}

// contentsRoom is the room the program gave MPI_Type_get_contents for
// integers, addresses, large counts (negative: MPI_Type_get_contents,
// which has none) and datatypes.
type contentsRoom struct{ ints, addrs, counts, types int64 }

// typeContents copies the arguments of datatype dt's constructor into
// the program's arrays: MPI_Type_get_contents and its _c form.
func typeContents(fn string, dt int32, room contentsRoom, ints, addrs, counts, types unsafe.Pointer) int32 {
	if _, ok := predefinedTypes[dt]; ok {
		return fail(fn, nil, commWorld, errorf(errType, "datatype %#x is predefined: it has no contents (MPI_COMBINER_NAMED)", uint32(dt)))
	}
	env, err := envelopeOf(dt)
	switch {
	case err != nil:
	case room.counts < 0 && len(env.counts) > 0:
		err = errorf(errOther, "datatype %#x was made by a large-count constructor: its contents take MPI_Type_get_contents_c", uint32(dt))
	case room.ints < int64(len(env.ints)) || room.addrs < int64(len(env.addrs)) || max(room.counts, 0) < int64(len(env.counts)) || room.types < int64(len(env.types)):
		err = errorf(errArg, "room for %d integers, %d addresses, %d large counts and %d datatypes; the contents are %d, %d, %d and %d",
			room.ints, room.addrs, max(room.counts, 0), room.types, len(env.ints), len(env.addrs), len(env.counts), len(env.types))
	}
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	copy(intArray(ints, len(env.ints)), env.ints)
	if len(env.addrs) > 0 {
		copy(unsafe.Slice((*int64)(addrs), len(env.addrs)), env.addrs)
	}
	if len(env.counts) > 0 {
		copy(unsafe.Slice((*int64)(counts), len(env.counts)), env.counts)
	}
	if err := storeTypes(types, env.types); err != nil {
		return fail(fn, nil, commWorld, err)
	}
	return errSuccess
}

// storeTypes stores handles of the datatypes refs at the C array p: the
// derived ones new handles, freed again if one cannot be made.
func storeTypes(p unsafe.Pointer, refs []typeRef) error {
	out := intArray(p, len(refs))
	for i, r := range refs {
		var err error
		if out[i], err = r.handle(); err != nil {
			for _, h := range out[:i] {
				if _, ok := predefinedTypes[h]; !ok {
					userTypes.remove(h)
				}
			}
			return err
		}
	}
	return nil
}
