package main

import "sync"

// typeNames are the names of the predefined datatypes
// (MPI_Type_get_name).
var typeNames = map[int32]string{
	typeChar: "MPI_CHAR", typeSignedChar: "MPI_SIGNED_CHAR", typeUnsignedChar: "MPI_UNSIGNED_CHAR",
	typeByte: "MPI_BYTE", typeWchar: "MPI_WCHAR", typeShort: "MPI_SHORT",
	typeUnsignedShort: "MPI_UNSIGNED_SHORT", typeInt: "MPI_INT", typeUnsigned: "MPI_UNSIGNED",
	typeLong: "MPI_LONG", typeUnsignedLong: "MPI_UNSIGNED_LONG", typeFloat: "MPI_FLOAT",
	typeDouble: "MPI_DOUBLE", typeLongDouble: "MPI_LONG_DOUBLE", typeLongLong: "MPI_LONG_LONG_INT",
	typeUnsignedLongLong: "MPI_UNSIGNED_LONG_LONG", typePacked: "MPI_PACKED",
	typeFloatInt: "MPI_FLOAT_INT", typeDoubleInt: "MPI_DOUBLE_INT", typeLongInt: "MPI_LONG_INT",
	typeShortInt: "MPI_SHORT_INT", type2Int: "MPI_2INT", typeLongDoubleInt: "MPI_LONG_DOUBLE_INT",
	typeComplex: "MPI_COMPLEX", typeDoubleComplex: "MPI_DOUBLE_COMPLEX", typeLogical: "MPI_LOGICAL",
	typeReal: "MPI_REAL", typeDoublePrecision: "MPI_DOUBLE_PRECISION", typeInteger: "MPI_INTEGER",
	type2Integer: "MPI_2INTEGER", type2Real: "MPI_2REAL", type2DoublePrecision: "MPI_2DOUBLE_PRECISION",
	typeCharacter: "MPI_CHARACTER", typeReal4: "MPI_REAL4", typeReal8: "MPI_REAL8",
	typeReal16: "MPI_REAL16", typeComplex8: "MPI_COMPLEX8", typeComplex16: "MPI_COMPLEX16",
	typeComplex32: "MPI_COMPLEX32", typeInteger1: "MPI_INTEGER1", typeInteger2: "MPI_INTEGER2",
	typeInteger4: "MPI_INTEGER4", typeInteger8: "MPI_INTEGER8", typeInt8: "MPI_INT8_T",
	typeInt16: "MPI_INT16_T", typeInt32: "MPI_INT32_T", typeInt64: "MPI_INT64_T",
	typeUint8: "MPI_UINT8_T", typeUint16: "MPI_UINT16_T", typeUint32: "MPI_UINT32_T",
	typeUint64: "MPI_UINT64_T", typeCBool: "MPI_C_BOOL", typeCFloatComplex: "MPI_C_COMPLEX", // MPI_C_FLOAT_COMPLEX's handle too
	typeCDoubleComplex: "MPI_C_DOUBLE_COMPLEX", typeCLongDoubleCmplx: "MPI_C_LONG_DOUBLE_COMPLEX",
	typeAint: "MPI_AINT", typeOffset: "MPI_OFFSET", typeCount: "MPI_COUNT",
	typeCxxBool: "MPI_CXX_BOOL", typeCxxFloatComplex: "MPI_CXX_FLOAT_COMPLEX",
	typeCxxDoubleComplex: "MPI_CXX_DOUBLE_COMPLEX", typeCxxLongDoubleCmpl: "MPI_CXX_LONG_DOUBLE_COMPLEX",
	typeLB: "MPI_LB", typeUB: "MPI_UB",
}

// objectNames are the names that the program gave to datatypes and
// windows, by handle (their kinds keep the handles apart).
var objectNames sync.Map // int32 -> string

// objectName returns the name of handle h: the program's, else a
// predefined datatype's, else "".
func objectName(h int32) string {
	if v, ok := objectNames.Load(h); ok {
		return v.(string)
	}
	return typeNames[h]
}
