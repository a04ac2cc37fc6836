package mpi_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// noPanic runs f, turning a panic into a test failure named what.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s: panic: %v", what, p)
		}
	}()
	f()
}

// TestDatatypeOverflow checks that constructors whose sizes, extents or
// displacements overflow an int fail with ErrDatatype instead of wrapping
// (a subarray of 2^64 elements had extent 0, so that its items aliased)
// or panicking.
func TestDatatypeOverflow(t *testing.T) {
	huge := func() (*mpi.Datatype, error) { return mpi.Element.Resized(0, 1<<62) }
	cases := []struct {
		name string
		make func() (*mpi.Datatype, error)
	}{
		{"Subarray 2^32 x 2^32", func() (*mpi.Datatype, error) {
			return mpi.Subarray([]int{1 << 32, 1 << 32}, []int{1, 1}, []int{0, 0}, mpi.OrderC)
		}},
		{"Subarray 2^62 x 4", func() (*mpi.Datatype, error) {
			return mpi.Subarray([]int{1 << 62, 4}, []int{1, 1}, []int{0, 0}, mpi.OrderFortran)
		}},
		{"Indexed displacement 4 of extent 2^62", func() (*mpi.Datatype, error) {
			dt, err := huge()
			if err != nil {
				return nil, err
			}
			return dt.Indexed([]int{1}, []int{4})
		}},
		{"Vector(MaxInt, 1, 2)", func() (*mpi.Datatype, error) { return mpi.Vector(math.MaxInt, 1, 2) }},
		{"Vector(2^40, 2^40, 2^40)", func() (*mpi.Datatype, error) { return mpi.Vector(1<<40, 1<<40, 1<<40) }},
		{"Contiguous(2) of Contiguous(MaxInt)", func() (*mpi.Datatype, error) {
			return must(mpi.Contiguous(math.MaxInt)).Contiguous(2)
		}},
		{"Vector of a negative stride past MinInt", func() (*mpi.Datatype, error) {
			return mpi.Vector(3, 1, math.MinInt/2)
		}},
		{"IndexedBlock of 2^62-element blocks", func() (*mpi.Datatype, error) {
			return must(mpi.Contiguous(1<<62)).IndexedBlock(4, []int{0})
		}},
		{"Darray of 2^62 x 4", func() (*mpi.Datatype, error) {
			return mpi.Darray(1, 0, []int{1 << 62, 4}, []mpi.Distribution{mpi.DistributeNone, mpi.DistributeNone},
				[]int{mpi.DistributeDefault, mpi.DistributeDefault}, []int{1, 1}, mpi.OrderC)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			noPanic(t, c.name, func() {
				dt, err := c.make()
				if !errors.Is(err, mpi.ErrDatatype) {
					t.Errorf("%v, want ErrDatatype", err)
					if dt != nil {
						t.Errorf("size %d, lb %d, extent %d", dt.Size(), dt.LowerBound(), dt.Extent())
					}
				}
			})
		})
	}
}

// TestDatatypeHugeButValid checks that types whose numbers fit an int are
// accepted with exact bounds, however many elements they describe.
func TestDatatypeHugeButValid(t *testing.T) {
	noPanic(t, "Contiguous(MaxInt)", func() {
		dt, err := mpi.Contiguous(math.MaxInt)
		if err != nil || dt.Size() != math.MaxInt || dt.Extent() != math.MaxInt || dt.TrueExtent() != math.MaxInt {
			t.Fatalf("Contiguous(MaxInt): %v, %v", dt, err)
		}
		if _, err := mpi.Pack(iota(8), 1, dt, make([]float64, 8)); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Pack of Contiguous(MaxInt) from 8 elements: %v, want ErrBuffer", err)
		}
	})
	noPanic(t, "an empty block at MaxInt", func() {
		pairs, err := must(mpi.Contiguous(2)).Indexed([]int{0, 1}, []int{math.MaxInt, 1})
		if err != nil || pairs.Size() != 2 || pairs.LowerBound() != 2 || pairs.Extent() != 2 {
			t.Fatalf("an empty block at MaxInt: %v, %v", pairs, err)
		}
	})
	noPanic(t, "Vector(2^30, 2^30, 2^31)", func() {
		dt, err := mpi.Vector(1<<30, 1<<30, 1<<31)
		if err != nil || dt.Size() != 1<<60 || dt.Extent() != (1<<30-1)*(1<<31)+1<<30 {
			t.Fatalf("Vector(2^30, 2^30, 2^31): %v, %v", dt, err)
		}
	})
}

// TestDatatypeSpanOverflow checks that Pack and Unpack report a type that
// reaches past any buffer with ErrBuffer, where the span check used to
// overflow and let the copy run out of bounds.
func TestDatatypeSpanOverflow(t *testing.T) {
	cases := []struct {
		name  string
		dt    func() (*mpi.Datatype, error)
		count int
	}{
		{"Indexed({1}, {MaxInt})", func() (*mpi.Datatype, error) { return mpi.Indexed([]int{1}, []int{math.MaxInt}) }, 1},
		{"Indexed({1}, {MaxInt-1}) twice", func() (*mpi.Datatype, error) { return mpi.Indexed([]int{1}, []int{math.MaxInt - 1}) }, 2},
		{"2^30 items of Contiguous(2^40)", func() (*mpi.Datatype, error) { return mpi.Contiguous(1 << 40) }, 1 << 30},
		{"MaxInt items of a pair resized to extent 0", func() (*mpi.Datatype, error) {
			return must(mpi.Contiguous(2)).Resized(0, 0)
		}, math.MaxInt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dt, err := c.dt()
			if err != nil {
				t.Fatal(err)
			}
			buf := iota(16)
			noPanic(t, "Pack", func() {
				if _, err := mpi.Pack(buf, c.count, dt, make([]float64, 16)); !errors.Is(err, mpi.ErrBuffer) {
					t.Errorf("Pack: %v, want ErrBuffer", err)
				}
			})
			noPanic(t, "Unpack", func() {
				if _, err := mpi.Unpack(iota(16), buf, c.count, dt); !errors.Is(err, mpi.ErrBuffer) {
					t.Errorf("Unpack: %v, want ErrBuffer", err)
				}
			})
		})
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestDatatypeCompact checks that a type of many blocks costs a few words,
// not a block per item: Contiguous(16<<20) took a gigabyte. Each type is
// tried at a size that a flattened representation survives first, so that
// such a representation fails the test instead of running out of memory.
func TestDatatypeCompact(t *testing.T) {
	const small, bound = 1 << 17, 1 << 20
	cases := []struct {
		name  string
		build func(n int) (*mpi.Datatype, error)
		big   int
	}{
		{"Contiguous", mpi.Contiguous, 16 << 20},
		{"Vector(n, 1, 2)", func(n int) (*mpi.Datatype, error) { return mpi.Vector(n, 1, 2) }, 1 << 30},
		{"Contiguous of a column", func(n int) (*mpi.Datatype, error) {
			return must(must(mpi.Vector(3, 1, 4)).Resized(0, 1)).Contiguous(n)
		}, 1 << 30},
		{"Subarray(n x n)", func(n int) (*mpi.Datatype, error) {
			return mpi.Subarray([]int{n, n}, []int{n - 1, n - 2}, []int{1, 0}, mpi.OrderC)
		}, 1 << 30},
		{"Darray, cyclic", func(n int) (*mpi.Datatype, error) {
			return mpi.Darray(4, 3, []int{n, 2}, []mpi.Distribution{mpi.DistributeCyclic, mpi.DistributeNone},
				[]int{mpi.DistributeDefault, mpi.DistributeDefault}, []int{4, 1}, mpi.OrderFortran)
		}, 1 << 30},
		{"Darray, not distributed", func(n int) (*mpi.Datatype, error) {
			return mpi.Darray(1, 0, []int{n}, []mpi.Distribution{mpi.DistributeNone},
				[]int{mpi.DistributeDefault}, []int{1}, mpi.OrderC)
		}, 1 << 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []int{small, c.big} {
				var err error
				used := allocated(func() { _, err = c.build(n) })
				if err != nil {
					t.Fatalf("%d: %v", n, err)
				}
				if used > bound {
					t.Fatalf("%d allocates %d bytes, want under %d", n, used, bound)
				}
			}
		})
	}
	if t.Failed() {
		return // a flattened Vector(2^30, 1, 2) would not fit in memory
	}
	dt := must(mpi.Vector(1<<30, 1, 2))
	if got := fmt.Sprint(dt.Size(), dt.Extent()); got != fmt.Sprint(1<<30, 1<<31-1) {
		t.Errorf("Vector(2^30, 1, 2): size, extent %s", got)
	}
}

// TestDarrayOneHugeBlock checks a cyclic distribution whose blocks are so
// far apart that each process holds one: the distance to a next block
// that does not exist must not count as an overflow.
func TestDarrayOneHugeBlock(t *testing.T) {
	// 2^20 processes deal out blocks of 2^40 rows of 8: process 0 holds
	// rows 0 to 2^40-1; the next block would be 2^63 elements further.
	dt, err := mpi.Darray(1<<20, 0, []int{1 << 40, 8}, []mpi.Distribution{mpi.DistributeCyclic, mpi.DistributeNone},
		[]int{1 << 40, mpi.DistributeDefault}, []int{1 << 20, 1}, mpi.OrderC)
	if err != nil {
		t.Fatal(err)
	}
	if dt.Size() != 1<<43 || dt.Extent() != 1<<43 || dt.TrueExtent() != 1<<43 {
		t.Errorf("size, extent, true extent = %d, %d, %d; want 2^43 each", dt.Size(), dt.Extent(), dt.TrueExtent())
	}
}
