package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// errHeld tells QueueReader.Poll that the next record is held back (see
// OnArrival).
var errHeld = errors.New("shm: record held back")

// QueueReader reads a receive queue kept in memory (layout in ir.go) and
// delivers its records.
type QueueReader struct {
	produced *uint64 // written by the network
	data     []byte  // the record space
	size     uint64
	consumed uint64
	procs    int
	release  func(consumed uint64) error
	arrived  func(off uint64, n int) bool
	ev       llc.Event // the event of every record, refilled (see llc.Sink)
}

// OnArrival makes Poll call f with the place of every record it finds (n
// bytes at off of the queue's memory) before delivering it, and deliver it
// and the records after it only if f reports true (else Poll looks again
// next time): a network in virtual time learns there when the record
// arrived, and holds back records that arrived in the process's future.
func (q *QueueReader) OnArrival(f func(off uint64, n int) bool) { q.arrived = f }

// NewQueueReader returns the reader of the queue in mem (llc.QueueHeader
// bytes, then a power-of-two record space) of a job of procs processes;
// release tells the network how far the queue was consumed.
func NewQueueReader(mem []byte, procs int, release func(consumed uint64) error) (*QueueReader, error) {
	size := len(mem) - llc.QueueHeader
	if size <= 0 || size&(size-1) != 0 {
		return nil, fmt.Errorf("shm: receive queue of %d bytes: the record space must be a power of two", len(mem))
	}
	return &QueueReader{produced: layout.Word(mem, 0), data: mem[llc.QueueHeader:], size: uint64(size), procs: procs, release: release}, nil
}

// Poll delivers the records that arrived, in order, then releases their
// space; it reports whether there were any. A corrupt queue is delivered
// as an llc.EvError.
func (q *QueueReader) Poll(sink llc.Sink) bool {
	start := q.consumed
	produced := atomic.LoadUint64(q.produced)
	for q.consumed < produced {
		record, err := q.next(sink, produced)
		if err == errHeld {
			break
		} else if err != nil {
			sink.Step(&llc.Event{Kind: llc.EvError, Err: err})
			return true
		}
		if record && q.arrived != nil {
			// In virtual time one record a poll: the host work of taking
			// it is charged after the poll, before the next record is
			// taken, so that the clock does not depend on how many
			// records had landed (in real time) when the poll began.
			break
		}
	}
	if q.consumed == start {
		return false
	}
	if err := q.release(q.consumed); err != nil {
		sink.Step(&llc.Event{Kind: llc.EvError, Err: fmt.Errorf("releasing the receive queue: %w", err)})
	}
	return true
}

// next delivers the record (or skips the wrap marker) at the consumer
// position; it reports whether it delivered a record.
func (q *QueueReader) next(sink llc.Sink, produced uint64) (bool, error) {
	pos := q.consumed & (q.size - 1)
	length := binary.LittleEndian.Uint32(q.data[pos:])
	if length == llc.QueueWrap {
		if q.size-pos > produced-q.consumed {
			return false, fmt.Errorf("corrupt receive queue: wrap marker at %d beyond the %d bytes produced", q.consumed, produced)
		}
		// The marker comes with the record after it (produced counts
		// both once that record is in): skip it only when that record
		// may be taken too, so that how far the queue is released never
		// depends on whether the record had landed.
		if q.arrived != nil && !q.arrived(llc.QueueHeader, int(llc.QueueSpan(int(binary.LittleEndian.Uint32(q.data))))) {
			return false, errHeld
		}
		q.consumed += q.size - pos
		return false, nil
	}
	src := binary.LittleEndian.Uint32(q.data[pos+4:])
	span := llc.QueueSpan(int(length))
	if length < layout.RecMeta || length > llc.MaxQueueRecord || pos+span > q.size || span > produced-q.consumed || src >= uint32(q.procs) {
		return false, fmt.Errorf("corrupt receive queue record at %d: %d bytes from process %d (%d bytes produced, %d consumed)",
			q.consumed, length, src, produced, q.consumed)
	}
	rec := q.data[pos+llc.QueueRecordHeader : pos+llc.QueueRecordHeader+uint64(length)]
	if q.arrived != nil && !q.arrived(llc.QueueHeader+pos, int(span)) {
		return false, errHeld
	}
	q.consumed += span
	q.ev.Kind, q.ev.Peer, q.ev.Head, q.ev.Data = llc.EvRecord, int(src), rec[:layout.RecMeta], rec[layout.RecMeta:]
	sink.Step(&q.ev)
	return true, nil
}
