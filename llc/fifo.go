package llc

// fifo is a queue that reuses its storage, so that steady-state traffic
// does not allocate. Its live elements are q[h : h+n].
type fifo[T any] struct {
	q    []T
	h, n int
}

func (f *fifo[T]) push(x T) {
	if f.h+f.n == len(f.q) {
		if f.h > 0 {
			copy(f.q, f.q[f.h:f.h+f.n])
			clear(f.q[f.n:])
			f.h = 0
		}
		if f.n == len(f.q) {
			var zero T
			f.q = append(f.q, zero)
			f.q = f.q[:cap(f.q)]
		}
	}
	f.q[f.h+f.n] = x
	f.n++
}

// front returns the oldest element; the queue must not be empty.
func (f *fifo[T]) front() *T { return &f.q[f.h] }

// at returns the i-th oldest element.
func (f *fifo[T]) at(i int) *T { return &f.q[f.h+i] }

// pop removes the oldest element; the queue must not be empty.
func (f *fifo[T]) pop() {
	var zero T
	f.q[f.h] = zero
	f.h++
	f.n--
	if f.n == 0 {
		f.h = 0
	}
}

// freeList recycles values of T, so that blocking calls do not allocate.
type freeList[T any] struct{ items []*T }

func (f *freeList[T]) get() *T {
	if n := len(f.items); n > 0 {
		x := f.items[n-1]
		f.items = f.items[:n-1]
		return x
	}
	return new(T)
}

// put zeroes x and keeps it for a later get.
func (f *freeList[T]) put(x *T) {
	var zero T
	*x = zero
	f.items = append(f.items, x)
}

// keptMax bounds what keep holds: the operations of a burst of
// nonblocking calls beyond it are left to the collector, as a sync.Pool
// leaves them, rather than kept for the process's life.
const keptMax = 64

// keep is put for the operations of nonblocking calls, whose number
// outstanding the program sets: it keeps at most keptMax.
func (f *freeList[T]) keep(x *T) {
	if len(f.items) < keptMax {
		f.put(x)
	}
}
