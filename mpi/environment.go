package mpi

import (
	"errors"
	"fmt"
)

// ThreadLevel is a level of thread support (MPI_THREAD_SINGLE ...
// MPI_THREAD_MULTIPLE).
type ThreadLevel int

// The levels of thread support, in increasing order.
const (
	// ThreadSingle: one thread only (MPI_THREAD_SINGLE).
	ThreadSingle ThreadLevel = iota
	// ThreadFunneled: only the thread that initialized calls MPI
	// (MPI_THREAD_FUNNELED).
	ThreadFunneled
	// ThreadSerialized: one thread at a time calls MPI
	// (MPI_THREAD_SERIALIZED).
	ThreadSerialized
	// ThreadMultiple: any goroutine may call MPI at any time
	// (MPI_THREAD_MULTIPLE).
	ThreadMultiple
)

// String returns the MPI name of the level.
func (l ThreadLevel) String() string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	case ThreadMultiple:
		return "MPI_THREAD_MULTIPLE"
	}
	return fmt.Sprintf("ThreadLevel(%d)", int(l))
}

// providedLevel is the level this implementation provides: every function
// is safe for concurrent use by many goroutines (only the collectives of
// one communicator must not run concurrently, as in MPI).
const providedLevel = ThreadMultiple

// InitThread initializes MPI as Init does and returns the level of thread
// support provided (MPI_Init_thread): always ThreadMultiple, whatever
// required asks for.
func InitThread(required ThreadLevel) (provided ThreadLevel, err error) {
	if err := Init(); err != nil {
		return ThreadSingle, err
	}
	return providedLevel, nil
}

// QueryThread returns the level of thread support provided
// (MPI_Query_thread): ThreadMultiple, between Init and Finalize.
func QueryThread() (ThreadLevel, error) {
	if current.Load() == nil {
		return ThreadSingle, fmt.Errorf("mpi: QueryThread: %w", ErrNotInitialized)
	}
	return providedLevel, nil
}

// GetProcessorName returns the name of the calling process's host
// (MPI_Get_processor_name): the one mpirun -hosts gave it, else the
// machine's host name. The processes that SplitType(CommTypeShared, ...)
// puts together have the same name.
func GetProcessorName() (string, error) {
	s := current.Load()
	if s == nil {
		return "", fmt.Errorf("mpi: GetProcessorName: %w", ErrNotInitialized)
	}
	name, err := s.job.HostName()
	if err != nil {
		return "", fmt.Errorf("mpi: GetProcessorName: %w", err)
	}
	return name, nil
}

// The version of the MPI standard this package follows (MPI_VERSION,
// MPI_SUBVERSION).
const (
	Version    = 3
	Subversion = 1
)

// GetVersion returns the version of the MPI standard this package follows,
// 3.1 (MPI_Get_version). It may be called before Init and after Finalize.
func GetVersion() (version, subversion int) { return Version, Subversion }

// errorClasses are the error classes by their MPI names, most specific
// first.
var errorClasses = []struct {
	err  error
	name string
}{
	{ErrTruncate, "MPI_ERR_TRUNCATE"},
	{ErrRank, "MPI_ERR_RANK"},
	{ErrTag, "MPI_ERR_TAG"},
	{ErrCount, "MPI_ERR_COUNT"},
	{ErrBuffer, "MPI_ERR_BUFFER"},
	{ErrRequest, "MPI_ERR_REQUEST"},
	{ErrComm, "MPI_ERR_COMM"},
	{ErrInter, "MPI_ERR_COMM"},
	{ErrRoot, "MPI_ERR_ROOT"},
	{ErrOp, "MPI_ERR_OP"},
	{ErrDatatype, "MPI_ERR_TYPE"},
	{ErrTopology, "MPI_ERR_TOPOLOGY"},
	{ErrDims, "MPI_ERR_DIMS"},
	{ErrColor, "MPI_ERR_ARG"},
	{ErrMismatch, "MPI_ERR_ARG"},
	{ErrAlgorithm, "MPI_ERR_OTHER"},
	{ErrNoContext, "MPI_ERR_OTHER"},
	{ErrNotInitialized, "MPI_ERR_OTHER"},
	{ErrFinalized, "MPI_ERR_OTHER"},
}

// ErrorClass returns the error of this package that err wraps, which
// errors.Is tells (MPI_Error_class): ErrRank for any invalid rank, and so
// on; nil for nil, and err itself if it wraps none.
func ErrorClass(err error) error {
	if err == nil {
		return nil
	}
	for _, c := range errorClasses {
		if errors.Is(err, c.err) {
			return c.err
		}
	}
	return err
}

// ErrorString returns the MPI name and text of err's class
// (MPI_Error_string), such as "MPI_ERR_RANK: invalid rank";
// "MPI_SUCCESS: no error" for nil, and "MPI_ERR_OTHER: " and err's own
// text for an error of no class. err.Error() has the details.
func ErrorString(err error) string {
	if err == nil {
		return "MPI_SUCCESS: no error"
	}
	for _, c := range errorClasses {
		if errors.Is(err, c.err) {
			return c.name + ": " + c.err.Error()
		}
	}
	return "MPI_ERR_OTHER: " + err.Error()
}
