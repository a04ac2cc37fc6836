package main

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/rhinet-go/martini/mpi"
)

// classOf maps package mpi's error classes to MPI's.
var classOf = []struct {
	err   error
	class int32
}{
	{mpi.ErrTruncate, errTruncate},
	{mpi.ErrRank, errRank},
	{mpi.ErrTag, errTag},
	{mpi.ErrCount, errCount},
	{mpi.ErrBuffer, errBuffer},
	{mpi.ErrRequest, errRequest},
	{mpi.ErrComm, errComm},
	{mpi.ErrInter, errComm},
	{mpi.ErrRoot, errRoot},
	{mpi.ErrOp, errOp},
	{mpi.ErrDatatype, errType},
	{mpi.ErrTopology, errTopology},
	{mpi.ErrDims, errDims},
	{mpi.ErrColor, errArg},
	{mpi.ErrMismatch, errArg},
	{mpi.ErrWin, errWin},
	{mpi.ErrRMASync, errRMASync},
	{mpi.ErrRMARange, errRMARange},
}

// classError is an error of this library's own with its MPI class.
type classError struct {
	class int32
	msg   string
}

// Error returns the message.
func (e *classError) Error() string { return e.msg }

// errorf returns an error of class with a formatted message.
func errorf(class int32, format string, args ...any) error {
	return &classError{class, fmt.Sprintf(format, args...)}
}

// errorClassOf returns the MPI error class of err.
func errorClassOf(err error) int32 {
	var ce *classError
	if errors.As(err, &ce) {
		return ce.class
	}
	for _, c := range classOf {
		if errors.Is(err, c.err) {
			return c.class
		}
	}
	return errOther
}

// Error codes: the class in the low 8 bits and, above them, a slot of
// codeMessages that keeps the text of the error, so that MPI_Error_string
// tells what happened and not only its class.
const (
	codeClassBits = 8
	codeSlots     = 1024
)

var (
	codeMu       sync.Mutex
	codeNext     int
	codeMessages [codeSlots]string
)

// errorCode returns the code of err: its class and a slot keeping its
// text.
func errorCode(fn string, err error) int32 {
	class := errorClassOf(err)
	codeMu.Lock()
	defer codeMu.Unlock()
	slot := codeNext%codeSlots + 1
	codeNext++
	codeMessages[slot-1] = fn + ": " + err.Error()
	return int32(slot)<<codeClassBits | class
}

// classOfCode returns the class of an error code or class.
func classOfCode(code int32) int32 { return code & (1<<codeClassBits - 1) }

// errorText returns the text of an error code or class.
func errorText(code int32) string {
	if code == errSuccess {
		return "MPI_SUCCESS: no error"
	}
	if s, ok := userErrorString(code); ok {
		return s
	}
	if added(code) {
		return "" // no string set: empty, as MPI_Add_error_string says
	}
	class := classOfCode(code)
	text := className(class)
	if s, ok := userErrorString(class); ok {
		text = s
	}
	if slot := int(code >> codeClassBits); slot > 0 && slot <= codeSlots {
		codeMu.Lock()
		msg := codeMessages[slot-1]
		codeMu.Unlock()
		if msg != "" {
			text += ": " + msg
		}
	}
	return text
}

// classNames are the names of the error classes that this library returns.
var classNames = map[int32]string{
	errBuffer: "MPI_ERR_BUFFER", errCount: "MPI_ERR_COUNT", errType: "MPI_ERR_TYPE",
	errTag: "MPI_ERR_TAG", errComm: "MPI_ERR_COMM", errRank: "MPI_ERR_RANK",
	errRoot: "MPI_ERR_ROOT", errGroup: "MPI_ERR_GROUP", errOp: "MPI_ERR_OP",
	errTopology: "MPI_ERR_TOPOLOGY", errDims: "MPI_ERR_DIMS", errArg: "MPI_ERR_ARG",
	errUnknown: "MPI_ERR_UNKNOWN", errTruncate: "MPI_ERR_TRUNCATE", errOther: "MPI_ERR_OTHER",
	errIntern: "MPI_ERR_INTERN", errInStatus: "MPI_ERR_IN_STATUS", errPending: "MPI_ERR_PENDING",
	errRequest: "MPI_ERR_REQUEST", errInfo: "MPI_ERR_INFO", errInfoNokey: "MPI_ERR_INFO_NOKEY", errNoMem: "MPI_ERR_NO_MEM",
	errUnsupported: "MPI_ERR_UNSUPPORTED_OPERATION", errWin: "MPI_ERR_WIN",
	errKeyval: "MPI_ERR_KEYVAL", errRMASync: "MPI_ERR_RMA_SYNC", errRMARange: "MPI_ERR_RMA_RANGE",
	errSession: "MPI_ERR_SESSION",
}

// className returns the name of an error class.
func className(class int32) string {
	if n, ok := classNames[class]; ok {
		return n
	}
	return fmt.Sprintf("MPI error class %d", class)
}

// fail handles err, an error of the MPI function fn on communicator o (nil
// for none: MPI_COMM_WORLD's handler applies): it returns the error code
// under MPI_ERRORS_RETURN, calls the program's handler, or, under
// MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT, reports the error and aborts
// the job.
func fail(fn string, o *commObj, h int32, err error) int32 {
	if o == nil {
		o = world.Load()
		h = commWorld
	}
	eh := errorsAreFatal
	if o != nil {
		eh = o.errh.Load()
	}
	return raise(fn, eh, h, err)
}

// raise handles err, an error of fn on the object of handle h whose
// error handler is eh (a communicator's, window's or session's), and
// returns its code.
func raise(fn string, eh, h int32, err error) int32 {
	code := errorCode(fn, err)
	handleWith(fn, eh, h, code)
	return code
}

// handleWith handles error code of fn on the object of handle h with
// error handler eh: nothing more under MPI_ERRORS_RETURN, an abort under
// MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT, else a call of the
// program's handler.
func handleWith(fn string, eh, h, code int32) {
	switch eh {
	case errorsReturn:
		return
	case errorsAreFatal, errorsAbort:
		fatal(fn, code)
	}
	if fnp, ok := errhs.get(eh); ok {
		callErrhandler(fnp, h, code)
	}
}

// fatal reports the error code of fn and aborts the job.
func fatal(fn string, code int32) {
	fmt.Fprintf(os.Stderr, "Fatal error in %s: %s\n", fn, errorText(code))
	var c *mpi.Comm
	if w := world.Load(); w != nil {
		c = w.c
	}
	c.Abort(int(classOfCode(code)))
}
