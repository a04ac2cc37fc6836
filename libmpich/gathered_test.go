package main

import (
	"runtime"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// TestGathered checks what a completion call gathers from an array of
// handles (each handle's request and object, zero for MPI_REQUEST_NULL),
// that done leaves every element zero, holding no request, and keeps the
// gathered for the processor's next call unless its arrays are too long,
// and that a handle that names no request is refused, its table's free
// undoing nothing. With one processor, so that the next call is sure to
// run where the last gave its gathered back.
func TestGathered(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r1, r2 := new(mpi.Request), new(mpi.Request)
	h1, _ := requests.add(reqObj{r: r1, commH: 7, onDone: func() {}})
	h2, _ := requests.add(reqObj{r: r2, persistent: true})
	defer requests.free(h2) // h1 is freed by the test's last check

	g, err := gatherRequests([]int32{h1, requestNull, h2})
	if err != nil {
		t.Fatal(err)
	}
	if g.rs[0] != r1 || g.rs[1] != nil || g.rs[2] != r2 {
		t.Fatalf("requests %p %p %p, want %p nil %p", g.rs[0], g.rs[1], g.rs[2], r1, r2)
	}
	if g.os[0].commH != 7 || g.os[0].onDone == nil || g.os[1].r != nil || g.os[1].onDone != nil || g.os[1].commH != 0 || !g.os[2].persistent {
		t.Fatalf("objects %+v", g.os)
	}
	g.done()
	for i := range cap(g.rs) {
		if g.rs[:cap(g.rs)][i] != nil || g.os[:cap(g.os)][i].r != nil || g.os[:cap(g.os)][i].onDone != nil {
			t.Fatalf("element %d not cleared by done", i)
		}
	}
	if again, _ := gatherRequests([]int32{requestNull}); again != g {
		t.Errorf("the next call made a new gathered; want the one given back")
	} else {
		again.done()
	}

	nulls := make([]int32, keptGathered+1)
	for i := range nulls {
		nulls[i] = requestNull
	}
	long, err := gatherRequests(nulls)
	if err != nil {
		t.Fatal(err)
	}
	long.done()
	if next, _ := gatherRequests(nil); next == long {
		t.Errorf("a gathered of %d handles was kept", keptGathered+1)
	} else {
		next.done()
	}

	if _, err := gatherRequests([]int32{h1, h2 + 1<<20}); err == nil {
		t.Error("a handle that names no request was gathered")
	}
	if !requests.free(h1) || requests.free(h1) {
		t.Error("free: the handle's first free should succeed, its second fail")
	}
}
