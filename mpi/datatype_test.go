package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["datatypes"] = scenarioDatatypes
}

// iota returns 0, 1, ..., n-1 as float64.
func iota(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i)
	}
	return s
}

// packAll packs count items of dt from buf, failing the test on error.
func packAll(t *testing.T, buf []float64, count int, dt *mpi.Datatype) []float64 {
	t.Helper()
	out := make([]float64, mpi.PackSize(count, dt))
	n, err := mpi.Pack(buf, count, dt, out)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(out) {
		t.Fatalf("Pack wrote %d elements, want %d", n, len(out))
	}
	return out
}

func TestDatatypeLayouts(t *testing.T) {
	must := func(dt *mpi.Datatype, err error) *mpi.Datatype {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
	// A 4×5 row-major matrix holds 0..19.
	m := iota(20)
	col := must(mpi.Vector(4, 1, 5))
	cases := []struct {
		name           string
		dt             *mpi.Datatype
		count          int
		want           []float64
		size, lb, extn int
	}{
		{"contiguous", must(mpi.Contiguous(3)), 2, []float64{0, 1, 2, 3, 4, 5}, 3, 0, 3},
		{"column", col, 1, []float64{0, 5, 10, 15}, 4, 0, 16},
		// Consecutive columns need the column resized to one element.
		{"columns", must(col.Resized(0, 1)), 2, []float64{0, 5, 10, 15, 1, 6, 11, 16}, 4, 0, 1},
		{"vector of blocks", must(mpi.Vector(2, 2, 5)), 1, []float64{0, 1, 5, 6}, 4, 0, 7},
		{"indexed", must(mpi.Indexed([]int{2, 0, 1}, []int{7, 1, 3})), 1, []float64{7, 8, 3}, 3, 3, 6},
		{"indexed block", must(mpi.IndexedBlock(2, []int{4, 0})), 1, []float64{4, 5, 0, 1}, 4, 0, 6},
		{"subarray C", must(mpi.Subarray([]int{4, 5}, []int{2, 3}, []int{1, 2}, mpi.OrderC)), 1,
			[]float64{7, 8, 9, 12, 13, 14}, 6, 0, 20},
		// As Fortran, the same memory is a 5×4 array with the first index fastest.
		{"subarray Fortran", must(mpi.Subarray([]int{5, 4}, []int{3, 2}, []int{2, 1}, mpi.OrderFortran)), 1,
			[]float64{7, 8, 9, 12, 13, 14}, 6, 0, 20},
		{"vector of vectors", must(must(mpi.Vector(2, 1, 2)).Vector(2, 1, 2)), 1, []float64{0, 2, 6, 8}, 4, 0, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.dt.Size() != c.size || c.dt.LowerBound() != c.lb || c.dt.Extent() != c.extn {
				t.Errorf("size, lb, extent = %d, %d, %d; want %d, %d, %d",
					c.dt.Size(), c.dt.LowerBound(), c.dt.Extent(), c.size, c.lb, c.extn)
			}
			got := packAll(t, m, c.count, c.dt)
			if !slices.Equal(got, c.want) {
				t.Fatalf("packed %v, want %v", got, c.want)
			}
			back := make([]float64, len(m))
			n, err := mpi.Unpack(got, back, c.count, c.dt)
			if err != nil || n != len(got) {
				t.Fatalf("Unpack: %d, %v", n, err)
			}
			if again := packAll(t, back, c.count, c.dt); !slices.Equal(again, c.want) {
				t.Fatalf("unpacked and packed again: %v", again)
			}
		})
	}
}

func TestDatatypeErrors(t *testing.T) {
	col, _ := mpi.Vector(4, 1, 5)
	short := make([]float64, 15)
	if _, err := mpi.Pack(short, 1, col, make([]float64, 4)); !errors.Is(err, mpi.ErrBuffer) {
		t.Errorf("a column past the buffer: %v, want ErrBuffer", err)
	}
	if _, err := mpi.Pack(iota(16), 1, col, make([]float64, 3)); !errors.Is(err, mpi.ErrBuffer) {
		t.Errorf("packing into too small a buffer: %v, want ErrBuffer", err)
	}
	back, _ := mpi.Vector(2, 1, -3)
	if _, err := mpi.Pack(iota(10), 1, back, make([]float64, 2)); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("a negative stride: %v, want ErrDatatype", err)
	}
	if _, err := mpi.Indexed([]int{1}, []int{0, 1}); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("unequal lengths: %v", err)
	}
	if _, err := mpi.Subarray([]int{4, 4}, []int{2, 3}, []int{0, 2}, mpi.OrderC); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("a subarray past the array: %v", err)
	}
	if _, err := mpi.Vector(-1, 1, 1); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("a negative count: %v", err)
	}
	if _, err := mpi.Pack(iota(4), 1, nil, make([]float64, 4)); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("a nil datatype: %v", err)
	}
	// Unpack stops where its input does, within an item.
	cols, _ := col.Resized(0, 1)
	buf := make([]float64, 20)
	if n, err := mpi.Unpack([]float64{1, 2, 3, 4, 5}, buf, 2, cols); err != nil || n != 5 {
		t.Fatalf("short Unpack: %d, %v", n, err)
	}
	if buf[0] != 1 || buf[15] != 4 || buf[1] != 5 || buf[6] != 0 {
		t.Errorf("short Unpack: %v", buf)
	}
}

type particle struct {
	X, Y, Z float64
	ID      int32
	Flags   [3]uint8
	Inner   struct{ W complex64 }
}

func TestStructBytes(t *testing.T) {
	ps := []particle{{X: 1, ID: 7}, {Z: -2, Flags: [3]uint8{1, 2, 3}}}
	b, err := mpi.StructBytes(ps)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * int(unsafe.Sizeof(particle{})); len(b) != want || &b[0] != (*byte)(unsafe.Pointer(&ps[0])) {
		t.Fatalf("%d bytes at %p, want %d aliasing the slice", len(b), &b[0], want)
	}
	type bad struct {
		N    int
		Name string
	}
	if _, err := mpi.StructBytes([]bad{{}}); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("a struct with a string: %v, want ErrDatatype", err)
	}
	if _, err := mpi.StructBytes([]*particle{nil}); !errors.Is(err, mpi.ErrDatatype) {
		t.Errorf("pointers: %v, want ErrDatatype", err)
	}
}

func TestDatatypes(t *testing.T) {
	t.Parallel()
	runAt(t, "datatypes", []int{2, 3, 4, 6})
}

// scenarioDatatypes passes the columns of a matrix around the ring of
// processes with every typed call, a subarray halo, and structs.
func scenarioDatatypes(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	next, prev := (me+1)%n, (me+n-1)%n
	col, err := mpi.Vector(dtRows, 1, dtCols)
	if err != nil {
		return err
	}
	colType, err := col.Resized(0, 1)
	if err != nil {
		return err
	}
	mine := pattern[int64](dtRows*dtCols, me)
	var f failures
	if err := ringColumns(w, colType, mine, next, prev, &f); err != nil {
		return err
	}
	if err := ringColumnAsElements(w, col, mine, next, prev, &f); err != nil {
		return err
	}
	if err := ringColumnTruncated(w, col, mine, next, prev, &f); err != nil {
		return err
	}
	if err := ringStructs(w, next, prev, &f); err != nil {
		return err
	}
	return f.err()
}

// The matrix of scenarioDatatypes: a column of 300 int64 is 2400 B; 40 of
// them are past the eager limit.
const dtRows, dtCols = 300, 40

// checkColumns records a failure where the first count columns of got
// differ from those of the matrix of rank from.
func checkColumns(f *failures, me int, what string, got []int64, from int, count int) {
	src := pattern[int64](dtRows*dtCols, from)
	for r := range dtRows {
		for c := range count {
			if got[r*dtCols+c] != src[r*dtCols+c] {
				f.add("rank %d: %s: element (%d,%d) is %v, want %v", me, what, r, c, got[r*dtCols+c], src[r*dtCols+c])
				return
			}
		}
	}
}

// ringColumns passes 1, 3 and all columns around the ring with IrecvType
// against SendType, then RecvType against IsendType.
func ringColumns(w *mpi.Comm, colType *mpi.Datatype, mine []int64, next, prev int, f *failures) error {
	me := w.Rank()
	for _, count := range []int{1, 3, dtCols} {
		got := make([]int64, dtRows*dtCols)
		rq, err := mpi.IrecvType(w, got, count, colType, prev, count)
		if err != nil {
			return err
		}
		if err := mpi.SendType(w, mine, count, colType, next, count); err != nil {
			return fmt.Errorf("SendType of %d columns: %w", count, err)
		}
		st, err := rq.Wait()
		if err != nil {
			return fmt.Errorf("IrecvType of %d columns: %w", count, err)
		}
		if st.Count != count*dtRows {
			f.add("rank %d: IrecvType of %d columns: Count %d, want %d", me, count, st.Count, count*dtRows)
		}
		checkColumns(f, me, fmt.Sprintf("%d columns, IrecvType", count), got, prev, count)

		got = make([]int64, dtRows*dtCols)
		sq, err := mpi.IsendType(w, mine, count, colType, next, 100+count)
		if err != nil {
			return err
		}
		if _, err := mpi.RecvType(w, got, count, colType, prev, 100+count); err != nil {
			return fmt.Errorf("RecvType of %d columns: %w", count, err)
		}
		if _, err := sq.Wait(); err != nil {
			return err
		}
		checkColumns(f, me, fmt.Sprintf("%d columns, RecvType", count), got, prev, count)
	}
	return nil
}

// ringColumnAsElements checks that a plain Irecv of a typed send gets the
// packed elements.
func ringColumnAsElements(w *mpi.Comm, col *mpi.Datatype, mine []int64, next, prev int, f *failures) error {
	me := w.Rank()
	packed := make([]int64, dtRows)
	rq, err := mpi.Irecv(w, packed, prev, 200)
	if err != nil {
		return err
	}
	if err := mpi.SendType(w, mine, 1, col, next, 200); err != nil {
		return err
	}
	if _, err := rq.Wait(); err != nil {
		return err
	}
	src := pattern[int64](dtRows*dtCols, prev)
	for r := range dtRows {
		if packed[r] != src[r*dtCols] {
			f.add("rank %d: a column received as plain elements: %d is %v, want %v", me, r, packed[r], src[r*dtCols])
			break
		}
	}
	return nil
}

// ringColumnTruncated checks that too small a datatype for the message
// gives truncation, not corruption.
func ringColumnTruncated(w *mpi.Comm, col *mpi.Datatype, mine []int64, next, prev int, f *failures) error {
	small, _ := mpi.Vector(2, 1, dtCols)
	rq, err := mpi.IrecvType(w, make([]int64, dtRows*dtCols), 1, small, prev, 300)
	if err != nil {
		return err
	}
	if err := mpi.SendType(w, mine, 1, col, next, 300); err != nil {
		return err
	}
	if _, err := rq.Wait(); !errors.Is(err, mpi.ErrTruncate) {
		f.add("rank %d: a column into a two-element datatype: %v, want ErrTruncate", w.Rank(), err)
	}
	return nil
}

// ringStructs passes structs both ways round the ring.
func ringStructs(w *mpi.Comm, next, prev int, f *failures) error {
	me := w.Rank()
	ps := make([]particle, 50)
	for i := range ps {
		ps[i] = particle{X: float64(me), Y: float64(i), ID: int32(me*1000 + i), Flags: [3]uint8{uint8(me), 1, 2}}
	}
	in := make([]particle, len(ps))
	sb, err := mpi.StructBytes(ps)
	if err != nil {
		return err
	}
	rb, err := mpi.StructBytes(in)
	if err != nil {
		return err
	}
	if _, err := mpi.Sendrecv(w, sb, next, 400, rb, prev, 400); err != nil {
		return err
	}
	for i, p := range in {
		if p.X != float64(prev) || p.Y != float64(i) || p.ID != int32(prev*1000+i) || p.Flags[0] != uint8(prev) {
			f.add("rank %d: struct %d from %d is %+v", me, i, prev, p)
			break
		}
	}
	return nil
}

func TestDatatypeDupAndTrueExtent(t *testing.T) {
	col := must(mpi.Vector(4, 1, 5))
	cases := []struct {
		name               string
		dt                 *mpi.Datatype
		trueLB, trueExtent int
	}{
		{"element", mpi.Element, 0, 1},
		{"column", col, 0, 16},
		{"column resized", must(col.Resized(-3, 1)), 0, 16},
		{"indexed out of order", must(mpi.Indexed([]int{2, 0, 1}, []int{7, 1, 3})), 3, 6},
		{"subarray", must(mpi.Subarray([]int{4, 5}, []int{2, 3}, []int{1, 2}, mpi.OrderC)), 7, 8},
		{"empty", must(mpi.Contiguous(0)), 0, 0},
	}
	m := iota(40)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if lb, ext := c.dt.TrueLowerBound(), c.dt.TrueExtent(); lb != c.trueLB || ext != c.trueExtent {
				t.Errorf("true lb, extent = %d, %d; want %d, %d", lb, ext, c.trueLB, c.trueExtent)
			}
			d := c.dt.Dup()
			if d == c.dt {
				t.Fatal("Dup returned the same Datatype")
			}
			if d.Size() != c.dt.Size() || d.Extent() != c.dt.Extent() || d.LowerBound() != c.dt.LowerBound() {
				t.Errorf("Dup: size, lb, extent = %d, %d, %d; want %d, %d, %d",
					d.Size(), d.LowerBound(), d.Extent(), c.dt.Size(), c.dt.LowerBound(), c.dt.Extent())
			}
			if c.dt.Size() > 0 {
				if got, want := packAll(t, m, 1, d), packAll(t, m, 1, c.dt); !slices.Equal(got, want) {
					t.Errorf("Dup packs %v, the original %v", got, want)
				}
			}
		})
	}
}
