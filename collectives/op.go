package collectives

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"golang.org/x/exp/constraints"
)

// Type is the constraint of the element types collective operations work
// on: every Go integer, floating-point and complex type.
type Type interface {
	constraints.Integer | constraints.Float | constraints.Complex
}

type opKind uint8

const (
	opUser opKind = iota
	opSum
	opProd
	opMin
	opMax
	opLAnd
	opLOr
	opLXor
	opBAnd
	opBOr
	opBXor
	opMinLoc
	opMaxLoc
	opReplace
	opNoOp
)

// Op is a reduction operation. The predefined ones are the variables Sum,
// Prod, Min, Max, LAnd, LOr, LXor, BAnd, BOr, BXor, MinLoc and MaxLoc;
// NewOp makes one from a Go function. The zero Op is invalid. An Op is
// one word, cheap to pass through the layers of a call.
type Op struct{ d *opDesc }

// opDesc describes an Op.
type opDesc struct {
	kind    opKind
	name    string
	user    func(in, inout []byte) // for opUser
	elem    reflect.Type           // element type of a user op
	commute bool
	reducer *Reducer // a user op's, for elem
	unit    int      // a NewItemOp's item size in bytes; 0: one element
}

// desc returns o's description; the zero Op's is the zero opDesc, an
// invalid user operation.
func (o Op) desc() *opDesc {
	if o.d == nil {
		return &invalidOp
	}
	return o.d
}

var invalidOp opDesc

// The predefined operations. Min and Max apply to integers and floats;
// the logical and bitwise ones to integers (logical ones treat non-zero as
// true and yield 0 or 1); Sum and Prod to every type. MinLoc and MaxLoc
// work on pairs of elements (value, index), as MPI_2INT and
// MPI_2DOUBLE_PRECISION do: the buffer holds value0, index0, value1,
// index1, ...; the result is the extreme value and the smallest index
// holding it.
var (
	Sum    = Op{&opDesc{kind: opSum, name: "Sum", commute: true}}
	Prod   = Op{&opDesc{kind: opProd, name: "Prod", commute: true}}
	Min    = Op{&opDesc{kind: opMin, name: "Min", commute: true}}
	Max    = Op{&opDesc{kind: opMax, name: "Max", commute: true}}
	LAnd   = Op{&opDesc{kind: opLAnd, name: "LAnd", commute: true}}
	LOr    = Op{&opDesc{kind: opLOr, name: "LOr", commute: true}}
	LXor   = Op{&opDesc{kind: opLXor, name: "LXor", commute: true}}
	BAnd   = Op{&opDesc{kind: opBAnd, name: "BAnd", commute: true}}
	BOr    = Op{&opDesc{kind: opBOr, name: "BOr", commute: true}}
	BXor   = Op{&opDesc{kind: opBXor, name: "BXor", commute: true}}
	MinLoc = Op{&opDesc{kind: opMinLoc, name: "MinLoc", commute: true}}
	MaxLoc = Op{&opDesc{kind: opMaxLoc, name: "MaxLoc", commute: true}}
)

// Replace and NoOp are the operations of one-sided accumulates only
// (MPI_REPLACE, MPI_NO_OP; see AccumulatorFor): Replace stores the
// operand, NoOp leaves the target as it is. The collectives refuse them.
var (
	Replace = Op{&opDesc{kind: opReplace, name: "Replace"}}
	NoOp    = Op{&opDesc{kind: opNoOp, name: "NoOp"}}
)

// Is reports whether o is the predefined operation p (never true for
// operations made by NewOp).
func (o Op) Is(p Op) bool {
	k := o.desc().kind
	return k == p.desc().kind && k != opUser
}

// NewOp makes a reduction operation of elements of type T from f, which
// must set inout[i] to in[i] combined with inout[i] for every i. The
// operation must be associative; commutative says whether it is also
// commutative. For a non-commutative operation the result is, as in MPI,
// the combination in rank order, a0 ∘ a1 ∘ … ∘ an-1, where in holds the
// lower ranks' part.
func NewOp[T Type](name string, f func(in, inout []T), commutative bool) Op {
	op := Op{&opDesc{
		kind: opUser, name: name, commute: commutative, elem: reflect.TypeFor[T](),
		user: func(in, inout []byte) { f(view[T](in), view[T](inout)) },
	}}
	if f != nil {
		r, _ := reducerOf[T](op)
		op.d.reducer = &r
	}
	return op
}

// NewItemOp makes a reduction operation on items of size bytes, reduced
// as byte buffers: f must combine every item of in with the same item of
// inout (len(inout)/size of them), which it finds at multiples of size.
// Collectives split buffers only between items, so that f always gets
// whole ones: an operation on records, structs or any data of a length
// that no element type has. Associativity and commutative are as
// NewOp's.
func NewItemOp(name string, size int, f func(in, inout []byte), commutative bool) Op {
	op := Op{&opDesc{kind: opUser, name: name, commute: commutative, elem: reflect.TypeFor[byte](), user: f, unit: size}}
	if f != nil && size > 0 {
		r, _ := reducerOf[byte](op)
		op.d.reducer = &r
	}
	return op
}

// String returns the operation's name.
func (o Op) String() string {
	if name := o.desc().name; name != "" {
		return name
	}
	return "invalid op"
}

// Commutative reports whether the operation is commutative.
func (o Op) Commutative() bool { return o.desc().commute }

// Reducer applies an Op to buffers of one element type.
type Reducer struct {
	// Apply sets inout[i] = in[i] ∘ inout[i] over the elements the byte
	// slices hold; in holds the lower ranks' operand.
	Apply func(in, inout []byte)
	// Elem is the element size in bytes; Unit the size of the unit the
	// operation combines (two elements for MinLoc and MaxLoc). Buffers
	// are split only at multiples of Unit.
	Elem, Unit int
	// Commutative says whether operands may be combined out of rank order.
	Commutative bool
	// Op is the operation's name, for errors and statistics.
	Op string
	// Kind is the element type's reflect.Kind, which processes compare.
	Kind reflect.Kind
}

// ErrOp is wrapped by the error of an operation used with an element type
// it is not defined for.
var ErrOp = errors.New("invalid reduction operation")

// ReducerFor returns the Reducer of op for elements of type T.
func ReducerFor[T Type](op Op) (Reducer, error) {
	r, err := ReducerRef[T](op)
	if err != nil {
		return Reducer{}, err
	}
	return *r, nil
}

// ReducerRef is ReducerFor without the copy: it returns a Reducer shared
// by every call for op and T, which the caller must not modify. The small
// reductions look their Reducer up once a call: a predefined operation
// on a predeclared type is in a table (a lookup through reflect cost
// several times as much: docs/decisions.md, ReducerRef), a user operation
// keeps its own, and one on a defined type is kept once made.
func ReducerRef[T Type](op Op) (*Reducer, error) {
	d := op.desc()
	switch {
	case d.kind == opUser && d.reducer != nil && d.elem == reflect.TypeFor[T]():
		return d.reducer, nil
	case d.kind >= opSum && d.kind <= opMaxLoc:
		if k := basicKind[T](); k != reflect.Invalid {
			if r := &reducerTable[d.kind][k]; r.Apply != nil {
				return r, nil
			}
		}
		return kept(definedKey{d.kind, reflect.TypeFor[T]()}, func() (Reducer, error) { return reducerOf[T](op) })
	}
	r, err := reducerOf[T](op)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// definedKey names the Reducer of a predefined operation on a defined
// element type (type Celsius float64) in definedReducers.
type definedKey struct {
	kind opKind
	elem reflect.Type
}

// definedReducers holds the Reducers of predefined operations on defined
// element types made so far, and of Replace and NoOp on any: *Reducer by
// definedKey.
var definedReducers sync.Map

// kept returns the Reducer of key in definedReducers, made by build and
// kept there the first time.
func kept(key definedKey, build func() (Reducer, error)) (*Reducer, error) {
	if r, ok := definedReducers.Load(key); ok {
		return r.(*Reducer), nil
	}
	r, err := build()
	if err != nil {
		return nil, err
	}
	v, _ := definedReducers.LoadOrStore(key, &r)
	return v.(*Reducer), nil
}

// reducerOf is ReducerFor's general case, through reflect.
func reducerOf[T Type](op Op) (Reducer, error) {
	d := op.desc()
	t := reflect.TypeFor[T]()
	r := Reducer{Elem: int(t.Size()), Commutative: d.commute, Op: op.String(), Kind: t.Kind()}
	r.Unit = r.Elem
	if d.kind == opMinLoc || d.kind == opMaxLoc {
		r.Unit *= 2
	}
	if d.kind == opUser {
		if d.user == nil || d.unit < 0 {
			return Reducer{}, fmt.Errorf("%w: the zero Op", ErrOp)
		}
		if d.unit > 0 {
			r.Unit = d.unit
		}
		if d.elem != t {
			return Reducer{}, fmt.Errorf("%w: %s is defined on %v, not %v", ErrOp, op, d.elem, t)
		}
		r.Apply = d.user
		return r, nil
	}
	if d.kind > opMaxLoc {
		return Reducer{}, fmt.Errorf("%w: %s is an operation of one-sided accumulates only", ErrOp, op)
	}
	if k := t.Kind(); int(k) < len(applyTable[d.kind]) {
		r.Apply = applyTable[d.kind][k]
	}
	if r.Apply == nil {
		return Reducer{}, fmt.Errorf("%w: %s is not defined on %v", ErrOp, op, t)
	}
	return r, nil
}

// AccumulatorFor returns the Reducer of op for one-sided accumulates of
// elements of type T: ReducerFor's, and Replace and NoOp besides.
func AccumulatorFor[T Type](op Op) (Reducer, error) {
	kind := op.desc().kind
	if kind != opReplace && kind != opNoOp {
		return ReducerFor[T](op)
	}
	t := reflect.TypeFor[T]()
	r := Reducer{Elem: int(t.Size()), Unit: int(t.Size()), Op: op.String(), Kind: t.Kind(), Apply: noopApply}
	if kind == opReplace {
		r.Apply = replaceApply
	}
	return r, nil
}

// AccumulatorRef is AccumulatorFor without the copy: a Reducer shared by
// every call for op and T, which the caller must not modify (ReducerRef's;
// Replace's and NoOp's are made once for each T).
func AccumulatorRef[T Type](op Op) (*Reducer, error) {
	kind := op.desc().kind
	if kind != opReplace && kind != opNoOp {
		return ReducerRef[T](op)
	}
	return kept(definedKey{kind, reflect.TypeFor[T]()}, func() (Reducer, error) { return AccumulatorFor[T](op) })
}

// basicKind returns the kind of T when T is a predeclared type, and
// reflect.Invalid for a type defined from one (which reflect tells).
func basicKind[T Type]() reflect.Kind {
	switch any((*T)(nil)).(type) {
	case *float64:
		return reflect.Float64
	case *float32:
		return reflect.Float32
	case *int:
		return reflect.Int
	case *int64:
		return reflect.Int64
	case *int32:
		return reflect.Int32
	case *uint64:
		return reflect.Uint64
	case *uint32:
		return reflect.Uint32
	case *uint8:
		return reflect.Uint8
	case *int8:
		return reflect.Int8
	case *int16:
		return reflect.Int16
	case *uint16:
		return reflect.Uint16
	case *uint:
		return reflect.Uint
	case *uintptr:
		return reflect.Uintptr
	case *complex128:
		return reflect.Complex128
	case *complex64:
		return reflect.Complex64
	}
	return reflect.Invalid
}

// reducerTable holds the Reducer of every predefined operation for every
// predeclared element type, by kind (Apply nil where undefined): what
// reducerOf returns for them.
var reducerTable = makeReducerTable()

func makeReducerTable() *[opMaxLoc + 1][reflect.Complex128 + 1]Reducer {
	var table [opMaxLoc + 1][reflect.Complex128 + 1]Reducer
	ops := []Op{Sum, Prod, Min, Max, LAnd, LOr, LXor, BAnd, BOr, BXor, MinLoc, MaxLoc}
	add := func(k reflect.Kind, reducer func(Op) (Reducer, error)) {
		for _, op := range ops {
			if r, err := reducer(op); err == nil {
				table[op.d.kind][k] = r
			}
		}
	}
	add(reflect.Int, reducerOf[int])
	add(reflect.Int8, reducerOf[int8])
	add(reflect.Int16, reducerOf[int16])
	add(reflect.Int32, reducerOf[int32])
	add(reflect.Int64, reducerOf[int64])
	add(reflect.Uint, reducerOf[uint])
	add(reflect.Uint8, reducerOf[uint8])
	add(reflect.Uint16, reducerOf[uint16])
	add(reflect.Uint32, reducerOf[uint32])
	add(reflect.Uint64, reducerOf[uint64])
	add(reflect.Uintptr, reducerOf[uintptr])
	add(reflect.Float32, reducerOf[float32])
	add(reflect.Float64, reducerOf[float64])
	add(reflect.Complex64, reducerOf[complex64])
	add(reflect.Complex128, reducerOf[complex128])
	return &table
}

// applyTable holds the Apply function of every predefined operation for
// every basic kind (nil where undefined). It is built once: the functions
// are closures of generic code, which would allocate if made per call.
var applyTable = makeApplyTable()

func makeApplyTable() *[opMaxLoc + 1][reflect.Complex128 + 1]func(in, inout []byte) {
	var table [opMaxLoc + 1][reflect.Complex128 + 1]func(in, inout []byte)
	for k := opSum; k <= opMaxLoc; k++ {
		t := &table[k]
		t[reflect.Int] = ints[int](k)
		t[reflect.Int8] = ints[int8](k)
		t[reflect.Int16] = ints[int16](k)
		t[reflect.Int32] = ints[int32](k)
		t[reflect.Int64] = ints[int64](k)
		t[reflect.Uint] = ints[uint](k)
		t[reflect.Uint8] = ints[uint8](k)
		t[reflect.Uint16] = ints[uint16](k)
		t[reflect.Uint32] = ints[uint32](k)
		t[reflect.Uint64] = ints[uint64](k)
		t[reflect.Uintptr] = ints[uintptr](k)
		t[reflect.Float32] = floats[float32](k)
		t[reflect.Float64] = floats[float64](k)
		t[reflect.Complex64] = complexes[complex64](k)
		t[reflect.Complex128] = complexes[complex128](k)
	}
	useVectorSums(&table)
	return &table
}

// view reinterprets bytes as elements of type E.
func view[E any](b []byte) []E {
	var e E
	n := len(b) / int(unsafe.Sizeof(e))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

type number interface {
	constraints.Integer | constraints.Float | constraints.Complex
}

type ordered interface {
	constraints.Integer | constraints.Float
}

func arith[E number](k opKind) func(in, inout []byte) {
	switch k {
	case opSum:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			a = a[:len(b)]
			i := 0
			for ; i+4 <= len(b); i += 4 {
				b[i] += a[i]
				b[i+1] += a[i+1]
				b[i+2] += a[i+2]
				b[i+3] += a[i+3]
			}
			for ; i < len(b); i++ {
				b[i] += a[i]
			}
		}
	case opProd:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = a[i] * b[i]
			}
		}
	}
	return nil
}

func order[E ordered](k opKind) func(in, inout []byte) {
	switch k {
	case opMin:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = min(a[i], b[i])
			}
		}
	case opMax:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = max(a[i], b[i])
			}
		}
	case opMinLoc:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := 0; i+1 < len(b); i += 2 {
				if a[i] < b[i] || (a[i] == b[i] && a[i+1] < b[i+1]) {
					b[i], b[i+1] = a[i], a[i+1]
				}
			}
		}
	case opMaxLoc:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := 0; i+1 < len(b); i += 2 {
				if a[i] > b[i] || (a[i] == b[i] && a[i+1] < b[i+1]) {
					b[i], b[i+1] = a[i], a[i+1]
				}
			}
		}
	}
	return arith[E](k)
}

func ints[E constraints.Integer](k opKind) func(in, inout []byte) {
	switch k {
	case opLAnd:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = boolOf[E](a[i] != 0 && b[i] != 0)
			}
		}
	case opLOr:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = boolOf[E](a[i] != 0 || b[i] != 0)
			}
		}
	case opLXor:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = boolOf[E]((a[i] != 0) != (b[i] != 0))
			}
		}
	case opBAnd:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = a[i] & b[i]
			}
		}
	case opBOr:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = a[i] | b[i]
			}
		}
	case opBXor:
		return func(in, inout []byte) {
			a, b := view[E](in), view[E](inout)
			for i := range b {
				b[i] = a[i] ^ b[i]
			}
		}
	}
	return order[E](k)
}

func floats[E constraints.Float](k opKind) func(in, inout []byte) { return order[E](k) }

func complexes[E constraints.Complex](k opKind) func(in, inout []byte) { return arith[E](k) }

func boolOf[E constraints.Integer](b bool) E {
	if b {
		return 1
	}
	return 0
}

// Number returns the number of a predefined operation (Sum to MaxLoc,
// Replace and NoOp), the same in every process of a job, so that a
// process may apply an operation that another names by it
// (AccumulatorOf); false for an operation NewOp or NewItemOp made.
func (o Op) Number() (uint8, bool) {
	k := o.desc().kind
	return uint8(k), k >= opSum && k <= opNoOp
}

// AccumulatorOf returns the Reducer of the predefined operation numbered
// op (Op.Number) for one-sided accumulates of elements of kind k: the one
// AccumulatorRef returns for that operation and any element type of that
// kind.
func AccumulatorOf(op uint8, k reflect.Kind) (*Reducer, error) {
	kind := opKind(op)
	if kind < opSum || kind > opNoOp || k <= reflect.Invalid || int(k) >= len(reducerTable[opSum]) || reducerTable[opSum][k].Apply == nil {
		return nil, fmt.Errorf("%w: operation %d on elements of kind %v", ErrOp, op, k)
	}
	var r *Reducer
	if kind <= opMaxLoc {
		r = &reducerTable[kind][k]
	} else {
		r = &accumulatorTable[kind-opReplace][k]
	}
	if r.Apply == nil {
		return nil, fmt.Errorf("%w: operation %d is not defined on %v", ErrOp, op, k)
	}
	return r, nil
}

// accumulatorTable holds the Reducers of Replace and NoOp for every
// predeclared element type, by kind.
var accumulatorTable = makeAccumulatorTable()

func makeAccumulatorTable() *[2][reflect.Complex128 + 1]Reducer {
	var table [2][reflect.Complex128 + 1]Reducer
	for k, sum := range reducerTable[opSum] {
		if sum.Apply == nil {
			continue
		}
		table[0][k] = Reducer{Elem: sum.Elem, Unit: sum.Elem, Op: Replace.String(), Kind: sum.Kind, Apply: replaceApply}
		table[1][k] = Reducer{Elem: sum.Elem, Unit: sum.Elem, Op: NoOp.String(), Kind: sum.Kind, Apply: noopApply}
	}
	return &table
}

func replaceApply(in, inout []byte) { copy(inout, in) }
func noopApply(in, inout []byte)    {}
