package llc

import (
	"sync/atomic"

	"github.com/rhinet-go/martini/internal/spinwait"
)

// A process that has just written its half of a shared line holds off
// reading the peer's half for a while: its quiet window.
//
// Why: the peer reads the line to find the record, and then, if it
// answers at once, writes its answer into the same line. As long as
// nobody else touches the line in between, the peer's write finds the line
// in its own cache and costs nothing more than a store. A read by this
// process in between takes the line back, and the peer's write must then
// take it away again: measured on the 2-core Intel Xeon VM, that costs the
// answer 60-110 ns more, whenever the peer takes more than about 50 ns to
// answer (BenchmarkLineWork in bench; MPI's path from a message's arrival
// to the reply's store takes 60-70 ns there). A waiter polls every few
// tens of nanoseconds, so it always read the line in between.
//
// The window adapts to the peer's answers: when the first read after the
// window finds the answer already there, the window may have been too
// long, and shrinks by a little (1/32, at least a tick); when the answer comes only at a
// later read (but soon: within quietLate reads), the first read came too
// early, and the window grows by quietGrowNs, up to quietMaxNs. It starts
// at zero, so a peer that does not answer quickly (or one-way traffic)
// costs nothing. A write that finds something unread in the peer's half
// opens no window: what is there is read at once.
//
// The clock is the processor's counter (spinwait.Ticks), a few
// nanoseconds a read; where there is none, there is no window. It is read
// at a write and at the reads that wait, but not while the window is zero
// nor once it has ended: a read that follows its message costs no look at
// the clock.
type lineQuiet struct {
	window  uint64 // ticks between a write and the first read
	since   uint64 // when the write was, in ticks, while holding
	holding bool   // reads wait until since+window
	waiting bool   // an answer to a write is awaited: reads are counted
	reads   int    // reads since the window ended
	grow    uint64 // quietGrowNs in ticks
	max     uint64 // quietMaxNs in ticks
}

const (
	quietGrowNs = 16  // how much a late answer grows the window
	quietMaxNs  = 400 // the longest window
	quietShrink = 5   // an answer found at the first read shrinks the window by window>>quietShrink
	quietLate   = 16  // reads after the window within which an answer counts as one
)

// newLineQuiet returns a window of zero for a process whose counter runs
// perUS ticks a microsecond (none if perUS is 0).
func newLineQuiet(perUS uint64) lineQuiet {
	return lineQuiet{grow: quietGrowNs * perUS / 1000, max: quietMaxNs * perUS / 1000}
}

// written starts the wait for an answer to a write, made now as clock
// tells if the window is not zero.
func (q *lineQuiet) written(clock func() uint64) {
	if q.max == 0 {
		return
	}
	q.waiting, q.reads = true, 0
	if q.window != 0 {
		q.since, q.holding = clock(), true
	}
}

// holds reports whether a read must still wait at now; once it has said
// no, reads do not wait again until the next write. A clock that went
// back (a process moved to a processor whose counter lags) ends the wait.
func (q *lineQuiet) holds(now uint64) bool {
	if now-q.since < q.window {
		return true
	}
	q.holding = false
	return false
}

// read accounts for a read after the window that found something new in
// the peer's half (found) or not, and ends the wait for an answer when it
// found one or has read quietLate times in vain.
func (q *lineQuiet) read(found bool) {
	q.reads++
	switch {
	case found && q.reads == 1:
		q.window -= min(max(q.window>>quietShrink, 1), q.window)
	case found:
		q.window = min(q.window+q.grow, q.max)
	case q.reads < quietLate:
		return
	}
	q.waiting = false
}

// LineWritten tells the local memory that this process has just written
// its half of its shared line with peer (CmdWriteLine): reads of the
// peer's half then keep the quiet window (see lineQuiet). The translator
// calls it after its store.
func (m *LocalMemory) LineWritten(peer int) {
	l := m.line(peer)
	if l == nil {
		return
	}
	// The line is in this processor's cache now: the look costs nothing,
	// and something unread there is read at once.
	if atomic.LoadUint64(word(l.half, lineSig)) != l.seen {
		return
	}
	l.quiet.written(spinwait.Ticks)
}
