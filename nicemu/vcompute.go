package nicemu

import (
	"sync/atomic"
	"time"
)

// Computing is what a virtual clock has counted as the bound thread's
// computing: the intervals between a Leave and the next Enter, measured in
// the thread's CPU time (before the host speed scales them).
type Computing struct {
	Intervals int64         // intervals counted
	CPU       time.Duration // their CPU time in all
	Longest   time.Duration // the longest one
}

// computeCount accumulates Computing; the bound thread adds, any goroutine
// reads.
type computeCount struct {
	n, sum, longest atomic.Int64
}

func (k *computeCount) add(d int64) {
	k.n.Add(1)
	k.sum.Add(d)
	if d > k.longest.Load() {
		k.longest.Store(d) // only the bound thread stores
	}
}

// Computing returns what the clock has counted as computing so far.
func (c *Clock) Computing() Computing {
	return Computing{
		Intervals: c.computed.n.Load(),
		CPU:       time.Duration(c.computed.sum.Load()),
		Longest:   time.Duration(c.computed.longest.Load()),
	}
}
