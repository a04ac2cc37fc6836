package mpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/rhinet-go/martini/llc"
)

// A target applies the accumulates that origins name by code as the
// origins would have: the operation on the element kind, a
// compare-and-swap of the element; operands of the wrong length, pairs
// cut in two and unknown codes are refused with the bytes unchanged.
func TestCombineAt(t *testing.T) {
	i32 := func(v ...int32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		return b
	}
	code := func(op Op, k reflect.Kind) uint32 {
		c, ok := combineCode(op, k)
		if !ok {
			t.Fatalf("%s has no code", op)
		}
		return c
	}
	cas := uint32(combineFamily<<24 | combineCAS<<8)
	for _, c := range []struct {
		name         string
		code         uint32
		cur, operand []byte
		want         []byte
		refused      bool
	}{
		{"sum", code(Sum, reflect.Int32), i32(1, -2), i32(10, 10), i32(11, 8), false},
		{"max", code(Max, reflect.Int32), i32(1, 20), i32(10, 10), i32(10, 20), false},
		{"replace", code(Replace, reflect.Int32), i32(1, 2), i32(7, 8), i32(7, 8), false},
		{"noop", code(NoOp, reflect.Int32), i32(1, 2), nil, i32(1, 2), false},
		{"minloc", code(MinLoc, reflect.Int32), i32(5, 1), i32(3, 9), i32(3, 9), false},
		{"cas equal", cas, i32(4), i32(4, 6), i32(6), false},
		{"cas unequal", cas, i32(4), i32(5, 6), i32(4), false},
		{"short operand", code(Sum, reflect.Int32), i32(1, 2), i32(1), nil, true},
		{"noop operand", code(NoOp, reflect.Int32), i32(1), i32(1), nil, true},
		{"half a pair", code(MinLoc, reflect.Int32), i32(1, 2, 3), i32(1, 2, 3), nil, true},
		{"cas operand", cas, i32(4), i32(4), nil, true},
		{"string", combineFamily<<24 | 1<<8 | uint32(reflect.String), i32(1), i32(1), nil, true},
	} {
		before := bytes.Clone(c.cur)
		err := llc.Combine(c.code, c.cur, c.operand)
		switch {
		case c.refused && (err == nil || !bytes.Equal(c.cur, before)):
			t.Errorf("%s: %v, bytes %v; want refused, unchanged", c.name, err, c.cur)
		case !c.refused && (err != nil || !bytes.Equal(c.cur, c.want)):
			t.Errorf("%s: %v, bytes %v; want %v", c.name, err, c.cur, c.want)
		}
	}
	if err := llc.Combine(code(Sum, reflect.Int32), i32(1), i32(1, 2)); !errors.Is(err, ErrCount) {
		t.Errorf("a long operand: %v, want ErrCount", err)
	}
}
