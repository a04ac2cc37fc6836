package collectives

import (
	"errors"
	"fmt"
	"reflect"
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
// NewOp makes one from a Go function. The zero Op is invalid.
type Op struct {
	kind    opKind
	name    string
	user    func(in, inout []byte) // for opUser
	elem    reflect.Type           // element type of a user op
	commute bool
}

// The predefined operations. Min and Max apply to integers and floats;
// the logical and bitwise ones to integers (logical ones treat non-zero as
// true and yield 0 or 1); Sum and Prod to every type. MinLoc and MaxLoc
// work on pairs of elements (value, index), as MPI_2INT and
// MPI_2DOUBLE_PRECISION do: the buffer holds value0, index0, value1,
// index1, ...; the result is the extreme value and the smallest index
// holding it.
var (
	Sum    = Op{kind: opSum, name: "Sum", commute: true}
	Prod   = Op{kind: opProd, name: "Prod", commute: true}
	Min    = Op{kind: opMin, name: "Min", commute: true}
	Max    = Op{kind: opMax, name: "Max", commute: true}
	LAnd   = Op{kind: opLAnd, name: "LAnd", commute: true}
	LOr    = Op{kind: opLOr, name: "LOr", commute: true}
	LXor   = Op{kind: opLXor, name: "LXor", commute: true}
	BAnd   = Op{kind: opBAnd, name: "BAnd", commute: true}
	BOr    = Op{kind: opBOr, name: "BOr", commute: true}
	BXor   = Op{kind: opBXor, name: "BXor", commute: true}
	MinLoc = Op{kind: opMinLoc, name: "MinLoc", commute: true}
	MaxLoc = Op{kind: opMaxLoc, name: "MaxLoc", commute: true}
)

// Replace and NoOp are the operations of one-sided accumulates only
// (MPI_REPLACE, MPI_NO_OP; see AccumulatorFor): Replace stores the
// operand, NoOp leaves the target as it is. The collectives refuse them.
var (
	Replace = Op{kind: opReplace, name: "Replace"}
	NoOp    = Op{kind: opNoOp, name: "NoOp"}
)

// Is reports whether o is the predefined operation p (never true for
// operations made by NewOp).
func (o Op) Is(p Op) bool { return o.kind == p.kind && o.kind != opUser }

// NewOp makes a reduction operation of elements of type T from f, which
// must set inout[i] to in[i] combined with inout[i] for every i. The
// operation must be associative; commutative says whether it is also
// commutative. For a non-commutative operation the result is, as in MPI,
// the combination in rank order, a0 ∘ a1 ∘ … ∘ an-1, where in holds the
// lower ranks' part.
func NewOp[T Type](name string, f func(in, inout []T), commutative bool) Op {
	return Op{
		kind: opUser, name: name, commute: commutative, elem: reflect.TypeFor[T](),
		user: func(in, inout []byte) { f(view[T](in), view[T](inout)) },
	}
}

// String returns the operation's name.
func (o Op) String() string {
	if o.name == "" {
		return "invalid op"
	}
	return o.name
}

// Commutative reports whether the operation is commutative.
func (o Op) Commutative() bool { return o.commute }

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
	t := reflect.TypeFor[T]()
	r := Reducer{Elem: int(t.Size()), Commutative: op.commute, Op: op.String(), Kind: t.Kind()}
	r.Unit = r.Elem
	if op.kind == opMinLoc || op.kind == opMaxLoc {
		r.Unit *= 2
	}
	if op.kind == opUser {
		if op.user == nil {
			return Reducer{}, fmt.Errorf("%w: the zero Op", ErrOp)
		}
		if op.elem != t {
			return Reducer{}, fmt.Errorf("%w: %s is defined on %v, not %v", ErrOp, op, op.elem, t)
		}
		r.Apply = op.user
		return r, nil
	}
	if op.kind > opMaxLoc {
		return Reducer{}, fmt.Errorf("%w: %s is an operation of one-sided accumulates only", ErrOp, op)
	}
	if k := t.Kind(); int(k) < len(applyTable[op.kind]) {
		r.Apply = applyTable[op.kind][k]
	}
	if r.Apply == nil {
		return Reducer{}, fmt.Errorf("%w: %s is not defined on %v", ErrOp, op, t)
	}
	return r, nil
}

// AccumulatorFor returns the Reducer of op for one-sided accumulates of
// elements of type T: ReducerFor's, and Replace and NoOp besides.
func AccumulatorFor[T Type](op Op) (Reducer, error) {
	if op.kind != opReplace && op.kind != opNoOp {
		return ReducerFor[T](op)
	}
	t := reflect.TypeFor[T]()
	r := Reducer{Elem: int(t.Size()), Unit: int(t.Size()), Op: op.String(), Kind: t.Kind(),
		Apply: func(in, inout []byte) {}}
	if op.kind == opReplace {
		r.Apply = func(in, inout []byte) { copy(inout, in) }
	}
	return r, nil
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
