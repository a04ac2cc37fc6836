package npb

import (
	"math"
	"strings"
	"testing"
)

func TestCG(t *testing.T) {
	checkKernel(t, "CG", 'S', 1, 2, 4)
}

// TestCGResidual checks the last line of the iteration table, ||r|| and
// zeta, against NPB3.4-MPI's at the same process count (gfortran -O3 on
// Open MPI): the sums are formed in NPB's order, so the residual norm, a
// difference of nearly equal numbers, matches to all its digits.
func TestCGResidual(t *testing.T) {
	for _, c := range []struct {
		np   int
		want string
	}{
		{1, "       15       0.17741701385524E-14     8.5971775078648\n"},
		{4, "       15       0.21624874436224E-14     8.5971775078648\n"},
	} {
		out, code := runKernel(t, "CG", 'S', c.np, false)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("np=%d: want the line %q in:\n%s", c.np, c.want, out)
		}
	}
}

// TestCGMakea checks the class S matrix blocks against NPB3.4-MPI's makea
// (cg.f90 built with gfortran, with the block's checksums printed after
// makea): the partition, the number of nonzeros, the sum of the row
// pointers, the sum of the values, the sum of value × column and the
// generator state after makea, bit for bit.
func TestCGMakea(t *testing.T) {
	pr, _ := cgClassParams('S')
	checkCGMakeaBlocks(t, pr, append(cgEvenBlocks(), cgUnevenBlocks()...))
	checkCGMakeaFirstRow(t, pr)
}

// cgMakeaBlock is a process's matrix block as NPB makes it: its partition,
// the number of nonzeros, the sum of the row pointers, the sums of the
// values and of value × column, and the generator state after makea.
type cgMakeaBlock struct {
	np, me                               int
	firstrow, lastrow, firstcol, lastcol int
	nnz, rowstrSum                       int
	sum, colSum, tran                    uint64 // float64 bits
}

// cgMakeaTran is the generator state after makea, on every process.
const cgMakeaTran = 0x42C114CC119CE680

// cgEvenBlocks are blocks of 1, 2, 4 and 8 processes.
func cgEvenBlocks() []cgMakeaBlock {
	const tran = cgMakeaTran
	return []cgMakeaBlock{
		{1, 0, 1, 1400, 1, 1400, 78148, 54932084, 0xC0B2BC8F2FA9742D, 0xC14BD198BD3EB1C3, tran},
		{2, 0, 1, 1400, 1, 700, 39163, 27715495, 0xC0A0954DA73501ED, 0xC1283672E68DA2AD, tran},
		{2, 1, 1, 1400, 701, 1400, 38985, 27217990, 0xC0A4E3D0B81DE691, 0xC145C3FC039B48FD, tran},
		{4, 0, 1, 700, 1, 700, 19906, 7044910, 0xC0AF8BB046DBECBC, 0xC135FCD19AB15D16, tran},
		{4, 1, 1, 700, 701, 1400, 19257, 6797567, 0x409DECC53F4DD52B, 0x413E6EA0C2225A52, tran},
		{4, 2, 701, 1400, 1, 700, 19257, 6736386, 0x409DECC53F4DD541, 0x4123C3304ED5173F, tran},
		{4, 3, 701, 1400, 701, 1400, 19728, 6940524, 0xC0B1ED19ABE26894, 0xC1527DA632563B1D, tran},
		{8, 0, 1, 700, 1, 350, 10115, 3616569, 0xC09EAD7B85229F13, 0xC11540A4E5152FDD, tran},
		{8, 3, 1, 700, 1051, 1400, 9714, 3416415, 0x408CEE82E666B8A2, 0x41313F61082A3160, tran},
		{8, 6, 701, 1400, 701, 1050, 9853, 3543966, 0xC0A19785BDEF911C, 0xC13E2B59CCF249D9, tran},
	}
}

// cgUnevenBlocks: 1400 is not a multiple of 16 process columns: NPB's
// uneven split.
func cgUnevenBlocks() []cgMakeaBlock {
	const tran = cgMakeaTran
	return []cgMakeaBlock{
		{128, 0, 1, 175, 1, 88, 686, 64653, 0xC085A3BD73CE64F5, 0xC0DE2EC7DDDC2ED4, tran},
		{128, 1, 1, 175, 89, 175, 663, 55535, 0xC085D7842335D758, 0xC0F683C9601380BD, tran},
		{128, 17, 176, 350, 89, 175, 599, 51246, 0x4050369567DEBFFF, 0x40C07158183A9772, tran},
		{128, 38, 351, 525, 526, 613, 553, 49444, 0x404E46FF5A63033D, 0x40E0E149F360460B, tran},
	}
}

// checkCGMakeaBlocks checks each block's partition, and makea's block
// checksums, against NPB's.
func checkCGMakeaBlocks(t *testing.T, pr cgParams, blocks []cgMakeaBlock) {
	t.Helper()
	for _, b := range blocks {
		g := cgNewGrid(pr.na, b.np, b.me)
		if g.firstrow != b.firstrow || g.lastrow != b.lastrow || g.firstcol != b.firstcol || g.lastcol != b.lastcol {
			t.Errorf("np=%d rank %d: rows %d-%d, columns %d-%d; NPB: rows %d-%d, columns %d-%d", b.np, b.me,
				g.firstrow, g.lastrow, g.firstcol, g.lastcol, b.firstrow, b.lastrow, b.firstcol, b.lastcol)
			continue
		}
		x := float64(Seed)
		Randlc(&x, A)
		m := cgMakea(pr.na, pr.nonzer, pr.shift, g, &x)
		nrows := g.lastrow - g.firstrow + 1
		rs := nrows + 1 // NPB's row pointers are 1-based
		for _, v := range m.rowstr {
			rs += v
		}
		var sum, colSum float64
		for k, v := range m.a {
			sum += v
			colSum += v * float64(int(m.colidx[k])+g.firstcol)
		}
		if len(m.a) != b.nnz || rs != b.rowstrSum || math.Float64bits(sum) != b.sum ||
			math.Float64bits(colSum) != b.colSum || math.Float64bits(x) != b.tran {
			t.Errorf("np=%d rank %d: nnz %d, Σrowstr %d, Σa %016X, Σa·col %016X, tran %016X; NPB: %d, %d, %016X, %016X, %016X",
				b.np, b.me, len(m.a), rs, math.Float64bits(sum), math.Float64bits(colSum), math.Float64bits(x),
				b.nnz, b.rowstrSum, b.sum, b.colSum, b.tran)
		}
	}
}

// checkCGMakeaFirstRow checks the first nonzeros of row 1 at np = 1, as
// NPB orders them.
func checkCGMakeaFirstRow(t *testing.T, pr cgParams) {
	t.Helper()
	g := cgNewGrid(pr.na, 1, 0)
	x := float64(Seed)
	Randlc(&x, A)
	m := cgMakea(pr.na, pr.nonzer, pr.shift, g, &x)
	cols := []uint32{1327, 37, 1033, 43, 887, 658, 495, 1}
	vals := []uint64{0x3FDBCF61FA2C2C80, 0x3FD9235448762880, 0x3FC9F1B267210100, 0x3FC374E6CC7EB100,
		0x3FDC6D0FF11AB080, 0x3FBD0B1EE68E3200, 0x3FDC61E6053A8880, 0xC021A7A1B2A26F22}
	for k := range cols {
		if m.colidx[k]+1 != cols[k] || math.Float64bits(m.a[k]) != vals[k] {
			t.Errorf("nonzero %d: column %d, value %016X; NPB: %d, %016X", k, m.colidx[k]+1, math.Float64bits(m.a[k]), cols[k], vals[k])
		}
	}
}

// TestCGGrid checks the partition and the communication schedules for
// every power of two up to 1024 processes: each process row's column
// blocks tile 1..na, the send pieces tile the row block, each transpose
// partner's send piece has the length this process receives, and the
// reduction partners agree on the lengths they exchange.
func TestCGGrid(t *testing.T) {
	for _, na := range []int{1400, 7000, 14000, 75000} {
		for np := 1; np <= 1024; np *= 2 {
			gs := make([]*cgGrid, np)
			for me := range np {
				gs[me] = cgNewGrid(na, np, me)
			}
			npcols, nprows := cgProcGrid(np)
			if npcols*nprows != np || (npcols != nprows && npcols != 2*nprows) {
				t.Fatalf("np=%d: grid %d×%d", np, npcols, nprows)
			}
			for row := range nprows {
				next := 1
				for col := range npcols {
					g := gs[row*npcols+col]
					if g.firstcol != next || g.lastcol < g.firstcol {
						t.Fatalf("na=%d np=%d rank %d: columns %d-%d, want from %d", na, np, g.me, g.firstcol, g.lastcol, next)
					}
					next = g.lastcol + 1
				}
				if next != na+1 {
					t.Fatalf("na=%d np=%d process row %d: columns end at %d", na, np, row, next-1)
				}
			}
			for _, g := range gs {
				e := gs[g.exchProc]
				if e.exchProc != g.me || e.sendLen != g.exchRecvLen {
					t.Fatalf("na=%d np=%d rank %d: transpose partner %d (its partner %d) sends %d, receiving %d",
						na, np, g.me, g.exchProc, e.exchProc, e.sendLen, g.exchRecvLen)
				}
				// The transpose partner's send piece is this process's columns.
				if first := e.firstrow + e.sendStart; first != g.firstcol {
					t.Fatalf("na=%d np=%d rank %d: partner sends rows from %d, columns from %d", na, np, g.me, first, g.firstcol)
				}
				for i := range g.l2npcols {
					p := gs[g.reduceExchProc[i]]
					if p.reduceExchProc[i] != g.me || p.reduceSendLens[i] != g.reduceRecvLens[i] {
						t.Fatalf("na=%d np=%d rank %d step %d: partner %d sends %d, receiving %d",
							na, np, g.me, i, p.me, p.reduceSendLens[i], g.reduceRecvLens[i])
					}
				}
			}
		}
	}
}

func TestCGFortranE(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{17.130235054029, " 0.1713023505403E+02"},
		{8.5971775078648, " 0.8597177507865E+01"},
		{5.1e-14, " 0.5100000000000E-13"},
		{0, " 0.0000000000000E+00"},
		{-2.5, "-0.2500000000000E+01"},
	} {
		if got := fortranE(c.v, 13, 20); got != c.want {
			t.Errorf("fortranE(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestCGBlock checks that the product with the interleaved layout gives
// the CSR product, summed in NPB's order, bit for bit.
func TestCGBlock(t *testing.T) {
	for _, class := range []Class{'S', 'W'} {
		pr, _ := cgClassParams(class)
		for _, np := range []int{1, 2, 8} {
			g := cgNewGrid(pr.na, np, np-1)
			x := float64(Seed)
			Randlc(&x, A)
			m := cgMakea(pr.na, pr.nonzer, pr.shift, g, &x)
			p := make([]float64, g.lastcol-g.firstcol+1)
			for i := range p {
				p[i] = 1 + float64(i%97)/7
			}
			for _, b := range []cgProduct{cgNewBlock[uint16](m), cgNewBlock[uint32](m)} {
				w := make([]float64, g.lastrow-g.firstrow+1)
				b.mul(p, w)
				for j := range w {
					sum := 0.0
					for k := m.rowstr[j]; k < m.rowstr[j+1]; k++ {
						sum += m.a[k] * p[m.colidx[k]]
					}
					if w[j] != sum {
						t.Fatalf("class %v np=%d %T row %d: %v, want %v", class, np, b, j, w[j], sum)
					}
				}
			}
		}
	}
}

// BenchmarkCGSpmv times the sparse matrix-vector product on the class A
// block of rank 0 of a job of two (half the columns), the hot loop of
// CG at np = 2.
func BenchmarkCGSpmv(b *testing.B) {
	pr, _ := cgClassParams('A')
	g := cgNewGrid(pr.na, 2, 0)
	tran := float64(Seed)
	Randlc(&tran, A)
	m := cgMakea(pr.na, pr.nonzer, pr.shift, g, &tran)
	ncols := g.lastcol - g.firstcol + 1
	blk := cgNewProduct(m, ncols)
	p := make([]float64, ncols)
	w := make([]float64, g.lastrow-g.firstrow+1)
	cgOnes(p)
	for b.Loop() {
		blk.mul(p, w)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(m.a)), "ns/nonzero")
}
