package main

// Generalized requests (MPI_Grequest_start, MPI_Grequest_complete): an
// operation the program runs itself, completed through
// mpi.GeneralizedRequest. The program's query function gives the status
// when MPI_Grequest_complete is called (MPI calls it from the call that
// completes the request; what it returns is the same unless the program
// changes its state in between), its free function runs once the request
// is both complete and freed (by the call that completes it, or
// MPI_Request_free), and its cancel function at MPI_Cancel.

import "C"

import (
	"sync"

	"github.com/rhinet-go/martini/mpi"
)

// greqObj is a generalized request's functions and state.
type greqObj struct {
	query, free, cancel uintptr // the program's functions
	extra               uintptr // their extra_state argument
	complete            func(mpi.Status, error)

	mu        sync.Mutex
	completed bool // MPI_Grequest_complete was called
	released  bool // the request was freed or retired
	freedOnce bool // the free function ran
}

// greqCall names the program's function callGreq calls.
type greqCall int

const (
	greqQuery greqCall = iota
	greqFree
	greqCancel
)

// callGreq calls the program's query (filling st), free or cancel
// function (with complete) of g and returns its error code; set by the C
// side.
var callGreq = func(g *greqObj, what greqCall, complete bool, st *status) int32 { return 0 }

// PMPI_Grequest_start implements MPI_Grequest_start.
//
//export PMPI_Grequest_start
func PMPI_Grequest_start(query, free, cancel, extra uintptr, req *int32) (rc int32) {
	defer guard("MPI_Grequest_start", &rc)
	w := mpi.World() // under MPI_Init or a session
	if w == nil {
		return fail("MPI_Grequest_start", nil, commWorld, errorf(errOther, "MPI is not initialized"))
	}
	r, complete, err := mpi.GeneralizedRequest(w)
	if err == nil {
		g := &greqObj{query: query, free: free, cancel: cancel, extra: extra, complete: complete}
		err = storeRequest(reqObj{r: r, greq: g}, req)
	}
	return check("MPI_Grequest_start", nil, commWorld, err)
}

// PMPI_Grequest_complete implements MPI_Grequest_complete.
//
//export PMPI_Grequest_complete
func PMPI_Grequest_complete(req int32) (rc int32) {
	defer guard("MPI_Grequest_complete", &rc)
	o, ok := requests.get(req)
	if !ok || o.greq == nil {
		return fail("MPI_Grequest_complete", nil, commWorld, errorf(errRequest, "%#x is not a generalized request", uint32(req)))
	}
	g := o.greq
	var st status
	st.source, st.tag = cUndefined, cUndefined
	var err error
	if code := callGreq(g, greqQuery, false, &st); code != errSuccess {
		err = errorf(code, "the generalized request's query function returned %d", code)
	}
	g.complete(mpi.Status{Source: int(st.source), Tag: int(st.tag), Bytes: int(st.count()), Cancelled: st.cancelled()}, err)
	g.mu.Lock()
	g.completed = true
	g.mu.Unlock()
	g.maybeFree()
	return errSuccess
}

// release notes that the request was freed or completed by the program;
// the free function runs once it is complete too.
func (g *greqObj) release() {
	g.mu.Lock()
	g.released = true
	g.mu.Unlock()
	g.maybeFree()
}

// maybeFree runs the free function once the request is both complete
// and released.
func (g *greqObj) maybeFree() {
	g.mu.Lock()
	run := g.completed && g.released && !g.freedOnce
	g.freedOnce = g.freedOnce || run
	g.mu.Unlock()
	if run {
		callGreq(g, greqFree, false, nil)
	}
}

// cancelGreq calls g's cancel function, telling it whether the request
// is complete.
func cancelGreq(g *greqObj) error {
	g.mu.Lock()
	complete := g.completed
	g.mu.Unlock()
	if code := callGreq(g, greqCancel, complete, nil); code != errSuccess {
		return errorf(code, "the generalized request's cancel function returned %d", code)
	}
	return nil
}
