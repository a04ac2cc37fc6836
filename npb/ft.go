package npb

// FT, the 3-D FFT PDE kernel of NPB 3.4 (FT/ft.f90, FT/ft_data.f90): it
// solves the heat equation du/dt = alpha·∇²u on an nx×ny×nz periodic grid
// spectrally. The initial condition comes from NPB's generator
// (compute_initial_conditions); a forward 3-D FFT takes it to Fourier
// space; every iteration multiplies it by exp(-4·alpha·pi²·|k|²) once more
// (evolve, with the factors of compute_indexmap), transforms it back with
// an inverse 3-D FFT and sums 1024 of its elements (checksum), which are
// compared with the reference checksums of verify.
//
// The 1-D FFTs are NPB's own: the Stockham radix-2 FFT of cfftz/fftz2 with
// the roots of unity of fft_init, done on blocks of lines at a time
// (cffts1/2/3; ft_fft.go). Every 1-D transform sees exactly the values
// NPB's does and does the same operations on them, whatever the process
// count and layout, so the checksums match NPB's to the rounding of their
// final sums. The layouts and transposes are in ft_grid.go.

import (
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "FT", Run: runFT, Procs: PowerOfTwo, ProcsRule: "a power of two", Classes: []Class{'S', 'W', 'A', 'B', 'C'}})
}

const (
	// ftAlpha is the diffusion constant (ft_data.f90: alpha).
	ftAlpha = 1.0e-6
	// ftPi is ft_data.f90's pi.
	ftPi = 3.141592653589793238
	// ftEpsilon is verify's relative tolerance on each checksum.
	ftEpsilon = 1.0e-12
	// ftBlock is the number of x-lines transformed together (ft_data.f90:
	// fftblock_default).
	ftBlock = 16
	// ftPlanePad is the padding after every z-plane of the arrays, in
	// elements (512 bytes).
	ftPlanePad = 32
	// ftChecksumPoints is the number of elements a checksum adds.
	ftChecksumPoints = 1024
)

// ftClassParams are a class's grid, iteration count and the reference
// checksums of verify, one per iteration.
type ftClassParams struct {
	nx, ny, nz, niter int
	ref               []complex128
}

// ftParams returns the parameters of class (npbparams.h from setparams.c,
// and verify in ft.f90), its reference checksums in a slice of their own.
func ftParams(class Class) (ftClassParams, bool) {
	p, ok := ftClasses[class]
	p.ref = slices.Clone(p.ref)
	return p, ok
}

// ftClasses holds each class's grid and iteration count (npbparams.h from
// setparams.c) and its reference checksums (verify in ft.f90), one for
// each iteration.
var ftClasses = map[Class]ftClassParams{
	'S': {64, 64, 64, 6, []complex128{
		complex(5.546087004964e+02, 4.845363331978e+02),
		complex(5.546385409189e+02, 4.865304269511e+02),
		complex(5.546148406171e+02, 4.883910722336e+02),
		complex(5.545423607415e+02, 4.901273169046e+02),
		complex(5.544255039624e+02, 4.917475857993e+02),
		complex(5.542683411902e+02, 4.932597244941e+02),
	}},
	'W': {128, 128, 32, 6, []complex128{
		complex(5.673612178944e+02, 5.293246849175e+02),
		complex(5.631436885271e+02, 5.282149986629e+02),
		complex(5.594024089970e+02, 5.270996558037e+02),
		complex(5.560698047020e+02, 5.260027904925e+02),
		complex(5.530898991250e+02, 5.249400845633e+02),
		complex(5.504159734538e+02, 5.239212247086e+02),
	}},
	'A': {256, 256, 128, 6, []complex128{
		complex(5.046735008193e+02, 5.114047905510e+02),
		complex(5.059412319734e+02, 5.098809666433e+02),
		complex(5.069376896287e+02, 5.098144042213e+02),
		complex(5.077892868474e+02, 5.101336130759e+02),
		complex(5.085233095391e+02, 5.104914655194e+02),
		complex(5.091487099959e+02, 5.107917842803e+02),
	}},
	'B': {512, 256, 256, 20, []complex128{
		complex(5.177643571579e+02, 5.077803458597e+02),
		complex(5.154521291263e+02, 5.088249431599e+02),
		complex(5.146409228649e+02, 5.096208912659e+02),
		complex(5.142378756213e+02, 5.101023387619e+02),
		complex(5.139626667737e+02, 5.103976610617e+02),
		complex(5.137423460082e+02, 5.105948019802e+02),
		complex(5.135547056878e+02, 5.107404165783e+02),
		complex(5.133910925466e+02, 5.108576573661e+02),
		complex(5.132470705390e+02, 5.109577278523e+02),
		complex(5.131197729984e+02, 5.110460304483e+02),
		complex(5.130070319283e+02, 5.111252433800e+02),
		complex(5.129070537032e+02, 5.111968077718e+02),
		complex(5.128182883502e+02, 5.112616233064e+02),
		complex(5.127393733383e+02, 5.113203605551e+02),
		complex(5.126691062020e+02, 5.113735928093e+02),
		complex(5.126064276004e+02, 5.114218460548e+02),
		complex(5.125504076570e+02, 5.114656139760e+02),
		complex(5.125002331720e+02, 5.115053595966e+02),
		complex(5.124551951846e+02, 5.115415130407e+02),
		complex(5.124146770029e+02, 5.115744692211e+02),
	}},
	'C': {512, 512, 512, 20, []complex128{
		complex(5.195078707457e+02, 5.149019699238e+02),
		complex(5.155422171134e+02, 5.127578201997e+02),
		complex(5.144678022222e+02, 5.122251847514e+02),
		complex(5.140150594328e+02, 5.121090289018e+02),
		complex(5.137550426810e+02, 5.121143685824e+02),
		complex(5.135811056728e+02, 5.121496764568e+02),
		complex(5.134569343165e+02, 5.121870921893e+02),
		complex(5.133651975661e+02, 5.122193250322e+02),
		complex(5.132955192805e+02, 5.122454735794e+02),
		complex(5.132410471738e+02, 5.122663649603e+02),
		complex(5.131971141679e+02, 5.122830879827e+02),
		complex(5.131605205716e+02, 5.122965869718e+02),
		complex(5.131290734194e+02, 5.123075927445e+02),
		complex(5.131012720314e+02, 5.123166486553e+02),
		complex(5.130760908195e+02, 5.123241541685e+02),
		complex(5.130528295923e+02, 5.123304037599e+02),
		complex(5.130310107773e+02, 5.123356167976e+02),
		complex(5.130103090133e+02, 5.123399592211e+02),
		complex(5.129905029333e+02, 5.123435588985e+02),
		complex(5.129714421109e+02, 5.123465164008e+02),
	}},
}

// ftMops returns FT's operation count (ft.f90, after the timed part):
// ntotal·(14.8157 + 7.19641·ln ntotal + (5.23518 + 7.21113·ln ntotal)·niter).
// The constants are default (single precision) reals in ft.f90, promoted
// to double in the expression; they are kept so here. Under declared
// computing (mpi.Compute) the set-up and every iteration declare it over
// the process's points: c1 per point for the initial conditions, c2·ln d
// per point for each forward pass of d-point transforms, c3 per point for
// the evolution and c4·ln d for each inverse pass, which at one process
// adds up to ftMops.
func ftMops(nx, ny, nz, niter int) float64 {
	n := float64(nx) * float64(ny) * float64(nz)
	return n * (ftC1 + ftC2*math.Log(n) + (ftC3+ftC4*math.Log(n))*float64(niter))
}

// The constants of ftMops.
var (
	ftC1, ftC2 = float64(float32(14.8157)), float64(float32(7.19641))
	ftC3, ftC4 = float64(float32(5.23518)), float64(float32(7.21113))
)

// runFT runs FT of class on the processes of c.
func runFT(c *mpi.Comm, class Class, o Options) (*Result, error) {
	return ftRun(c, class, o, 0)
}

// ftRun runs FT of class on the processes of c, with ft.f90's process
// grid or, if np1 > 0, with np1 rows (as inputft.data can ask).
func ftRun(c *mpi.Comm, class Class, o Options, np1 int) (*Result, error) {
	p, ok := ftParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: ft: class %v: %w", class, ErrUnsupported)
	}
	g, err := newFTGrid(c, p, c.Size(), c.Rank(), np1)
	if err != nil {
		return nil, err
	}

	// Run the set-up and forward transform once untimed, so that all the
	// data is touched (ft.f90 does the same before its timed part).
	if err := g.setup(); err != nil {
		return nil, err
	}
	if err := mpi.Barrier(c); err != nil {
		return nil, fmt.Errorf("npb: ft: %w", err)
	}

	chk, secs, err := ftTimed(c, g, p, o)
	if err != nil {
		return nil, err
	}
	// Released on success only: on an error, some processes might never
	// come to the collective Free.
	if err := g.free(); err != nil {
		return nil, err
	}
	r := &Result{
		Kernel:     "FT",
		Class:      class,
		Size:       fmt.Sprintf("%dx%dx%d", p.nx, p.ny, p.nz),
		Iterations: p.niter,
		NP:         g.np,
		Seconds:    secs,
		Mops:       Mops(ftMops(p.nx, p.ny, p.nz, p.niter), secs),
		Operation:  "floating point",
		Verified:   chk.verified,
	}
	if g.rank != 0 {
		return r, nil
	}
	r.Detail = ftReport(g, p, chk)
	return r, nil
}

// ftChecks are the checksums of a run, one per iteration, and (on rank 0)
// their relative errors against the class's reference checksums and
// whether all of them are within ftEpsilon.
type ftChecks struct {
	sums     []complex128
	errs     []float64
	verified bool
}

// ftTimed is ft.f90's timed part, everything from the set-up to the
// verification: the set-up and forward transform, niter evolutions each
// with its inverse transform and checksum, and the comparison of the
// checksums with the reference (on rank 0). It returns the checksums and
// the largest time over the processes.
func ftTimed(c *mpi.Comm, g *ftGrid, p ftClassParams, o Options) (*ftChecks, float64, error) {
	start := mpi.Wtime() // NPB times with MPI_Wtime: virtual time under -clock virtual
	if err := g.setup(); err != nil {
		return nil, 0, err
	}
	var err error
	sums := make([]complex128, p.niter)
	for it := range p.niter {
		if err := g.evolveInverse(); err != nil {
			return nil, 0, err
		}
		if sums[it], err = g.checksum(c); err != nil {
			return nil, 0, err
		}
	}
	if o.Corrupt {
		for i := range sums {
			sums[i] *= 1 + 1e-6
		}
	}
	var verified bool
	errs := make([]float64, p.niter)
	if g.rank == 0 {
		verified = true
		for i, s := range sums {
			errs[i] = cmplx.Abs((s - p.ref[i]) / p.ref[i])
			if math.IsNaN(errs[i]) || errs[i] > ftEpsilon {
				verified = false
			}
		}
	}
	elapsed := []float64{mpi.Wtime() - start}

	tm := make([]float64, 1)
	if err := mpi.Allreduce(c, elapsed, tm, mpi.Max); err != nil {
		return nil, 0, fmt.Errorf("npb: ft: %w", err)
	}
	return &ftChecks{sums: sums, errs: errs, verified: verified}, tm[0], nil
}

// ftReport returns rank 0's report of a run on g: the process grid and
// layout, the checksums, and their comparison with the reference.
func ftReport(g *ftGrid, p ftClassParams, chk *ftChecks) string {
	var b strings.Builder
	layout := "2D"
	switch {
	case g.np == 1:
		layout = "0D"
	case g.np1 == 1:
		layout = "1D"
	}
	fmt.Fprintf(&b, " FT Benchmark Results:\n\n")
	fmt.Fprintf(&b, " Processor array : %4dx%4d\n", g.np1, g.np2)
	fmt.Fprintf(&b, " Layout type     : %s\n\n", layout)
	for i, s := range chk.sums {
		fmt.Fprintf(&b, " T =%5d     Checksum =%22.12E%22.12E\n", i+1, real(s), imag(s))
	}
	fmt.Fprintf(&b, "\n Verification values (epsilon %.1E):\n", ftEpsilon)
	for i, s := range chk.sums {
		fmt.Fprintf(&b, " %3d: computed (%19.12E, %19.12E)  reference (%19.12E, %19.12E)  error %.3E\n",
			i+1, real(s), imag(s), real(p.ref[i]), imag(p.ref[i]), chk.errs[i])
	}
	if chk.verified {
		fmt.Fprintf(&b, " Result verification successful\n")
	} else {
		fmt.Fprintf(&b, " Result verification failed\n")
	}
	return b.String()
}
