package mpi

import (
	"fmt"
	"reflect"
	"unsafe"
)

// StructBytes returns the memory of s as bytes, so that a slice of
// structs of numeric fields (nested structs and arrays of them included)
// can be sent, received and moved by collectives as []byte: Go's
// counterpart of MPI_Type_create_struct. Every process of a job runs the
// same program on the same architecture, so a struct has the same layout,
// padding included, in each. S must hold no pointers, slices, strings,
// maps, channels, functions or interfaces: their bytes mean nothing in
// another process, and StructBytes returns an error wrapping ErrDatatype
// naming the field. The result aliases s.
//
//	type particle struct{ X, Y, Z float64; ID int32 }
//	ps := make([]particle, 100)
//	b, err := mpi.StructBytes(ps)
//	err = mpi.Send(world, b, 1, 0)
func StructBytes[S any](s []S) ([]byte, error) {
	t := reflect.TypeFor[S]()
	if err := plainData(t, t.String()); err != nil {
		return nil, fmt.Errorf("mpi: StructBytes: %w", err)
	}
	if len(s) == 0 {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(t.Size())), nil
}

// plainData reports an error if values of t hold anything but numbers
// and booleans; path names t in the message.
func plainData(t reflect.Type, path string) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return nil
	case reflect.Array:
		return plainData(t.Elem(), path+"[]")
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := plainData(f.Type, path+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%w: %s is a %s, which cannot be sent as bytes", ErrDatatype, path, t.Kind())
}
