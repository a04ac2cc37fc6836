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
