package main

// Type signatures: the sequence of basic elements (MPI_INT, MPI_DOUBLE
// ...) of one item of a datatype, which MPI_Get_elements counts, partial
// items too. A derived datatype's is its parts' signatures repeated in
// the order its constructor lists them, kept as that tree rather than
// as the sequence, which a datatype of many items would make long.

// signature is the type signature of one item of a datatype: a basic
// element (no parts) or its parts in order.
type signature struct {
	size  int // bytes of the item's data
	elems int // basic elements in the item
	parts []sigPart
	x     *ext32 // a basic element's external32 form (nil: none)
}

// sigPart is n items of a datatype of signature of.
type sigPart struct {
	of *signature
	n  int
}

// basicSig returns the signature of one basic element of size bytes.
func basicSig(size int) *signature { return &signature{size: size, elems: 1} }

// sigOf returns the signature of datatype h (nil if unknown).
func sigOf(h int32) *signature {
	if o, ok := userTypes.get(h); ok {
		return o.sig
	}
	ti, ok := predefinedTypes[h]
	switch {
	case !ok:
		if n, ok := typeSize(h); ok {
			return basicSig(n)
		}
		return nil
	case ti.pair:
		return joinSigs([]sigPart{{elemSig(pairValue[h], ti.size/2), 2}})
	case ti.loc:
		return joinSigs([]sigPart{{elemSig(pairValue[h], ti.locValueSize()), 1}, {elemSig(typeInt, 4), 1}})
	}
	return elemSig(h, ti.size)
}

// elemSig returns the signature of one basic element of predefined
// datatype h, of size bytes.
func elemSig(h int32, size int) *signature {
	return &signature{size: size, elems: 1, x: ext32Of[h]}
}

// joinSigs returns the signature of parts in order; nil if one is
// unknown.
func joinSigs(parts []sigPart) *signature {
	s := &signature{}
	for _, p := range parts {
		if p.n == 0 {
			continue
		}
		if p.of == nil {
			return nil
		}
		s.size += p.n * p.of.size
		s.elems += p.n * p.of.elems
		s.parts = append(s.parts, p)
	}
	return s
}

// repeatSig returns the signature of an item of size bytes made of
// copies of old's items (a datatype built from one other).
func repeatSig(old *signature, size int) *signature {
	if old == nil || old.size == 0 {
		return joinSigs(nil)
	}
	return joinSigs([]sigPart{{old, size / old.size}})
}

// elements returns how many whole basic elements the first n bytes of a
// sequence of items of s hold, and false if n ends within an element.
func (s *signature) elements(n int) (int, bool) {
	if s.size == 0 {
		return 0, n == 0
	}
	e, r := n/s.size*s.elems, n%s.size
	if r == 0 {
		return e, true
	}
	for _, p := range s.parts {
		if b := p.n * p.of.size; r >= b {
			e, r = e+p.n*p.of.elems, r-b
			continue
		}
		k, ok := p.of.elements(r)
		return e + k, ok
	}
	return e, false // a basic element cut
}
