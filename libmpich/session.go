package main

// Sessions (MPI-4.0 chapter 11: MPI_Session_init ...
// MPI_Group_from_session_pset). A session holds the runtime up
// (enterSession) and an error handler; its process sets are the two MPI
// defines, mpi://WORLD and mpi://SELF, whose names match in any case.

import "C"

import (
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// sessionObj is what a session handle names: the error handler of the
// errors raised on the session.
type sessionObj struct {
	errh atomic.Int32
}

// sessions are the sessions not finalized.
var sessions = newTable[*sessionObj](kindSession)

// The process sets, as MPI_Session_get_nth_pset names them.
const (
	psetWorld = "mpi://WORLD"
	psetSelf  = "mpi://SELF"
)

var psets = [...]string{psetWorld, psetSelf}

// Session info keys: the thread level (every session's is
// MPI_THREAD_MULTIPLE) and a process set's size.
const (
	threadLevelKey = "thread_level"
	threadMultName = "MPI_THREAD_MULTIPLE"
	psetSizeKey    = "mpi_size"
)

// onSession runs f on the session of handle h and raises its error on
// the session's error handler: the body of the calls on a session.
func onSession(fn string, h int32, f func(s *sessionObj) error) int32 {
	s, ok := sessions.get(h)
	if !ok {
		return fail(fn, nil, commWorld, errorf(errSession, "invalid session %#x", uint32(h)))
	}
	if err := f(s); err != nil {
		return raise(fn, s.errh.Load(), h, err)
	}
	return errSuccess
}

// psetGroup returns the group of the process set name.
func psetGroup(name string) (mpi.Group, error) {
	w := mpi.World()
	switch {
	case w == nil:
		return mpi.Group{}, errorf(errOther, "the runtime is not running")
	case strings.EqualFold(name, psetWorld):
		return w.Group(), nil
	case strings.EqualFold(name, psetSelf):
		return w.Group().Incl(w.Rank())
	}
	return mpi.Group{}, errorf(errArg, "unknown process set %q (there are %s and %s)", name, psetWorld, psetSelf)
}

// PMPI_Session_init implements MPI_Session_init: the runtime starts
// unless MPI_Init or another session started it. Its errors are raised
// on errh, as MPI says. Every session provides MPI_THREAD_MULTIPLE,
// whatever info's thread_level asks for.
//
//export PMPI_Session_init
func PMPI_Session_init(info, errh int32, out *int32) (rc int32) {
	const fn = "MPI_Session_init"
	defer guard(fn, &rc)
	if !validErrhandler(errh) {
		return fail(fn, nil, commWorld, errorf(errArg, "invalid error handler %#x", uint32(errh)))
	}
	if _, ok := lookupInfo(info); !ok && info != infoNull {
		return raise(fn, errh, sessionNull, errorf(errInfo, "invalid info %#x", uint32(info)))
	}
	if err := enterSession(); err != nil {
		return raise(fn, errh, sessionNull, err)
	}
	s := &sessionObj{}
	s.errh.Store(errh)
	h, ok := sessions.add(s)
	if !ok {
		err := errorf(errNoMem, "too many sessions")
		if lerr := leaveSession(); lerr != nil {
			err = lerr
		}
		return raise(fn, errh, sessionNull, err)
	}
	*out = h
	return errSuccess
}

// PMPI_Session_finalize implements MPI_Session_finalize: the runtime
// ends with the last session unless MPI_Init's world model still uses it.
//
//export PMPI_Session_finalize
func PMPI_Session_finalize(h *int32) (rc int32) {
	const fn = "MPI_Session_finalize"
	defer guard(fn, &rc)
	return onSession(fn, *h, func(s *sessionObj) error {
		if _, ok := sessions.remove(*h); !ok {
			return errorf(errSession, "session %#x finalized twice", uint32(*h))
		}
		*h = sessionNull
		return leaveSession()
	})
}

// PMPI_Session_get_num_psets implements MPI_Session_get_num_psets.
//
//export PMPI_Session_get_num_psets
func PMPI_Session_get_num_psets(h, info int32, n *int32) (rc int32) {
	const fn = "MPI_Session_get_num_psets"
	defer guard(fn, &rc)
	return onSession(fn, h, func(*sessionObj) error {
		*n = int32(len(psets))
		return nil
	})
}

// PMPI_Session_get_nth_pset implements MPI_Session_get_nth_pset: with
// *plen 0 it stores the length of the n-th name with its terminating
// NUL there, else the name, cut to *plen-1 bytes, at name.
//
//export PMPI_Session_get_nth_pset
func PMPI_Session_get_nth_pset(h, info, n int32, plen *int32, name unsafe.Pointer) (rc int32) {
	const fn = "MPI_Session_get_nth_pset"
	defer guard(fn, &rc)
	return onSession(fn, h, func(*sessionObj) error {
		switch {
		case n < 0 || int(n) >= len(psets):
			return errorf(errArg, "process set %d of %d", n, len(psets))
		case *plen < 0:
			return errorf(errArg, "negative name length %d", *plen)
		case *plen == 0:
			*plen = int32(len(psets[n]) + 1)
		default:
			cString(name, int(*plen), psets[n], nil)
		}
		return nil
	})
}

// PMPI_Session_get_info implements MPI_Session_get_info: the thread
// level, MPI_THREAD_MULTIPLE.
//
//export PMPI_Session_get_info
func PMPI_Session_get_info(h int32, out *int32) (rc int32) {
	const fn = "MPI_Session_get_info"
	defer guard(fn, &rc)
	return onSession(fn, h, func(*sessionObj) error {
		io := newInfo()
		io.set(threadLevelKey, threadMultName)
		return storeInfo(io, out)
	})
}

// PMPI_Session_get_pset_info implements MPI_Session_get_pset_info: the
// process set's size, mpi_size.
//
//export PMPI_Session_get_pset_info
func PMPI_Session_get_pset_info(h int32, name *C.char, out *int32) (rc int32) {
	const fn = "MPI_Session_get_pset_info"
	defer guard(fn, &rc)
	return onSession(fn, h, func(*sessionObj) error {
		g, err := psetGroup(C.GoString(name))
		if err != nil {
			return err
		}
		io := newInfo()
		io.set(psetSizeKey, strconv.Itoa(g.Size()))
		return storeInfo(io, out)
	})
}

// PMPI_Group_from_session_pset implements MPI_Group_from_session_pset.
//
//export PMPI_Group_from_session_pset
func PMPI_Group_from_session_pset(h int32, name *C.char, out *int32) (rc int32) {
	const fn = "MPI_Group_from_session_pset"
	defer guard(fn, &rc)
	return onSession(fn, h, func(*sessionObj) error {
		g, err := psetGroup(C.GoString(name))
		if err != nil {
			return err
		}
		gh, ok := addGroup(g)
		if !ok {
			return errorf(errNoMem, "too many groups")
		}
		*out = gh
		return nil
	})
}

// PMPI_Session_set_errhandler implements MPI_Session_set_errhandler.
//
//export PMPI_Session_set_errhandler
func PMPI_Session_set_errhandler(h, errh int32) (rc int32) {
	const fn = "MPI_Session_set_errhandler"
	defer guard(fn, &rc)
	return onSession(fn, h, func(s *sessionObj) error {
		if !validErrhandler(errh) {
			return errorf(errArg, "invalid error handler %#x", uint32(errh))
		}
		s.errh.Store(errh)
		return nil
	})
}

// PMPI_Session_get_errhandler implements MPI_Session_get_errhandler.
//
//export PMPI_Session_get_errhandler
func PMPI_Session_get_errhandler(h int32, errh *int32) (rc int32) {
	const fn = "MPI_Session_get_errhandler"
	defer guard(fn, &rc)
	return onSession(fn, h, func(s *sessionObj) error {
		*errh = s.errh.Load()
		return nil
	})
}

// PMPI_Session_call_errhandler implements MPI_Session_call_errhandler.
//
//export PMPI_Session_call_errhandler
func PMPI_Session_call_errhandler(h, code int32) (rc int32) {
	const fn = "MPI_Session_call_errhandler"
	defer guard(fn, &rc)
	return onSession(fn, h, func(s *sessionObj) error {
		handleWith(fn, s.errh.Load(), h, code)
		return nil
	})
}

// PMPI_Session_create_errhandler implements
// MPI_Session_create_errhandler: an MPI_Session_errhandler_function is
// called as a communicator's handler is, with the handle's address and
// the code's.
//
//export PMPI_Session_create_errhandler
func PMPI_Session_create_errhandler(fn uintptr, errh *int32) int32 {
	return PMPI_Comm_create_errhandler(fn, errh)
}
