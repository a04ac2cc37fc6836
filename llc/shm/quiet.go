package shm

import (
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/spinwait"
	"github.com/rhinet-go/martini/llc/layout"
)

// A process that has just written a record to a peer (into the peer's
// ring, or its own half of their shared line) holds off reading what that
// peer writes to it for a while: its quiet window.
//
// Why: the peer reads the record and then, if it answers at once, writes
// its answer where this process polls for it: the same shared line, or
// the next cell of the peer's ring to this process. As long as nobody else
// touches that cache line in between, the peer's write finds it in its own
// cache (a line) or in no other (a ring cell), and costs nothing more than
// a store. A read by this process in between takes the line back, and
// the peer's write must then take it away again, which delays an answer
// that takes the peer more than a few tens of nanoseconds
// (BenchmarkLineWork and BenchmarkLineQuiet in bench measure it). A
// waiter polls every few tens of nanoseconds, so it always read the line
// in between.
//
// The window adapts to the peer's answers: when the first read after the
// window finds the answer already there, the window may have been too
// long, and shrinks by a little (1/32, at least a tick); when the answer
// comes only at a later read, the first read came too early, and the
// window grows by quietGrowNs, up to quietMaxNs. Only an answer that
// comes within quietMaxNs of the write grows it: a peer that answers
// later was not answering at once (it computed, or waited for the
// processor it shares with others), and reads taken from it then cost it
// nothing that matters. The window starts at zero, so a peer that does not
// answer quickly (or one-way traffic) costs nothing. A write that finds
// something unread from the peer opens no window: what is there is read
// at once.
//
// The clock is the processor's counter (spinwait.Ticks), a few
// nanoseconds a read; where there is none, there is no window. It is read
// at a write, at the reads that wait, and at an answer that came late,
// but not at the reads after the window: a read that follows its message
// costs no look at the clock.
type quietWindow struct {
	window  uint64 // ticks between a write and the first read
	since   uint64 // when the write was, in ticks
	holding bool   // reads wait until since+window
	waiting bool   // an answer to a write is awaited: reads are counted
	reads   int    // reads since the window ended
	grow    uint64 // quietGrowNs in ticks
	max     uint64 // quietMaxNs in ticks
}

const (
	quietGrowNs = 16   // how much a late answer grows the window
	quietMaxNs  = 1000 // the longest window
	quietShrink = 5    // an answer found at the first read shrinks the window by window>>quietShrink
	quietLate   = 16   // reads after the window within which an answer counts as one
)

// newQuietWindow returns a window of zero for a process whose counter
// runs perUS ticks a microsecond (none if perUS is 0).
func newQuietWindow(perUS uint64) quietWindow {
	return quietWindow{grow: quietGrowNs * perUS / 1000, max: quietMaxNs * perUS / 1000}
}

// written starts the wait for an answer to a write made now, as clock
// tells.
func (q *quietWindow) written(clock func() uint64) {
	if q.max == 0 {
		return
	}
	q.since, q.waiting, q.holding, q.reads = clock(), true, q.window != 0, 0
}

// holds reports whether a read must still wait at now; once it has said
// no, reads do not wait again until the next write. A clock that went
// back (a process moved to a processor whose counter lags) ends the wait.
func (q *quietWindow) holds(now uint64) bool {
	if now-q.since < q.window {
		return true
	}
	q.holding = false
	return false
}

// read accounts for a read after the window that found something new from
// the peer (found) or not, and ends the wait for an answer when it found
// one or has read quietLate times in vain. clock is read for an answer
// found after the first read.
func (q *quietWindow) read(found bool, clock func() uint64) {
	q.reads++
	switch {
	case found && q.reads == 1:
		q.window -= min(max(q.window>>quietShrink, 1), q.window)
	case found:
		if clock()-q.since <= q.max {
			q.window = min(q.window+q.grow, q.max)
		}
	case q.reads < quietLate:
		return
	}
	q.waiting = false
}

// Wrote tells the local memory that this process has just written a
// record to peer: into peer's ring (a write with a signal word), or its
// own half of their shared line (CmdWriteLine). Reads of what peer writes
// to this process then keep the quiet window (see quietWindow). The
// translator calls it after its store.
func (m *LocalMemory) Wrote(peer int) {
	switch r := at(m.ringOf, peer); {
	case r == nil, r.quiet.max == 0:
	case r.unread():
		r.quiet.holding = false // read at once, even within an earlier write's window
	default:
		r.quiet.written(spinwait.Ticks)
	}
}

// unread reports whether the ring's next record, or a new signal in the
// peer's half of the line, has landed. The line is in this processor's
// cache after a write of its own half, and the ring's next cell is unless
// the peer wrote it: the look costs nothing unless something is there.
func (r *inRing) unread() bool {
	if atomic.LoadUint64(layout.Word(r.data, r.consumed&(r.size-1))) != 0 {
		return true
	}
	return r.line != nil && atomic.LoadUint64(layout.Word(r.line.half, layout.LineSig)) != r.line.seen
}

// HoldReads sets the quiet window of the reads of what peer writes to
// this process to ticks of the processor's counter, until the window
// adapts again: a test holds reads with it, or lets them through.
func (m *LocalMemory) HoldReads(peer int, ticks uint64) {
	if r := at(m.ringOf, peer); r != nil {
		r.quiet.window = ticks
	}
}
