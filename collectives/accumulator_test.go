package collectives

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// The Reducer a process finds by an operation's number and an element
// kind combines as the one of the operation and a type of that kind,
// defined types too; user operations have no number.
func TestAccumulatorOf(t *testing.T) {
	type celsius float64
	in := []celsius{1.5, -2, 8}
	for _, op := range []Op{Sum, Prod, Min, Max, Replace, NoOp, MinLoc} {
		n, ok := op.Number()
		if !ok {
			t.Fatalf("%s has no number", op)
		}
		byType, err := AccumulatorRef[celsius](op)
		if err != nil {
			t.Fatal(err)
		}
		byNumber, err := AccumulatorOf(n, reflect.Float64)
		if err != nil {
			t.Fatalf("%s (%d) on float64: %v", op, n, err)
		}
		if byNumber.Elem != byType.Elem || byNumber.Unit != byType.Unit || byNumber.Kind != byType.Kind {
			t.Fatalf("%s: by number %+v, by type %+v", op, *byNumber, *byType)
		}
		a, b := []celsius{3, 4, 5, 6}, []celsius{3, 4, 5, 6}
		src := append(in[:len(in):len(in)], 0)
		byType.Apply(asBytes(src), asBytes(a))
		byNumber.Apply(asBytes(src), asBytes(b))
		if !bytes.Equal(asBytes(a), asBytes(b)) {
			t.Fatalf("%s: by number %v, by type %v", op, b, a)
		}
	}
	if _, ok := NewOp("mine", func(in, inout []int) {}, true).Number(); ok {
		t.Fatal("a user operation has a number")
	}
	for _, c := range []struct {
		op uint8
		k  reflect.Kind
	}{{0, reflect.Int}, {99, reflect.Int}, {1, reflect.String}, {1, reflect.Invalid}, {1, 200}} {
		if _, err := AccumulatorOf(c.op, c.k); !errors.Is(err, ErrOp) {
			t.Errorf("operation %d on %v: %v, want ErrOp", c.op, c.k, err)
		}
	}
	band, _ := BAnd.Number()
	if _, err := AccumulatorOf(band, reflect.Float32); !errors.Is(err, ErrOp) {
		t.Errorf("BAnd on float32: %v, want ErrOp", err)
	}
}
