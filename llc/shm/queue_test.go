package shm

import (
	"encoding/binary"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// testQueue is a receive queue of size bytes of record space, written as
// the network writes it.
type testQueue struct {
	mem      []byte
	reserved uint64
}

func newTestQueue(size int) *testQueue {
	return &testQueue{mem: make([]byte, llc.QueueHeader+size)}
}

func (q *testQueue) space() []byte { return q.mem[llc.QueueHeader:] }

// put appends a record of a body of n bytes from src, wrapping as the
// network does when it does not fit before the end, and publishes it.
// It returns the record's offset in the queue's memory.
func (q *testQueue) put(src, n int) uint64 {
	space := q.space()
	size := uint64(len(space))
	length := layout.RecMeta + n
	span := llc.QueueSpan(length)
	pos := q.reserved % size
	if pos+span > size {
		binary.LittleEndian.PutUint32(space[pos:], llc.QueueWrap)
		q.reserved += size - pos
		pos = 0
	}
	binary.LittleEndian.PutUint32(space[pos:], uint32(length))
	binary.LittleEndian.PutUint32(space[pos+4:], uint32(src))
	space[pos+llc.QueueRecordHeader] = testKind
	q.reserved += span
	*layout.Word(q.mem, 0) = q.reserved
	return llc.QueueHeader + pos
}

// queueSink counts the records a QueueReader delivers.
type queueSink struct {
	records int
	errs    []error
}

func (s *queueSink) Step(ev *llc.Event) {
	switch ev.Kind {
	case llc.EvRecord:
		s.records++
	case llc.EvError:
		s.errs = append(s.errs, ev.Err)
	}
}

// A reader that checks arrivals (virtual time) delivers one record a
// poll, whatever number landed, so that the host work of each is charged
// before the next is taken; without the check it delivers all of them.
func TestQueueReaderOneRecordAPollInVirtualTime(t *testing.T) {
	for _, virtual := range []bool{false, true} {
		q := newTestQueue(4096)
		var released []uint64
		r, err := NewQueueReader(q.mem, 4, func(c uint64) error { released = append(released, c); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if virtual {
			r.OnArrival(func(uint64, int) bool { return true })
		}
		for range 3 {
			q.put(1, 40)
		}
		var sink queueSink
		polls := 0
		for r.Poll(&sink) {
			polls++
		}
		want := 1
		if virtual {
			want = 3
		}
		if sink.records != 3 || polls != want || len(released) != want || released[len(released)-1] != q.reserved {
			t.Errorf("virtual %v: %d records in %d polls, releases %v; want 3 in %d, the last at %d", virtual, sink.records, polls, released, want, q.reserved)
		}
	}
}

// A wrap marker is passed over only with the record after it: while that
// record is held back (it arrived in the process's future), the queue is
// not released past the marker, so that how far it is released does not
// depend on when the record landed.
func TestQueueReaderWrapWaitsForTheRecord(t *testing.T) {
	q := newTestQueue(1024)
	var released []uint64
	r, err := NewQueueReader(q.mem, 4, func(c uint64) error { released = append(released, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	hold := uint64(1 << 62)
	r.OnArrival(func(off uint64, _ int) bool { return off != hold })
	var sink queueSink
	q.put(1, 600)
	if !r.Poll(&sink) || sink.records != 1 {
		t.Fatalf("first record: %d delivered", sink.records)
	}
	hold = q.put(2, 600) // does not fit before the end: wraps to 0
	if hold != llc.QueueHeader {
		t.Fatalf("second record at %d, want a wrap to %d", hold, llc.QueueHeader)
	}
	before := len(released)
	if r.Poll(&sink) || sink.records != 1 || len(released) != before {
		t.Fatalf("held record: delivered %d, released %v", sink.records, released)
	}
	hold = 1 << 62
	if !r.Poll(&sink) || sink.records != 2 || released[len(released)-1] != q.reserved {
		t.Errorf("taken: delivered %d, released %v, want up to %d", sink.records, released, q.reserved)
	}
	if len(sink.errs) != 0 {
		t.Errorf("errors: %v", sink.errs)
	}
}
