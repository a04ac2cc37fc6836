package main

// The values of MPICH's ABI (the mpi.h of MPICH 4.0, shared by the MPIs of
// the MPICH ABI compatibility initiative): handles are 32-bit integers whose
// two top bits say builtin (01), direct (10) or indirect (11), the next four
// the kind of object, and the low bits an index; a predefined datatype's
// handle also carries its size in bytes in bits 8-15.

// Handle kinds (bits 26-29 of a handle).
const (
	kindComm       = 0x1
	kindGroup      = 0x2
	kindDatatype   = 0x3
	kindErrhandler = 0x5
	kindOp         = 0x6
	kindInfo       = 0x7
	kindWin        = 0x8
	kindKeyval     = 0x9
	kindRequest    = 0xb
	kindSession    = 0xe
)

// The two top bits of a handle.
const (
	handleBuiltin  = 0x1
	handleDirect   = 0x2
	handleIndirect = 0x3
)

// Null handles.
const (
	commNull       int32 = 0x04000000
	opNull         int32 = 0x18000000
	groupNull      int32 = 0x08000000
	datatypeNull   int32 = 0x0c000000
	requestNull    int32 = 0x2c000000
	errhandlerNull int32 = 0x14000000
	infoNull       int32 = 0x1c000000
	winNull        int32 = 0x20000000
	messageNull    int32 = 0x2c000000
	messageNoProc  int32 = 0x6c000000
	sessionNull    int32 = 0x38000000
)

// keyvalInvalid is MPI_KEYVAL_INVALID.
const keyvalInvalid int32 = 0x24000000

// Predefined communicators, groups and infos.
const (
	commWorld  int32 = 0x44000000
	commSelf   int32 = 0x44000001
	groupEmpty int32 = 0x48000000
	infoEnv    int32 = 0x5c000001
)

// Predefined error handlers.
const (
	errorsAreFatal int32 = 0x54000000
	errorsReturn   int32 = 0x54000001
	errorsAbort    int32 = 0x54000003
)

// Predefined datatypes. The size in bytes is bits 8-15 of those of the form
// 0x4c00SSxx; the pair types of the form 0x8c0000xx have no size in them.
const (
	typeChar              int32 = 0x4c000101
	typeSignedChar        int32 = 0x4c000118
	typeUnsignedChar      int32 = 0x4c000102
	typeByte              int32 = 0x4c00010d
	typeWchar             int32 = 0x4c00040e
	typeShort             int32 = 0x4c000203
	typeUnsignedShort     int32 = 0x4c000204
	typeInt               int32 = 0x4c000405
	typeUnsigned          int32 = 0x4c000406
	typeLong              int32 = 0x4c000807
	typeUnsignedLong      int32 = 0x4c000808
	typeFloat             int32 = 0x4c00040a
	typeDouble            int32 = 0x4c00080b
	typeLongDouble        int32 = 0x4c00100c
	typeLongLong          int32 = 0x4c000809
	typeUnsignedLongLong  int32 = 0x4c000819
	typePacked            int32 = 0x4c00010f
	typeLB                int32 = 0x4c000010
	typeUB                int32 = 0x4c000011
	typeFloatInt          int32 = 0x8c000000 - 1<<32
	typeDoubleInt         int32 = 0x8c000001 - 1<<32
	typeLongInt           int32 = 0x8c000002 - 1<<32
	typeShortInt          int32 = 0x8c000003 - 1<<32
	type2Int              int32 = 0x4c000816
	typeLongDoubleInt     int32 = 0x8c000004 - 1<<32
	typeComplex           int32 = 0x4c00081e
	typeDoubleComplex     int32 = 0x4c001022
	typeLogical           int32 = 0x4c00041d
	typeReal              int32 = 0x4c00041c
	typeDoublePrecision   int32 = 0x4c00081f
	typeInteger           int32 = 0x4c00041b
	type2Integer          int32 = 0x4c000820
	type2Real             int32 = 0x4c000821
	type2DoublePrecision  int32 = 0x4c001023
	typeCharacter         int32 = 0x4c00011a
	typeReal4             int32 = 0x4c000427
	typeReal8             int32 = 0x4c000829
	typeReal16            int32 = 0x4c00102b
	typeComplex8          int32 = 0x4c000828
	typeComplex16         int32 = 0x4c00102a
	typeComplex32         int32 = 0x4c00202c
	typeInteger1          int32 = 0x4c00012d
	typeInteger2          int32 = 0x4c00022f
	typeInteger4          int32 = 0x4c000430
	typeInteger8          int32 = 0x4c000831
	typeInt8              int32 = 0x4c000137
	typeInt16             int32 = 0x4c000238
	typeInt32             int32 = 0x4c000439
	typeInt64             int32 = 0x4c00083a
	typeUint8             int32 = 0x4c00013b
	typeUint16            int32 = 0x4c00023c
	typeUint32            int32 = 0x4c00043d
	typeUint64            int32 = 0x4c00083e
	typeCBool             int32 = 0x4c00013f
	typeCFloatComplex     int32 = 0x4c000840
	typeCDoubleComplex    int32 = 0x4c001041
	typeCLongDoubleCmplx  int32 = 0x4c002042
	typeFloat16           int32 = 0x4c000246
	typeAint              int32 = 0x4c000843
	typeOffset            int32 = 0x4c000844
	typeCount             int32 = 0x4c000845
	typeCxxBool           int32 = 0x4c000133
	typeCxxFloatComplex   int32 = 0x4c000834
	typeCxxDoubleComplex  int32 = 0x4c001035
	typeCxxLongDoubleCmpl int32 = 0x4c002036
)

// Predefined reduction operations.
const (
	opMax     int32 = 0x58000001
	opMin     int32 = 0x58000002
	opSum     int32 = 0x58000003
	opProd    int32 = 0x58000004
	opLAnd    int32 = 0x58000005
	opBAnd    int32 = 0x58000006
	opLOr     int32 = 0x58000007
	opBOr     int32 = 0x58000008
	opLXor    int32 = 0x58000009
	opBXor    int32 = 0x5800000a
	opMinLoc  int32 = 0x5800000b
	opMaxLoc  int32 = 0x5800000c
	opReplace int32 = 0x5800000d
	opNoOp    int32 = 0x5800000e
)

// Special ranks, tags and values.
const (
	cProcNull  = -1
	cAnySource = -2
	cRoot      = -3
	cAnyTag    = -1
	cUndefined = -32766
)

// Results of the comparisons (MPI_IDENT ... MPI_UNEQUAL).
const (
	cIdent     = 0
	cCongruent = 1
	cSimilar   = 2
	cUnequal   = 3
)

// Special buffer and status addresses.
const (
	inPlaceAddr       = ^uintptr(0) // MPI_IN_PLACE: (void *)-1
	statusIgnoreAddr  = 1           // MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE: (MPI_Status *)1
	errcodesIgnoreAdr = 0           // MPI_ERRCODES_IGNORE: (int *)0
)

// String lengths (MPI_MAX_PROCESSOR_NAME and the others).
const (
	maxProcessorName        = 128
	maxLibraryVersion       = 8192
	maxErrorString          = 512
	maxObjectName           = 128
	maxPsetName             = 256 // MPI_MAX_PSET_NAME_LEN
	mpiTopoGraph            = 1
	mpiTopoCart             = 2
	mpiTopoDistGraph        = 3
	commTypeShared          = 1
	threadSingle            = 0
	threadMultiple          = 3
	keyTagUB          int32 = 0x64400001
	keyHost           int32 = 0x64400003
	keyIO             int32 = 0x64400005
	keyWtimeGlobal    int32 = 0x64400007
	keyUniverse       int32 = 0x64400009
	keyLastUsedCode   int32 = 0x6440000b
	keyAppnum         int32 = 0x6440000d
)

// Error classes (MPI_SUCCESS, MPI_ERR_BUFFER, ...).
const (
	errSuccess     = 0
	errBuffer      = 1
	errCount       = 2
	errType        = 3
	errTag         = 4
	errComm        = 5
	errRank        = 6
	errRoot        = 7
	errGroup       = 8
	errOp          = 9
	errTopology    = 10
	errDims        = 11
	errArg         = 12
	errUnknown     = 13
	errTruncate    = 14
	errOther       = 15
	errIntern      = 16
	errInStatus    = 17
	errPending     = 18
	errRequest     = 19
	errInfo        = 28
	errInfoNokey   = 31
	errNoMem       = 34
	errUnsupported = 44
	errWin         = 45
	errKeyval      = 48
	errRMASync     = 50
	errRMARange    = 55
	errSession     = 75
	errLastClass   = 78
)

// status is MPI_Status as MPICH lays it out: the count in bytes split in two
// ints (the high part's lowest bit is the cancelled flag), then the source,
// tag and error.
type status struct {
	countLo             int32
	countHiAndCancelled int32
	source              int32
	tag                 int32
	err                 int32
}

// setCount stores n bytes and the cancelled flag as MPICH does: the low 32
// bits of n in countLo, the bits above in countHiAndCancelled from bit 1.
func (s *status) setCount(n int64, cancelled bool) {
	s.countLo = int32(uint32(n))
	hi := int32(uint64(n)>>31) &^ 1
	if cancelled {
		hi |= 1
	}
	s.countHiAndCancelled = hi
}

// count returns the count in bytes that setCount stored.
func (s *status) count() int64 {
	return int64(uint32(s.countLo)) | int64(uint32(s.countHiAndCancelled)&^1)<<31
}

// cancelled returns the cancelled flag.
func (s *status) cancelled() bool { return s.countHiAndCancelled&1 != 0 }
