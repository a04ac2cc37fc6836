package npb

// The update of the solution, the norms and the verification that BT and
// SP share (NPB3.4-MPI BT/add.f90, BT/error.f90, BT/verify.f90; SP's are
// the same but for the reference values).

import (
	"fmt"
	"math"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

// adiEpsilon is verify.f90's tolerance on the relative error of every norm.
const adiEpsilon = 1e-8

// adiAdd adds the update in rhs to u on the points the step updates (add).
func adiAdd(g *adiGrid) {
	for ci := range g.cells {
		c := &g.cells[ci]
		ilo, ihi := c.interior(0)
		jlo, jhi := c.interior(1)
		klo, khi := c.interior(2)
		n := 5 * (ihi - ilo + 1)
		for k := klo; k <= khi; k++ {
			for j := jlo; j <= jhi; j++ {
				u := c.u[c.uAt(ilo, j, k):][:n]
				r := c.rhs[c.rAt(ilo, j, k):][:n]
				for m, v := range r {
					u[m] += v
				}
			}
		}
	}
}

// adiErrorNorm returns the RMS norms of the difference between u and the
// exact solution over the grid (error_norm).
func adiErrorNorm(comm *mpi.Comm, g *adiGrid, k *adiConsts) ([5]float64, error) {
	var sum [5]float64
	for ci := range g.cells {
		c := &g.cells[ci]
		for kk := range c.size[2] {
			zeta := float64(kk+c.low[2]) * k.dir[2].dn
			for jj := range c.size[1] {
				eta := float64(jj+c.low[1]) * k.dir[1].dn
				for ii := range c.size[0] {
					xi := float64(ii+c.low[0]) * k.dir[0].dn
					e := adiExact(xi, eta, zeta)
					u := c.u[c.uAt(ii, jj, kk):][:5]
					for m := range 5 {
						d := u[m] - e[m]
						sum[m] += d * d
					}
				}
			}
		}
	}
	return adiRMS(comm, g, sum)
}

// adiRHSNorm returns the RMS norms of rhs over the points the step updates
// (rhs_norm).
func adiRHSNorm(comm *mpi.Comm, g *adiGrid) ([5]float64, error) {
	var sum [5]float64
	for ci := range g.cells {
		c := &g.cells[ci]
		for kk := c.start[2]; kk < c.size[2]-c.end[2]; kk++ {
			for jj := c.start[1]; jj < c.size[1]-c.end[1]; jj++ {
				for ii := c.start[0]; ii < c.size[0]-c.end[0]; ii++ {
					r := c.rhs[c.rAt(ii, jj, kk):][:5]
					for m := range 5 {
						sum[m] += r[m] * r[m]
					}
				}
			}
		}
	}
	return adiRMS(comm, g, sum)
}

// adiRMS sums the squares over the processes and returns the root mean
// squares, the mean taken over the interior points of the grid.
func adiRMS(comm *mpi.Comm, g *adiGrid, sum [5]float64) ([5]float64, error) {
	var rms [5]float64
	if err := mpi.Allreduce(comm, sum[:], rms[:], mpi.Sum); err != nil {
		return rms, fmt.Errorf("norm: %w", err)
	}
	for m := range rms {
		for d := range 3 {
			rms[m] /= float64(g.gp[d] - 2)
		}
		rms[m] = math.Sqrt(rms[m])
	}
	return rms, nil
}

// adiReference are a class's reference norms of the residual (xcrref) and
// of the error (xceref).
type adiReference struct {
	xcr, xce [5]float64
}

// adiVerify compares the norms with the class's references as verify.f90
// does and writes its report to b.
func adiVerify(b *strings.Builder, class Class, xcr, xce [5]float64, ref adiReference) bool {
	fmt.Fprintf(b, " Verification being performed for class %v\n", class)
	fmt.Fprintf(b, " accuracy setting for epsilon = %s\n", fortranE(adiEpsilon, 13, 20))
	ok := true
	compare := func(title string, got, want [5]float64) {
		b.WriteString(title + "\n")
		for m := range 5 {
			diff := math.Abs((got[m] - want[m]) / want[m])
			lead := "          "
			if !(diff <= adiEpsilon) { // NaN fails
				ok = false
				lead = " FAILURE: "
			}
			fmt.Fprintf(b, "%s%2d%s%s%s\n", lead, m+1, fortranE(got[m], 13, 20), fortranE(want[m], 13, 20), fortranE(diff, 13, 20))
		}
	}
	compare(" Comparison of RMS-norms of residual", xcr, ref.xcr)
	compare(" Comparison of RMS-norms of solution error", xce, ref.xce)
	if ok {
		b.WriteString(" Verification Successful\n")
	} else {
		b.WriteString(" Verification failed\n")
	}
	return ok
}
