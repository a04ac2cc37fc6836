package mpi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["coll-typed"] = scenarioTypedColl
	scenarios["coll-typed-errors"] = scenarioTypedCollErrors
}

// typedSizes are the job sizes of the typed collectives' tests: one
// process, powers of two and not, and 7 ranks on a 2-core machine.
func typedSizes() []int {
	if raceEnabled {
		return []int{1, 2, 3}
	}
	return []int{1, 2, 3, 4, 7}
}

// TestTypedCollectives runs the collectives with derived datatypes and
// Alltoallw for every element type, blocking and nonblocking, in place
// and not, and checks every element received against the sender's
// pattern.
func TestTypedCollectives(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-typed", typedSizes())
}

// TestTypedCollectiveErrors checks the errors of the typed collectives:
// type signatures that differ, buffers too small for their datatypes,
// argument lists of the wrong length.
func TestTypedCollectiveErrors(t *testing.T) {
	t.Parallel()
	runAt(t, "coll-typed-errors", typedSizes())
}

func scenarioTypedColl(w *mpi.Comm) error {
	rounds := []func(w *mpi.Comm, rows int, nonblocking bool) error{
		typedRound[int8], typedRound[int16], typedRound[int32], typedRound[int64], typedRound[int],
		typedRound[uint8], typedRound[uint16], typedRound[uint32], typedRound[uint64], typedRound[uint],
		typedRound[uintptr], typedRound[float32], typedRound[float64], typedRound[complex64], typedRound[complex128],
	}
	for _, nb := range []bool{false, true} {
		for _, f := range rounds {
			if err := f(w, 3, nb); err != nil {
				return err
			}
		}
		// Past the eager limit: rendezvous messages.
		if err := typedRound[float64](w, 1500, nb); err != nil {
			return err
		}
		if err := typedVectors(w, 3, nb); err != nil {
			return fmt.Errorf("nonblocking %v: %w", nb, err)
		}
	}
	return nil
}

// typedCall runs a collective blocking, or its nonblocking form to
// completion.
func typedCall(nonblocking bool, block func() error, start func() (*mpi.Request, error)) error {
	if !nonblocking {
		return block()
	}
	q, err := start()
	if err != nil {
		return err
	}
	_, err = q.Wait()
	return err
}

// must returns dt, or panics: the datatypes of the tests are valid.
func must(dt *mpi.Datatype, err error) *mpi.Datatype {
	if err != nil {
		panic(err)
	}
	return dt
}

// typedRound runs every typed collective on matrices of rows rows of
// element type T.
func typedRound[T mpi.Type](w *mpi.Comm, rows int, nb bool) error {
	name := fmt.Sprintf("%s, %d rows, nonblocking %v", typeName[T](), rows, nb)
	steps := []func(*mpi.Comm, int, bool) error{
		typedBcast[T], typedScatterGather[T], typedColumns[T], typedAlltoall[T], typedAlltoallw[T],
	}
	for _, f := range steps {
		if err := f(w, rows, nb); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// typedBcast broadcasts two items of a stride-2 vector from root; the
// others receive them as plain elements or as the same vector type.
func typedBcast[T mpi.Type](w *mpi.Comm, m int, nb bool) error {
	me, n := w.Rank(), w.Size()
	root := n / 2
	vec := must(mpi.Vector(m, 1, 2)) // extent 2m-1
	src := pattern[T](4*m, 7, m)
	buf := make([]T, 4*m)
	if me == root {
		copy(buf, src)
	}
	want := func(k int) T { // element k of the packed items
		item, j := k/m, k%m
		return src[item*(2*m-1)+2*j]
	}
	if me%2 == 1 && me != root {
		flat := make([]T, 2*m)
		if err := typedCall(nb, func() error { return mpi.BcastType(w, flat, 2*m, mpi.Element, root) },
			func() (*mpi.Request, error) { return mpi.IbcastType(w, flat, 2*m, mpi.Element, root) }); err != nil {
			return err
		}
		for k := range flat {
			if !bitsEqual(flat[k], want(k)) {
				return fmt.Errorf("BcastType as elements: element %d is %v, want %v", k, flat[k], want(k))
			}
		}
		return nil
	}
	if err := typedCall(nb, func() error { return mpi.BcastType(w, buf, 2, vec, root) },
		func() (*mpi.Request, error) { return mpi.IbcastType(w, buf, 2, vec, root) }); err != nil {
		return err
	}
	for k := range 2 * m {
		at := k/m*(2*m-1) + 2*(k%m)
		if !bitsEqual(buf[at], want(k)) {
			return fmt.Errorf("BcastType as a vector: element %d is %v, want %v", at, buf[at], want(k))
		}
	}
	return nil
}

// typedScatterGather scatters the rows×2n matrix of the root, as blocks
// of two columns (a Subarray resized to two elements), to the processes,
// which receive them as 2·rows elements, and gathers them back the same
// way: in a new matrix, and in place.
func typedScatterGather[T mpi.Type](w *mpi.Comm, rows int, nb bool) error {
	me, n := w.Rank(), w.Size()
	root := n - 1
	cols := 2 * n
	block := must(must(mpi.Subarray([]int{rows, cols}, []int{rows, 2}, []int{0, 0}, mpi.OrderC)).Resized(0, 2))
	a := pattern[T](rows*cols, 11, rows)
	var send []T
	if me == root {
		send = a
	}
	mine := make([]T, 2*rows)
	if err := typedCall(nb, func() error { return mpi.ScatterType(w, send, 1, block, mine, 2*rows, mpi.Element, root) },
		func() (*mpi.Request, error) {
			return mpi.IscatterType(w, send, 1, block, mine, 2*rows, mpi.Element, root)
		}); err != nil {
		return err
	}
	for k := range rows {
		for j := range 2 {
			if got, want := mine[2*k+j], a[k*cols+2*me+j]; !bitsEqual(got, want) {
				return fmt.Errorf("ScatterType: element (%d, %d) of the block is %v, want %v", k, j, got, want)
			}
		}
	}
	back := make([]T, rows*cols)
	if err := typedCall(nb, func() error { return mpi.GatherType(w, mine, 2*rows, mpi.Element, back, 1, block, root) },
		func() (*mpi.Request, error) {
			return mpi.IgatherType(w, mine, 2*rows, mpi.Element, back, 1, block, root)
		}); err != nil {
		return err
	}
	if me == root {
		if d := diff(back, a); d != "" {
			return fmt.Errorf("GatherType of the blocks: %s", d)
		}
	}
	return typedInPlace(w, a, block, rows, nb)
}

// typedInPlace scatters and gathers a's blocks in place at the root.
func typedInPlace[T mpi.Type](w *mpi.Comm, a []T, block *mpi.Datatype, rows int, nb bool) error {
	me, n := w.Rank(), w.Size()
	root := 0
	buf := make([]T, len(a))
	if me == root {
		copy(buf, a)
	}
	var recv []T // nil at the root: in place
	if me != root {
		recv = make([]T, 2*rows)
	}
	if err := typedCall(nb, func() error { return mpi.ScatterType(w, buf, 1, block, recv, 2*rows, mpi.Element, root) },
		func() (*mpi.Request, error) {
			return mpi.IscatterType(w, buf, 1, block, recv, 2*rows, mpi.Element, root)
		}); err != nil {
		return fmt.Errorf("ScatterType in place: %w", err)
	}
	if me != root {
		if d := diff(recv, a2block(a, rows, n, me)); d != "" {
			return fmt.Errorf("ScatterType in place: %s", d)
		}
	}
	if me == root {
		clear(buf[2:]) // the other blocks of the first row and the rows below, for the gather to refill
		for k := range rows {
			copy(buf[k*2*n:], a[k*2*n:k*2*n+2])
		}
		recv = nil
	}
	if err := typedCall(nb, func() error { return mpi.GatherType(w, recv, 2*rows, mpi.Element, buf, 1, block, root) },
		func() (*mpi.Request, error) {
			return mpi.IgatherType(w, recv, 2*rows, mpi.Element, buf, 1, block, root)
		}); err != nil {
		return fmt.Errorf("GatherType in place: %w", err)
	}
	if me == root {
		if d := diff(buf, a); d != "" {
			return fmt.Errorf("GatherType in place: %s", d)
		}
	}
	return nil
}

// a2block returns the two columns of block r of the rows×2n matrix a, row
// by row.
func a2block[T mpi.Type](a []T, rows, n, r int) []T {
	out := make([]T, 0, 2*rows)
	for k := range rows {
		out = append(out, a[k*2*n+2*r:k*2*n+2*r+2]...)
	}
	return out
}

// typedColumns gathers every process's vector as column i of a rows×n
// matrix (a column type resized to one element), at a root and at every
// process, then in place.
func typedColumns[T mpi.Type](w *mpi.Comm, rows int, nb bool) error {
	me, n := w.Rank(), w.Size()
	col := must(must(mpi.Vector(rows, 1, n)).Resized(0, 1))
	vec := func(r int) []T { return pattern[T](rows, 13, r, rows) }
	check := func(what string, m []T) error {
		for r := range n {
			v := vec(r)
			for k := range rows {
				if !bitsEqual(m[k*n+r], v[k]) {
					return fmt.Errorf("%s: element (%d, %d) is %v, want %v", what, k, r, m[k*n+r], v[k])
				}
			}
		}
		return nil
	}
	m := make([]T, rows*n)
	root := 1 % n
	if err := typedCall(nb, func() error { return mpi.GatherType(w, vec(me), rows, mpi.Element, m, 1, col, root) },
		func() (*mpi.Request, error) { return mpi.IgatherType(w, vec(me), rows, mpi.Element, m, 1, col, root) }); err != nil {
		return fmt.Errorf("GatherType of columns: %w", err)
	}
	if me == root {
		if err := check("GatherType of columns", m); err != nil {
			return err
		}
	}
	m = make([]T, rows*n)
	if err := typedCall(nb, func() error { return mpi.AllgatherType(w, vec(me), rows, mpi.Element, m, 1, col) },
		func() (*mpi.Request, error) { return mpi.IallgatherType(w, vec(me), rows, mpi.Element, m, 1, col) }); err != nil {
		return fmt.Errorf("AllgatherType of columns: %w", err)
	}
	if err := check("AllgatherType of columns", m); err != nil {
		return err
	}
	m = make([]T, rows*n)
	for k, x := range vec(me) {
		m[k*n+me] = x
	}
	if err := typedCall(nb, func() error { return mpi.AllgatherType(w, nil, 0, nil, m, 1, col) },
		func() (*mpi.Request, error) { return mpi.IallgatherType(w, nil, 0, nil, m, 1, col) }); err != nil {
		return fmt.Errorf("AllgatherType of columns in place: %w", err)
	}
	return check("AllgatherType of columns in place", m)
}

// typedAlltoall transposes by blocks: each process's rows×n matrix sends
// column j to rank j, received as rows elements at recv[i*rows:] from
// rank i; then back again in place, with the column type on the receive
// side.
func typedAlltoall[T mpi.Type](w *mpi.Comm, rows int, nb bool) error {
	me, n := w.Rank(), w.Size()
	col := must(must(mpi.Vector(rows, 1, n)).Resized(0, 1))
	mat := func(r int) []T { return pattern[T](rows*n, 17, r, rows) }
	send := mat(me)
	recv := make([]T, rows*n)
	if err := typedCall(nb, func() error { return mpi.AlltoallType(w, send, 1, col, recv, rows, mpi.Element) },
		func() (*mpi.Request, error) { return mpi.IalltoallType(w, send, 1, col, recv, rows, mpi.Element) }); err != nil {
		return fmt.Errorf("AlltoallType: %w", err)
	}
	for i := range n {
		m := mat(i)
		for k := range rows {
			if got, want := recv[i*rows+k], m[k*n+me]; !bitsEqual(got, want) {
				return fmt.Errorf("AlltoallType: element %d from rank %d is %v, want %v", k, i, got, want)
			}
		}
	}
	// In place, the columns go back: column i of back is rank i's
	// column me, which goes back to rank i, into its column me.
	back := make([]T, rows*n)
	for i := range n {
		for k := range rows {
			back[k*n+i] = recv[i*rows+k]
		}
	}
	if err := typedCall(nb, func() error { return mpi.AlltoallType(w, nil, 0, nil, back, 1, col) },
		func() (*mpi.Request, error) { return mpi.IalltoallType(w, nil, 0, nil, back, 1, col) }); err != nil {
		return fmt.Errorf("AlltoallType in place: %w", err)
	}
	if d := diff(back, send); d != "" {
		return fmt.Errorf("AlltoallType in place: %s", d)
	}
	return nil
}

// typedAlltoallw sends rank j, from every rank, a block of a datatype
// chosen by the pair: plain elements, a stride-2 vector or an indexed
// type; the receiver reads it with another type of the same size.
func typedAlltoallw[T mpi.Type](w *mpi.Comm, m int, nb bool) error {
	me, n := w.Rank(), w.Size()
	kinds := []*mpi.Datatype{
		must(mpi.Contiguous(m)),
		must(mpi.Vector(m, 1, 2)),
		must(mpi.Indexed([]int{1, m - 1}, []int{m, 0})), // the last m-1 first, then one
	}
	// count(i, j): items rank i sends to j; type(i, j, side) for each side.
	count := func(i, j int) int { return (i + 2*j) % 3 }
	kind := func(i, j, side int) *mpi.Datatype { return kinds[(i+j+side)%len(kinds)] }
	span := 3 * 2 * m // room for 2 items of any kind
	src := func(i int) []T { return pattern[T](n*span, 19, i, m) }
	scounts, sdispls, rcounts, rdispls := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	stypes, rtypes := make([]*mpi.Datatype, n), make([]*mpi.Datatype, n)
	for j := range n {
		scounts[j], sdispls[j], stypes[j] = count(me, j), j*span, kind(me, j, 0)
		rcounts[j], rdispls[j], rtypes[j] = count(j, me), (n-1-j)*span, kind(j, me, 1)
	}
	recv := make([]T, n*span)
	if err := typedCall(nb, func() error {
		return mpi.Alltoallw(w, src(me), scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	}, func() (*mpi.Request, error) {
		return mpi.Ialltoallw(w, src(me), scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	}); err != nil {
		return fmt.Errorf("Alltoallw: %w", err)
	}
	for i := range n {
		// What i sent, packed, against what this rank received, packed.
		sent := make([]T, mpi.PackSize(count(i, me), kind(i, me, 0)))
		if _, err := mpi.Pack(src(i)[me*span:], count(i, me), kind(i, me, 0), sent); err != nil {
			return err
		}
		got := make([]T, len(sent))
		if _, err := mpi.Pack(recv[rdispls[i]:], rcounts[i], rtypes[i], got); err != nil {
			return err
		}
		if d := diff(got, sent); d != "" {
			return fmt.Errorf("Alltoallw: the block from rank %d: %s", i, d)
		}
	}
	return typedAlltoallwInPlace[T](w, kinds, span, nb)
}

// typedAlltoallwInPlace swaps blocks in place: block j of rank i, of
// (i+j)%3 items of kinds[(i+j)%3], is exchanged with block i of rank j.
func typedAlltoallwInPlace[T mpi.Type](w *mpi.Comm, kinds []*mpi.Datatype, span int, nb bool) error {
	me, n := w.Rank(), w.Size()
	orig := func(i int) []T { return pattern[T](n*span, 29, i) }
	buf := orig(me)
	counts, displs, types := make([]int, n), make([]int, n), make([]*mpi.Datatype, n)
	for j := range n {
		counts[j], displs[j], types[j] = (me+j)%3, j*span, kinds[(me+j)%3]
	}
	if err := typedCall(nb, func() error {
		return mpi.Alltoallw(w, nil, nil, nil, nil, buf, counts, displs, types)
	}, func() (*mpi.Request, error) {
		return mpi.Ialltoallw(w, nil, nil, nil, nil, buf, counts, displs, types)
	}); err != nil {
		return fmt.Errorf("Alltoallw in place: %w", err)
	}
	for j := range n {
		want := make([]T, mpi.PackSize(counts[j], types[j]))
		if _, err := mpi.Pack(orig(j)[me*span:], counts[j], types[j], want); err != nil {
			return err
		}
		got := make([]T, len(want))
		if _, err := mpi.Pack(buf[j*span:], counts[j], types[j], got); err != nil {
			return err
		}
		if d := diff(got, want); d != "" {
			return fmt.Errorf("Alltoallw in place: the block from rank %d: %s", j, d)
		}
	}
	return nil
}

func scenarioTypedCollErrors(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	col := must(mpi.Vector(4, 1, 2))
	checks := []struct {
		name string
		err  error
		want error
	}{
		{"GatherType whose root's blocks differ", reportedBy(w.Barrier, mpi.GatherType(w, make([]int32, 3), 3, mpi.Element, make([]int32, 4*n), 4, mpi.Element, 0)), mpi.ErrMismatch},
		{"AllgatherType with a receive buffer too small for the datatype", mpi.AllgatherType(w, make([]int32, 4), 4, mpi.Element, make([]int32, 7*n-1), 1, col), mpi.ErrBuffer},
		{"BcastType with counts that differ", reportedBy(w.Barrier, mpi.BcastType(w, make([]float64, 16), 1+me%2, col, 0)), nil},
		{"Alltoallw with a datatype short", mpi.Alltoallw(w, make([]int64, n), make([]int, n), make([]int, n), make([]*mpi.Datatype, n-1),
			make([]int64, n), make([]int, n), make([]int, n), make([]*mpi.Datatype, n)), mpi.ErrCount},
		{"GathervType with a nil datatype at the root", mpi.GathervType(w, make([]int32, 1), 1, mpi.Element, make([]int32, n), ones(n), make([]int, n), nil, 0), nil},
		{"AlltoallvType with a send block outside the buffer", mpi.AlltoallvType(w, make([]int32, n), ones(n), ones(n), col,
			make([]int32, 4*n), ones(n), make([]int, n), mpi.Element), mpi.ErrBuffer},
		{"Alltoallw with a nil datatype", mpi.Alltoallw(w, make([]int64, n), ones(n), make([]int, n), make([]*mpi.Datatype, n),
			make([]int64, n), ones(n), make([]int, n), elements(n)), mpi.ErrDatatype},
		// 2^62 items of extent 4 are 2^64 elements, which wrapped to 0.
		{"AlltoallvType with a receive displacement that overflows", mpi.AlltoallvType(w, make([]int32, 4*n), ones(n), make([]int, n), must(mpi.Contiguous(4)),
			make([]int32, 4*n), ones(n), append([]int{1 << 62}, make([]int, n-1)...), must(mpi.Contiguous(4))), mpi.ErrBuffer},
	}
	for _, c := range checks {
		if c.err == nil && (c.want != nil || n > 1) {
			return fmt.Errorf("%s: no error", c.name)
		}
		if c.want != nil && !errors.Is(c.err, c.want) {
			return fmt.Errorf("%s: %v, want an error wrapping %v", c.name, c.err, c.want)
		}
	}
	if err := alltoallwMismatch(w); err != nil {
		return err
	}
	// The communicator still works.
	sum := []int{0}
	if err := mpi.Allreduce(w, []int{1}, sum, mpi.Sum); err != nil || sum[0] != n {
		return fmt.Errorf("Allreduce after the errors: %v, sum %d", err, sum[0])
	}
	return nil
}

// alltoallwMismatch has rank 0 send rank 1 one element more than rank 1
// receives: rank 1 fails with ErrMismatch.
func alltoallwMismatch(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	if n < 2 {
		return nil
	}
	scounts, rcounts := ones(n), ones(n)
	if me == 0 {
		scounts[1] = 2
	}
	displs := make([]int, n)
	for j := range displs {
		displs[j] = 2 * j
	}
	err := mpi.Alltoallw(w, make([]int16, 2*n), scounts, displs, elements(n), make([]int16, 2*n), rcounts, displs, elements(n))
	if me == 1 && !errors.Is(err, mpi.ErrMismatch) {
		return fmt.Errorf("Alltoallw receiving fewer elements than sent: %v, want ErrMismatch", err)
	}
	if err != nil && !errors.Is(err, mpi.ErrMismatch) {
		return fmt.Errorf("Alltoallw with a mismatch: %v", err)
	}
	return nil
}

// bitsEqual reports whether a and b have the same bits (NaNs included).
func bitsEqual[T mpi.Type](a, b T) bool { return diff([]T{a}, []T{b}) == "" }

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func elements(n int) []*mpi.Datatype {
	s := make([]*mpi.Datatype, n)
	for i := range s {
		s[i] = mpi.Element
	}
	return s
}

// reportedBy returns a collective call's err, or, if the call returned
// none, the error of next, the following collective call, which every
// rank makes: a broadcast, a scatter or a gather that ran ahead of its
// argument check (ranks outnumbering cores) may return before a
// difference shows, and the next call reports it.
func reportedBy(next func() error, err error) error {
	nerr := next()
	if err == nil {
		return nerr
	}
	return err
}
