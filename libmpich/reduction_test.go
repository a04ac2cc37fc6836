package main

import (
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// TestDerivedReduction checks which derived datatypes a predefined
// operation reduces: a contiguous one of one element type (three
// MPI_INTs: three elements an item), not a vector with gaps nor one of
// mixed types.
func TestDerivedReduction(t *testing.T) {
	three, _ := mpi.Contiguous(12)
	var h3 int32
	if err := addType(three, 4, elemInt32, nil, nil, &h3); err != nil {
		t.Fatal(err)
	}
	defer userTypes.remove(h3)
	red, err := reductionArg(h3, opSum)
	if err != nil || red.per != 3 || red.r != reducerOf[elemInt32] {
		t.Fatalf("three ints: per %d, err %v", red.per, err)
	}
	gappy, _ := mpi.Vector(2, 4, 8)
	var hv int32
	if err := addType(gappy, 4, elemInt32, nil, nil, &hv); err != nil {
		t.Fatal(err)
	}
	defer userTypes.remove(hv)
	if _, err := reductionArg(hv, opSum); err == nil {
		t.Error("a vector with gaps reduced")
	}
	var hm int32
	if err := addType(three, 4, elemNone, nil, nil, &hm); err != nil {
		t.Fatal(err)
	}
	defer userTypes.remove(hm)
	if _, err := reductionArg(hm, opSum); err == nil {
		t.Error("a datatype of mixed element types reduced")
	}
}
