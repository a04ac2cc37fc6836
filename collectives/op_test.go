package collectives

import (
	"errors"
	"reflect"
	"testing"
)

// The table ReducerRef reads for predefined operations on predeclared
// types holds what reducerOf makes through reflect, and both refuse the
// same pairs.
func TestReducerTable(t *testing.T) {
	ops := []Op{Sum, Prod, Min, Max, LAnd, LOr, LXor, BAnd, BOr, BXor, MinLoc, MaxLoc, Replace, NoOp, {}}
	for _, op := range ops {
		checkReducerRef[int](t, op)
		checkReducerRef[int8](t, op)
		checkReducerRef[uint16](t, op)
		checkReducerRef[uint64](t, op)
		checkReducerRef[uintptr](t, op)
		checkReducerRef[float32](t, op)
		checkReducerRef[float64](t, op)
		checkReducerRef[complex64](t, op)
		checkReducerRef[complex128](t, op)
		checkReducerRef[celsius](t, op)
	}
}

// celsius is a defined type: reflect tells its kind, the table does not.
type celsius float64

func checkReducerRef[T Type](t *testing.T, op Op) {
	t.Helper()
	want, werr := reducerOf[T](op)
	got, err := ReducerRef[T](op)
	name := reflect.TypeFor[T]().String() + " " + op.String()
	if (err == nil) != (werr == nil) {
		t.Fatalf("%s: ReducerRef error %v, reducerOf's %v", name, err, werr)
	}
	if err != nil {
		if !errors.Is(err, ErrOp) {
			t.Errorf("%s: error %v does not wrap ErrOp", name, err)
		}
		return
	}
	if got.Elem != want.Elem || got.Unit != want.Unit || got.Commutative != want.Commutative ||
		got.Op != want.Op || got.Kind != want.Kind ||
		reflect.ValueOf(got.Apply).Pointer() != reflect.ValueOf(want.Apply).Pointer() {
		t.Errorf("%s: ReducerRef %+v, reducerOf %+v", name, *got, want)
	}
	if again, _ := ReducerRef[T](op); again != got {
		t.Errorf("%s: a second lookup made another Reducer", name)
	}
	if v, err := ReducerFor[T](op); err != nil || v.Op != got.Op || v.Elem != got.Elem {
		t.Errorf("%s: ReducerFor = %+v, %v", name, v, err)
	}
}

// A user operation keeps its Reducer for its own type and refuses others;
// the lookups allocate nothing.
func TestReducerRefUserOp(t *testing.T) {
	op := NewOp("max-abs", func(in, inout []float64) {
		for i := range inout {
			inout[i] = max(abs(in[i]), abs(inout[i]))
		}
	}, true)
	r, err := ReducerRef[float64](op)
	if err != nil || r.Op != "max-abs" || r.Elem != 8 || !r.Commutative {
		t.Fatalf("ReducerRef = %+v, %v", r, err)
	}
	in, inout := []byte{0, 0, 0, 0, 0, 0, 0x08, 0xc0}, make([]byte, 8) // -3.0, 0
	r.Apply(in, inout)
	if got := view[float64](inout)[0]; got != 3 {
		t.Errorf("Apply: %v, want 3", got)
	}
	if _, err := ReducerRef[float32](op); !errors.Is(err, ErrOp) {
		t.Errorf("max-abs on float32: %v, want ErrOp", err)
	}
	if n := testing.AllocsPerRun(100, func() {
		ReducerRef[float64](op)
		ReducerRef[float32](Sum)
		ReducerRef[celsius](Max)
	}); n != 0 {
		t.Errorf("lookups allocate %.1f times", n)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
