package main

// MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size: the
// "external32" data representation of MPI-3.1 §13.5.2, big-endian, each
// predefined datatype of the standard's size (MPI_LONG 4 bytes,
// MPI_WCHAR 2, long double IEEE quadruple precision), a complex as its
// two parts, no padding. Items are packed natively first (MPI_Pack's
// bytes, in type-signature order), then each basic element converted as
// the type signature lists them.

import "C"

import (
	"encoding/binary"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// errUnsupportedDatarep is MPI_ERR_UNSUPPORTED_DATAREP.
const errUnsupportedDatarep = 43

// init names the error class of an unknown data representation.
func init() { classNames[errUnsupportedDatarep] = "MPI_ERR_UNSUPPORTED_DATAREP" }

// convKind is how a basic element's parts convert to external32.
type convKind uint8

const (
	convSwap     convKind = iota // the same bytes, in reverse order
	convSigned                   // a narrower signed integer (MPI_LONG: 8 bytes to 4)
	convUnsigned                 // a narrower unsigned integer (MPI_UNSIGNED_LONG, MPI_WCHAR)
	convX87                      // x87 80-bit extended precision to IEEE binary128
)

// ext32 is the external32 form of a basic element: size bytes, as parts
// (2 for a complex, else 1) converted by conv.
type ext32 struct {
	size, parts int
	conv        convKind
}

// The external32 forms.
var (
	x1, x2, x4, x8, x16 = &ext32{1, 1, convSwap}, &ext32{2, 1, convSwap}, &ext32{4, 1, convSwap}, &ext32{8, 1, convSwap}, &ext32{16, 1, convSwap}
	xLong, xULong       = &ext32{4, 1, convSigned}, &ext32{4, 1, convUnsigned}
	xWchar, xLongDouble = &ext32{2, 1, convUnsigned}, &ext32{16, 1, convX87}
	xC8, xC16, xC32     = &ext32{8, 2, convSwap}, &ext32{16, 2, convSwap}, &ext32{32, 2, convSwap}
	xCLongDouble        = &ext32{32, 2, convX87}
)

// ext32Of is the external32 form of the predefined datatypes that have
// one (MPI_FLOAT16 has none in MPI-3.1).
var ext32Of = map[int32]*ext32{
	typeChar: x1, typeSignedChar: x1, typeUnsignedChar: x1, typeByte: x1, typePacked: x1,
	typeInt8: x1, typeUint8: x1, typeCBool: x1, typeCxxBool: x1, typeCharacter: x1, typeInteger1: x1,
	typeShort: x2, typeUnsignedShort: x2, typeInt16: x2, typeUint16: x2, typeInteger2: x2,
	typeInt: x4, typeUnsigned: x4, typeFloat: x4, typeInt32: x4, typeUint32: x4,
	typeLogical: x4, typeInteger: x4, typeReal: x4, typeInteger4: x4, typeReal4: x4,
	typeLongLong: x8, typeUnsignedLongLong: x8, typeDouble: x8, typeInt64: x8, typeUint64: x8,
	typeAint: x8, typeCount: x8, typeOffset: x8, typeDoublePrecision: x8, typeInteger8: x8, typeReal8: x8,
	typeReal16: x16, // gfortran's real(16) is IEEE quadruple already
	typeLong:   xLong, typeUnsignedLong: xULong, typeWchar: xWchar, typeLongDouble: xLongDouble,
	typeComplex: xC8, typeCFloatComplex: xC8, typeComplex8: xC8, typeCxxFloatComplex: xC8,
	typeDoubleComplex: xC16, typeCDoubleComplex: xC16, typeComplex16: xC16, typeCxxDoubleComplex: xC16,
	typeComplex32: xC32, typeCLongDoubleCmplx: xCLongDouble, typeCxxLongDoubleCmpl: xCLongDouble,
}

// pairValue is the datatype of the value of each value/index pair type.
var pairValue = map[int32]int32{
	type2Int: typeInt, type2Integer: typeInteger, type2Real: typeReal, type2DoublePrecision: typeDoublePrecision,
	typeFloatInt: typeFloat, typeDoubleInt: typeDouble, typeLongInt: typeLong, typeShortInt: typeShort,
	typeLongDoubleInt: typeLongDouble,
}

// externalSig returns the type signature of datatype h, checking that the
// data representation is "external32".
func externalSig(datarep *C.char, h int32) (*signature, error) {
	if rep := C.GoString(datarep); rep != "external32" {
		return nil, errorf(errUnsupportedDatarep, "data representation %q: only \"external32\" is supported", rep)
	}
	if _, ok := dataSize(h); !ok {
		return nil, errorf(errType, "invalid datatype %#x", uint32(h))
	}
	s := sigOf(h)
	if s == nil {
		return nil, errorf(errType, "datatype %#x: its type signature is unknown", uint32(h))
	}
	return s, nil
}

// externalSize returns the bytes of one item of s in external32, or an
// error naming an element that has no external32 form.
func (s *signature) externalSize() (int, error) {
	if s.parts == nil && s.elems == 1 {
		if s.x == nil {
			return 0, errorf(errType, "a basic datatype of %d bytes has no external32 representation", s.size)
		}
		return s.x.size, nil
	}
	n := 0
	for _, p := range s.parts {
		k, err := p.of.externalSize()
		if err != nil {
			return 0, err
		}
		n += p.n * k
	}
	return n, nil
}

// external converts n items of s from native bytes to external32 (pack)
// or back, from src into dst, whose sizes the caller has checked; it
// returns the bytes of src and dst used.
func (s *signature) external(n int, src, dst []byte, pack bool) (int, int) {
	if s.parts == nil && s.elems == 1 {
		ns, xs := s.size, s.x.size
		if !pack {
			ns, xs = xs, ns
		}
		for i := range n {
			convert(s.x, s.size, src[i*ns:(i+1)*ns], dst[i*xs:(i+1)*xs], pack)
		}
		return n * ns, n * xs
	}
	r, w := 0, 0
	for range n {
		for _, p := range s.parts {
			dr, dw := p.of.external(p.n, src[r:], dst[w:], pack)
			r, w = r+dr, w+dw
		}
	}
	return r, w
}

// convert converts one basic element of native size bytes from src to
// dst: native to external32 where pack is set, else back.
func convert(x *ext32, size int, src, dst []byte, pack bool) {
	np, xp := size/x.parts, x.size/x.parts
	for k := range x.parts {
		nat, ext := src[k*np:(k+1)*np], dst[k*xp:(k+1)*xp]
		if !pack {
			nat, ext = dst[k*np:(k+1)*np], src[k*xp:(k+1)*xp]
		}
		switch {
		case x.conv == convX87 && pack:
			x87ToQuad(nat, ext)
		case x.conv == convX87:
			quadToX87(ext, nat)
		case pack:
			for i := range ext { // the low bytes, reversed
				ext[i] = nat[len(ext)-1-i]
			}
		default:
			fromBigEndian(ext, nat, x.conv == convSigned)
		}
	}
}

// fromBigEndian writes the big-endian integer ext into the little-endian
// nat, as wide or wider, extended by its sign where signed is set.
func fromBigEndian(ext, nat []byte, signed bool) {
	fill := byte(0)
	if signed && len(ext) > 0 && ext[0]&0x80 != 0 {
		fill = 0xff
	}
	for i := range nat {
		if i < len(ext) {
			nat[i] = ext[len(ext)-1-i]
		} else {
			nat[i] = fill
		}
	}
}

// x87ToQuad writes the x87 extended-precision number at nat (64-bit
// significand with its integer bit, then sign and 15-bit exponent) as a
// big-endian IEEE binary128 at ext: the same exponent bias, the
// fraction's 63 bits at the top of 112.
func x87ToQuad(nat, ext []byte) {
	mant, se := binary.LittleEndian.Uint64(nat), uint64(binary.LittleEndian.Uint16(nat[8:]))
	exp := se & 0x7fff
	if exp == 0 && mant>>63 != 0 { // a pseudo-denormal: the smallest normal exponent
		exp = 1
	}
	frac := mant &^ (1 << 63)
	binary.BigEndian.PutUint64(ext, se>>15<<63|exp<<48|frac>>15)
	binary.BigEndian.PutUint64(ext[8:], frac<<49)
}

// quadToX87 is x87ToQuad's inverse: the binary128 at ext, its fraction
// cut to 63 bits, as an x87 extended-precision number at nat (16 bytes,
// the last 6 zero).
func quadToX87(ext, nat []byte) {
	hi, lo := binary.BigEndian.Uint64(ext), binary.BigEndian.Uint64(ext[8:])
	se, exp := hi>>48, hi>>48&0x7fff
	mant := (hi&(1<<48-1))<<15 | lo>>49
	if exp != 0 {
		mant |= 1 << 63 // the integer bit of a normal number, infinity or NaN
	}
	binary.LittleEndian.PutUint64(nat, mant)
	binary.LittleEndian.PutUint16(nat[8:], uint16(se))
	clear(nat[10:])
}

// externalItems returns the signature of datatype h and the bytes that
// count items of it take in external32.
func externalItems(datarep *C.char, count int64, h int32) (*signature, int, error) {
	if err := checkCount(count, 0); err != nil {
		return nil, 0, err
	}
	s, err := externalSig(datarep, h)
	var n int
	if err == nil {
		n, err = s.externalSize()
	}
	if err == nil {
		err = checkCount(count, n)
	}
	return s, int(count) * n, err
}

// PMPI_Pack_external_size implements MPI_Pack_external_size.
//
//export PMPI_Pack_external_size
func PMPI_Pack_external_size(datarep *C.char, count, dt int32, size *int64) (rc int32) {
	defer guard("MPI_Pack_external_size", &rc)
	return packExternalSize("MPI_Pack_external_size", datarep, int64(count), dt, size)
}

// packExternalSize is MPI_Pack_external_size and its _c form.
func packExternalSize(fn string, datarep *C.char, count int64, dt int32, size *int64) int32 {
	_, n, err := externalItems(datarep, count, dt)
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	*size = int64(n)
	return errSuccess
}

// PMPI_Pack_external implements MPI_Pack_external.
//
//export PMPI_Pack_external
func PMPI_Pack_external(datarep *C.char, in unsafe.Pointer, count, dt int32, out unsafe.Pointer, outsize int64, pos *int64) (rc int32) {
	defer guard("MPI_Pack_external", &rc)
	return packExternal("MPI_Pack_external", datarep, in, int64(count), dt, out, outsize, pos)
}

// packExternal is MPI_Pack_external and MPI_Pack_external_c.
func packExternal(fn string, datarep *C.char, in unsafe.Pointer, count int64, dt int32, out unsafe.Pointer, outsize int64, pos *int64) int32 {
	s, n, err := externalItems(datarep, count, dt)
	if err == nil && (*pos < 0 || *pos+int64(n) > outsize) {
		err = errorf(errTruncate, "%d bytes at position %d do not fit %d", n, *pos, outsize)
	}
	var native []byte
	if err == nil {
		native, err = sendBytes(in, count, dt)
	}
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	s.external(int(count), native, byteSlice(out, int(outsize))[*pos:], true)
	*pos += int64(n)
	return errSuccess
}

// PMPI_Unpack_external implements MPI_Unpack_external.
//
//export PMPI_Unpack_external
func PMPI_Unpack_external(datarep *C.char, in unsafe.Pointer, insize int64, pos *int64, out unsafe.Pointer, count, dt int32) (rc int32) {
	defer guard("MPI_Unpack_external", &rc)
	return unpackExternal("MPI_Unpack_external", datarep, in, insize, pos, out, int64(count), dt)
}

// unpackExternal is MPI_Unpack_external and MPI_Unpack_external_c.
func unpackExternal(fn string, datarep *C.char, in unsafe.Pointer, insize int64, pos *int64, out unsafe.Pointer, count int64, dt int32) int32 {
	s, n, err := externalItems(datarep, count, dt)
	if err == nil && (*pos < 0 || *pos+int64(n) > insize) {
		err = errorf(errTruncate, "%d bytes at position %d are past the %d packed", n, *pos, insize)
	}
	var cb cbuf
	if err == nil {
		cb, err = cbufOf(out, count, dt)
	}
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	native := make([]byte, int(count)*s.size)
	s.external(int(count), byteSlice(in, int(insize))[*pos:], native, false)
	if cb.dt == nil {
		copy(cb.bytes(), native)
	} else if _, err := mpi.Unpack(native, cb.bytes(), cb.count, cb.dt); err != nil {
		return fail(fn, nil, commWorld, err)
	}
	*pos += int64(n)
	return errSuccess
}
