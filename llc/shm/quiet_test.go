package shm

import "testing"

// TestQuietWindowAdapts scripts a quiet window's reads on a counter of
// one tick a nanosecond: answers that come late but within the cap of the
// write grow it up to its cap, answers later than that leave it alone,
// answers found at the first read shrink it, reads in vain end the wait
// without changing it, and without a counter there is no window.
func TestQuietWindowAdapts(t *testing.T) {
	q := newQuietWindow(1000)
	if q.grow != quietGrowNs || q.max != quietMaxNs {
		t.Fatalf("steps of %d and %d ticks at 1000 a microsecond, want %d and %d", q.grow, q.max, quietGrowNs, quietMaxNs)
	}
	checkQuietLateAnswers(t, &q)
	checkQuietFirstReadShrinks(t, &q)
	checkQuietReadsInVain(t, &q)
	checkQuietBounds(t, &q)
	none := newQuietWindow(0)
	none.written(quietUnread(t))
	if none.waiting || none.holding {
		t.Fatal("a window without a counter")
	}
}

// quietAt returns a counter that reads now.
func quietAt(now uint64) func() uint64 { return func() uint64 { return now } }

// quietUnread returns a counter that fails the test if it is read.
func quietUnread(t *testing.T) func() uint64 {
	return func() uint64 { t.Fatal("the clock read where it need not be"); return 0 }
}

// checkQuietLateAnswers: an answer late but within the cap grows the
// window of zero; one later than the cap leaves it alone.
func checkQuietLateAnswers(t *testing.T, q *quietWindow) {
	t.Helper()
	at, unread := quietAt, quietUnread(t)
	q.written(at(1000))
	if q.holding || !q.waiting {
		t.Fatalf("a window of zero: holding %v, waiting %v", q.holding, q.waiting)
	}
	q.read(false, unread)
	q.read(true, at(1000+quietMaxNs)) // the answer came at the second read, in time: late
	if q.window != quietGrowNs || q.waiting {
		t.Fatalf("after a late answer: window %d, waiting %v; want %d and no wait", q.window, q.waiting, quietGrowNs)
	}
	q.written(at(1500))
	q.read(false, unread)
	q.read(true, at(1500+quietMaxNs+1)) // too late to count
	if q.window != quietGrowNs || q.waiting {
		t.Fatalf("after an answer later than the cap: window %d, waiting %v; want %d and no wait", q.window, q.waiting, quietGrowNs)
	}
}

// checkQuietFirstReadShrinks: the window ends its length after the write,
// and an answer found at the first read shrinks it.
func checkQuietFirstReadShrinks(t *testing.T, q *quietWindow) {
	t.Helper()
	at, unread := quietAt, quietUnread(t)
	q.written(at(2000))
	if !q.holds(2000+quietGrowNs-1) || !q.holding || q.holds(2000+quietGrowNs) || q.holding {
		t.Fatalf("a window of %d does not end %d ticks after the write", q.window, quietGrowNs)
	}
	q.read(true, unread) // found at the first read: the window may be too long
	if q.window != quietGrowNs-1 {
		t.Fatalf("after an answer at the first read: window %d, want %d", q.window, quietGrowNs-1)
	}
}

// checkQuietReadsInVain: a clock that went back holds nothing, and
// quietLate reads in vain end the wait without changing the window.
func checkQuietReadsInVain(t *testing.T, q *quietWindow) {
	t.Helper()
	at, unread := quietAt, quietUnread(t)
	q.written(at(3000))
	if q.holds(2999) || q.holding {
		t.Fatal("a clock that went back holds the read")
	}
	for range quietLate - 1 {
		q.read(false, unread)
	}
	if !q.waiting {
		t.Fatalf("the wait ended after %d reads in vain, before %d", quietLate-1, quietLate)
	}
	q.read(false, unread)
	if q.waiting || q.window != quietGrowNs-1 {
		t.Fatalf("after %d reads in vain: waiting %v, window %d; want no wait and the window unchanged", quietLate, q.waiting, q.window)
	}
}

// checkQuietBounds: late answers grow the window up to its cap, and
// answers at the first read shrink it to zero.
func checkQuietBounds(t *testing.T, q *quietWindow) {
	t.Helper()
	at, unread := quietAt, quietUnread(t)
	for i := range 100 {
		q.written(at(uint64(4000 + i)))
		q.read(false, unread)
		q.read(true, at(uint64(4100+i)))
	}
	if q.window != quietMaxNs {
		t.Fatalf("after 100 late answers: window %d, want the cap %d", q.window, quietMaxNs)
	}
	for range 1000 {
		q.written(at(9000))
		q.read(true, unread)
	}
	if q.window != 0 {
		t.Fatalf("after 1000 answers at the first read: window %d, want 0", q.window)
	}
}
