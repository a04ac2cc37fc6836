package mpi

import "fmt"

// Pack copies count items of dt from buf into out, one after another, and
// returns the number of elements written (MPI_Pack; the position
// argument is a reslice of out). out must hold count·dt.Size() elements.
func Pack[T Type](buf []T, count int, dt *Datatype, out []T) (int, error) {
	if err := dt.check("Pack", count, len(buf)); err != nil {
		return 0, err
	}
	if n := count * dt.size; n > len(out) {
		return 0, fmt.Errorf("mpi: Pack: %w: %d elements into a buffer of %d", ErrBuffer, n, len(out))
	}
	return gather(buf, count, dt, out), nil
}

// Unpack copies the elements of in, one item of dt after another, into
// buf, and returns the number of elements of in it consumed (MPI_Unpack).
// It unpacks count items at most, and stops early, within an item if need
// be, when in runs out.
func Unpack[T Type](in []T, buf []T, count int, dt *Datatype) (int, error) {
	if err := dt.check("Unpack", count, len(buf)); err != nil {
		return 0, err
	}
	return scatter(in, buf, count, dt), nil
}

// PackSize returns the number of elements that count items of dt take
// packed (MPI_Pack_size, in elements).
func PackSize(count int, dt *Datatype) int { return count * dt.size }

// gather copies count items of dt from buf, which check has accepted,
// into out and returns the number of elements copied.
func gather[T any](buf []T, count int, dt *Datatype, out []T) int {
	n := 0
	dt.runs(count, func(runs []run) bool {
		for _, r := range runs {
			n += copy(out[n:n+r.n], buf[r.off:r.off+r.n])
		}
		return true
	})
	return n
}

// scatter copies in into count items of dt in buf, which check has
// accepted, until in runs out, and returns the number of elements copied.
func scatter[T any](in []T, buf []T, count int, dt *Datatype) int {
	n := 0
	if len(in) == 0 {
		return 0
	}
	dt.runs(count, func(runs []run) bool {
		for _, r := range runs {
			if n += copy(buf[r.off:r.off+r.n], in[n:]); n == len(in) {
				return false
			}
		}
		return true
	})
	return n
}
