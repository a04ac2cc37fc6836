package mpi

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
	"golang.org/x/exp/constraints"
)

// Type is the constraint of the element types messages are made of: every
// Go integer, floating-point and complex type (byte included).
type Type interface {
	constraints.Integer | constraints.Float | constraints.Complex
}

// Special ranks and tags.
const (
	// AnySource receives from any rank.
	AnySource = llc.AnySource
	// AnyTag receives any tag.
	AnyTag = llc.AnyTag
	// ProcNull is a rank that sends and receives nothing: operations with
	// it complete at once.
	ProcNull = -2
	// TagUB is the largest valid tag.
	TagUB = math.MaxInt32
	// Undefined is the index Waitany returns when no request is active.
	Undefined = -32766
)

// Errors. Every error a function returns wraps one of these, so that
// errors.Is tells the class; the text names the call and the values.
var (
	ErrNotInitialized = errors.New("mpi: not initialized (call mpi.Init first)")
	ErrRank           = errors.New("invalid rank")
	ErrTag            = errors.New("invalid tag")
	ErrCount          = errors.New("invalid count")
	ErrBuffer         = errors.New("invalid buffer")
	ErrRequest        = errors.New("invalid request")
	// ErrTruncate: the message was longer than the receive buffer.
	ErrTruncate = llc.ErrTruncated
)

// Contexts separate the traffic of communicators: each communicator has a
// context for point-to-point and the next one for its collectives.
const worldContext = 0

// Comm is a communicator: a group of processes and a private context for
// their messages. Its methods are safe for concurrent use.
type Comm struct {
	rt   *runtimeState
	ctx  uint32 // point-to-point context; ctx+1 is for collectives
	rank int
	size int

	barrierMu sync.Mutex
}

func newComm(s *runtimeState, ctx uint32, rank, size int) *Comm {
	return &Comm{rt: s, ctx: ctx, rank: rank, size: size}
}

// Rank returns the calling process's rank in c.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of processes in c.
func (c *Comm) Size() int { return c.size }

// check verifies that c can be used.
func (c *Comm) check(op string) error {
	if c == nil || c.rt == nil {
		return fmt.Errorf("mpi: %s: %w", op, ErrNotInitialized)
	}
	if current.Load() != c.rt {
		return fmt.Errorf("mpi: %s: communicator used after Finalize: %w", op, ErrNotInitialized)
	}
	return nil
}

func (c *Comm) checkDest(op string, dest, tag int) error {
	if err := c.check(op); err != nil {
		return err
	}
	if dest != ProcNull && (dest < 0 || dest >= c.size) {
		return fmt.Errorf("mpi: %s to rank %d: %w (communicator size %d)", op, dest, ErrRank, c.size)
	}
	if tag < 0 || tag > TagUB {
		return fmt.Errorf("mpi: %s with tag %d: %w (valid tags are 0..%d)", op, tag, ErrTag, TagUB)
	}
	return nil
}

func (c *Comm) checkSource(op string, source, tag int) error {
	if err := c.check(op); err != nil {
		return err
	}
	if source != ProcNull && source != AnySource && (source < 0 || source >= c.size) {
		return fmt.Errorf("mpi: %s from rank %d: %w (communicator size %d)", op, source, ErrRank, c.size)
	}
	if tag != AnyTag && (tag < 0 || tag > TagUB) {
		return fmt.Errorf("mpi: %s with tag %d: %w (valid tags are 0..%d or AnyTag)", op, tag, ErrTag, TagUB)
	}
	return nil
}

// asBytes views a slice of elements as its bytes, without copying.
func asBytes[T Type](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*int(unsafe.Sizeof(buf[0])))
}

func sizeOf[T Type]() int {
	var v T
	return int(unsafe.Sizeof(v))
}

// Status describes a received message.
type Status struct {
	Source int // rank of the sender
	Tag    int // tag of the message
	// Count is the number of elements received, of the receive buffer's
	// type; for Probe and Iprobe, which know no type, it is in bytes.
	Count int
	// Bytes is the length of the message in bytes.
	Bytes int
}

// GetCount returns the number of elements of type T a probed message holds.
func GetCount[T Type](st Status) int { return st.Bytes / sizeOf[T]() }

// statusOf converts an engine status for a receive buffer of bufBytes
// bytes and elements of elem bytes: Count is what was received.
func statusOf(st llc.Status, bufBytes, elem int) Status {
	return Status{Source: st.Source, Tag: int(st.Tag), Count: min(st.Len, bufBytes) / elem, Bytes: st.Len}
}

var procNullStatus = Status{Source: ProcNull, Tag: AnyTag}
