package npb

import (
	"errors"
	"math"
	"math/cmplx"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

func TestFT(t *testing.T) {
	checkKernel(t, "FT", 'S', 1, 2, 4)
}

// The test kernels FT-2D and FT-X run FT with the 2-D layout that ft.f90
// takes for more processes than z-planes: FT-2D on 2×np/2 processes
// (transposes A and B), FT-X on np×1 (transpose A only), as inputft.data
// can ask.
func init() {
	for _, k := range []struct {
		name string
		np1  func(np int) int
	}{
		{"FT-2D", func(np int) int { return 2 }},
		{"FT-X", func(np int) int { return np }},
	} {
		register(Kernel{
			Name: k.name,
			Run: func(c *mpi.Comm, class Class, o Options) (*Result, error) {
				return ftRun(c, class, o, k.np1(c.Size()))
			},
			Procs:   func(np int) bool { return np >= 2 && PowerOfTwo(np) },
			Classes: []Class{'S', 'W'},
		})
	}
}

func TestFT2D(t *testing.T) {
	checkKernel(t, "FT-2D", 'S', 2, 4)
	checkKernel(t, "FT-X", 'W', 2, 8)
}

// TestFTLayout checks the process grids of ft.f90's setup: 1-D up to nz
// processes, then np1 = nz.
func TestFTLayout(t *testing.T) {
	for _, c := range []struct {
		class           Class
		np, np1, np2    int
		force           int
		wantUnsupported bool
	}{
		{'S', 1, 1, 1, 0, false},
		{'A', 2, 1, 2, 0, false},
		{'A', 128, 1, 128, 0, false},
		{'W', 64, 32, 2, 0, false},
		{'S', 128, 64, 2, 0, false},
		{'A', 4, 2, 2, 2, false},
		{'S', 8192, 0, 0, 0, true},
		{'S', 4, 0, 0, 128, true},
	} {
		p, _ := ftParams(c.class)
		np1, np2, err := ftLayout(p, c.np, c.force)
		if c.wantUnsupported {
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("class %v np=%d force %d: %v, want ErrUnsupported", c.class, c.np, c.force, err)
			}
			continue
		}
		if err != nil || np1 != c.np1 || np2 != c.np2 {
			t.Errorf("class %v np=%d force %d: %dx%d, %v; want %dx%d", c.class, c.np, c.force, np1, np2, err, c.np1, c.np2)
		}
	}
}

// ftLocalGrid makes the grid of class on one process without a
// communicator, for the tests and benchmarks of the local pieces.
func ftLocalGrid(class Class) *ftGrid {
	p, _ := ftParams(class)
	g, err := newFTGrid(nil, p, 1, 0, 0)
	if err != nil {
		panic(err)
	}
	g.computeIndexMap()
	g.computeInitialConditions()
	g.fft.init(max(p.nx, p.ny, p.nz))
	return g
}

// TestFTFFT checks cfftz against a direct DFT, forward and backward
// (unnormalised, exp(+i·2pi·jk/n) for the forward transform as NPB's
// roots give).
func TestFTFFT(t *testing.T) {
	for _, n := range []int{2, 4, 8, 32, 64} {
		f := newFTFFT(64, 64)
		f.init(64)
		in := make([]complex128, ftBlock*n)
		for j := range ftBlock {
			for k := range n {
				in[j*n+k] = complex(math.Sin(float64(3*j+k)), math.Cos(float64(j*k+1)))
			}
		}
		for _, is := range []int{1, -1} {
			lines := append([]complex128(nil), in...)
			f.contiguous(is, lines, n)
			for j := range ftBlock {
				for k := range n {
					var want complex128
					for t := range n {
						want += in[j*n+t] * cmplx.Exp(complex(0, float64(is)*2*math.Pi*float64(t*k)/float64(n)))
					}
					if d := cmplx.Abs(lines[j*n+k] - want); d > 1e-12*float64(n) {
						t.Fatalf("n=%d is=%d line %d element %d: %v, want %v", n, is, j, k, lines[j*n+k], want)
					}
				}
			}
		}
	}
}

// ftRefCfftz is ft.f90's cfftz as written: radix-2 passes of fftz2 on
// the w lines of n = 2^m points in x, alternating between x and y, every
// difference multiplied by its root; the result is left in x.
func ftRefCfftz(is, m, n, w, p int, u, x, y []complex128) {
	fftz2 := func(l int, x, y []complex128) {
		n1, lk, li := n/2, 1<<(l-1), 1<<(m-l)
		for i := range li {
			u1 := u[li+i]
			if is < 1 {
				u1 = cmplx.Conj(u1)
			}
			for k := range lk {
				for j := range w {
					x11, x21 := x[j+p*(i*lk+k)], x[j+p*(i*lk+k+n1)]
					y[j+p*(i*2*lk+k)] = x11 + x21
					y[j+p*(i*2*lk+lk+k)] = u1 * (x11 - x21)
				}
			}
		}
	}
	for l := 1; l <= m; l += 2 {
		fftz2(l, x, y)
		if l == m {
			copy(x, y)
			return
		}
		fftz2(l+1, y, x)
	}
}

// TestFTCfftz checks that the transforms of rows, with paired passes,
// give exactly the values of ft.f90's radix-2 passes, in place or not,
// with the evolution or not.
func TestFTCfftz(t *testing.T) {
	f := newFTFFT(512, 512)
	f.init(512)
	for _, n := range []int{2, 4, 8, 16, 128, 256, 512} {
		for _, width := range []int{ftBlock, 64, 512} {
			m, w := ftLog2(n), ftStridedWidth(n, width)
			data := ftCfftzData(n, width)
			ev := ftCfftzEvolution(n, width)
			for _, is := range []int{1, -1, 0} {
				// is = 0: backward with the evolution.
				want, evolved := ftCfftzWant(&f, is, m, n, w, width, data, ev)
				for _, inPlace := range []bool{false, true} {
					ftCheckCfftz(t, &f, is, n, width, inPlace, data, want, evolved, ev)
				}
			}
		}
	}
}

// ftCfftzData returns lines of width points in rows of width+3, and the
// same as blocks of w lines for ftRefCfftz.
func ftCfftzData(n, width int) []complex128 {
	data := make([]complex128, n*(width+3))
	for i := range data {
		data[i] = complex(math.Sin(float64(i)), math.Cos(float64(3*i+1)))
	}
	return data
}

// ftCfftzRows returns the n rows of width points of d, in rows of width+3.
func ftCfftzRows(d []complex128, n, width int) [][]complex128 {
	r := make([][]complex128, n)
	for e := range r {
		r[e] = d[e*(width+3):][:width]
	}
	return r
}

// ftCfftzEvolution returns an evolution of n lines of width points.
func ftCfftzEvolution(n, width int) *ftEvolution {
	ex := make([]float64, 2*n+width)
	for i := range ex {
		ex[i] = math.Exp(-1e-3 * float64(i))
	}
	ev := &ftEvolution{ex: ex, base: make([]int, n), sq: make([]int, width)}
	for e := range ev.base {
		ev.base[e] = 2 * e
	}
	for i := range ev.sq {
		ev.sq[i] = i
	}
	return ev
}

// ftCfftzWant returns data transformed by ftRefCfftz in blocks of w lines
// (evolved first where is = 0), and data evolved alone.
func ftCfftzWant(f *ftFFT, is, m, n, w, width int, data []complex128, ev *ftEvolution) (want, evolved []complex128) {
	want = append([]complex128(nil), data...)
	if is == 0 {
		for e, row := range ftCfftzRows(want, n, width) {
			for i := range row {
				f := ev.ex[ev.base[e]+ev.sq[i]]
				row[i] = complex(real(row[i])*f, imag(row[i])*f)
			}
		}
	}
	evolved = append([]complex128(nil), want...)
	p := w + 2
	for ii := 0; ii < width; ii += w {
		x := make([]complex128, p*n)
		for e, row := range ftCfftzRows(want, n, width) {
			copy(x[e*p:][:w], row[ii:])
		}
		ftRefCfftz(max(is, -1), m, n, w, p, f.u, x, make([]complex128, p*n))
		for e, row := range ftCfftzRows(want, n, width) {
			copy(row[ii:][:w], x[e*p:])
		}
	}
	return want, evolved
}

// ftCheckCfftz transforms data with f.strided, in place or not, and
// checks the result against want and, out of place, the input against
// evolved.
func ftCheckCfftz(t *testing.T, f *ftFFT, is, n, width int, inPlace bool, data, want, evolved []complex128, ev *ftEvolution) {
	t.Helper()
	in := append([]complex128(nil), data...)
	out := in
	if !inPlace {
		out = make([]complex128, len(data))
	}
	var e *ftEvolution
	if is == 0 {
		e = ev
	}
	f.strided(max(is, -1), n, ftCfftzRows(in, n, width), ftCfftzRows(out, n, width), width, e)
	wr := ftCfftzRows(want, n, width)
	for r, row := range ftCfftzRows(out, n, width) {
		for i := range row {
			if g, v := row[i], wr[r][i]; g != v {
				t.Fatalf("n=%d width=%d is=%d in place %v: element %d of line %d: %v, want %v", n, width, is, inPlace, r, i, g, v)
			}
		}
	}
	if !inPlace {
		for i := range in {
			if in[i] != evolved[i] {
				t.Fatalf("n=%d width=%d is=%d: input element %d %v, want %v", n, width, is, i, in[i], evolved[i])
			}
		}
	}
}

// TestFTContiguous checks that the transforms of contiguous lines give
// exactly the values of ft.f90's cffts1.
func TestFTContiguous(t *testing.T) {
	f := newFTFFT(512, 512)
	f.init(512)
	for _, n := range []int{2, 4, 8, 16, 32, 128, 256, 512} {
		for _, lines := range []int{4, ftBlock, 4 * ftBlock} {
			m := ftLog2(n)
			data := make([]complex128, n*lines)
			for i := range data {
				data[i] = complex(math.Sin(float64(i)), math.Cos(float64(3*i+1)))
			}
			for _, is := range []int{1, -1} {
				got := append([]complex128(nil), data...)
				f.contiguous(is, got, n)
				w := min(ftBlock, lines)
				p := w + 2
				for jj := 0; jj < lines; jj += w {
					x := make([]complex128, p*n)
					for j := range w {
						for e := range n {
							x[j+p*e] = data[(jj+j)*n+e]
						}
					}
					ftRefCfftz(is, m, n, w, p, f.u, x, make([]complex128, p*n))
					for j := range w {
						for e := range n {
							if g, v := got[(jj+j)*n+e], x[j+p*e]; g != v {
								t.Fatalf("n=%d lines=%d is=%d: element %d of line %d: %v, want %v", n, lines, is, e, jj+j, g, v)
							}
						}
					}
				}
			}
		}
	}
}

// TestFTInitialConditions checks the start of every z-plane of the
// initial conditions against NPB's generator run sequentially with its
// double-precision randlc.
func TestFTInitialConditions(t *testing.T) {
	g := ftLocalGrid('S')
	x := float64(Seed)
	plane := 2 * g.nx * g.ny
	for k := range g.nz {
		for i := range plane {
			v := randlcFloat(&x, A)
			if i < 8 {
				c := g.row1(g.u1, 0, k)[i/2]
				got := real(c)
				if i%2 == 1 {
					got = imag(c)
				}
				if got != v {
					t.Fatalf("plane %d number %d: %v, want %v", k, i, got, v)
				}
			}
		}
	}
}

// TestFTMops checks the operation count of class A against ft.f90's
// formula evaluated by hand.
func TestFTMops(t *testing.T) {
	n := 256.0 * 256 * 128
	want := n * (14.8157 + 7.19641*math.Log(n) + (5.23518+7.21113*math.Log(n))*6)
	if got := ftMops(256, 256, 128, 6); math.Abs(got-want) > 1e-6*want {
		t.Fatalf("ftMops = %v, want %v", got, want)
	}
}

// BenchmarkFTIteration measures one iteration (evolution and backward
// 3-D FFT) of class A on one process.
func BenchmarkFTIteration(b *testing.B) {
	g := ftLocalGrid('A')
	if err := g.forward(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := g.evolveInverse(); err != nil {
			b.Fatal(err)
		}
	}
}
