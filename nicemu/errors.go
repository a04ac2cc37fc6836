package nicemu

import (
	"errors"
	"fmt"
)

// Violation is the kind of a protection or addressing violation that made
// the NIC refuse a request. A refused request is never performed: it is
// counted in Stats, recorded as an error event, and returned as an
// *AccessError.
type Violation int

// The violations the NIC checks for, in the order it checks them.
const (
	ViolationBadProcess Violation = iota + 1 // target PID outside the segment
	ViolationForeignJob                      // target belongs to another PGID
	ViolationBadSID                          // SID not registered at the target
	ViolationOutOfRange                      // offset/length outside the registered region
	ViolationMisaligned                      // atomic on a non 8-byte-aligned address
	ViolationNotSegment                      // atomic on memory outside the segment
	ViolationBadRequest                      // malformed request (bad window, AOTF page, length)
	numViolations
)

func (v Violation) String() string {
	switch v {
	case ViolationBadProcess:
		return "no such process"
	case ViolationForeignJob:
		return "target belongs to another job (PGID mismatch)"
	case ViolationBadSID:
		return "SID not registered"
	case ViolationOutOfRange:
		return "access outside the registered region"
	case ViolationMisaligned:
		return "atomic operation on a misaligned address"
	case ViolationNotSegment:
		return "atomic operation on process-private memory"
	case ViolationBadRequest:
		return "malformed request"
	}
	return fmt.Sprintf("Violation(%d)", int(v))
}

// ErrRefused is matched by errors.Is for every *AccessError.
var ErrRefused = errors.New("nicemu: request refused")

// AccessError reports a request the NIC refused.
type AccessError struct {
	Op        Op        // the operation that was refused
	Violation Violation // why
	Target    int       // target PID
	SID       SID       // target SID (if any)
	Offset    uint64    // target offset
	Length    int       // transfer length
	Detail    string    // extra context
}

func (e *AccessError) Error() string {
	s := fmt.Sprintf("nicemu: %v to PID %d SID %d offset %d length %d refused: %v",
		e.Op, e.Target, e.SID, e.Offset, e.Length, e.Violation)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *AccessError) Is(target error) bool { return target == ErrRefused }
