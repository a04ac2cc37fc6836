//go:build amd64 && !purego

package npb

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// adiUseAVX2 says whether BT's and SP's kernels use their AVX2 assembly
// (the right-hand side's terms, SP's line solves, BT's blocks); the tests
// switch it to compare both ways.
var adiUseAVX2 = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2)

// adiAxisVec are the constants of one axis's terms in the layout of
// adiRowAVX2 (adi_rhs_amd64.s, which reads them at fixed offsets).
type adiAxisVec struct {
	dt1  [4]float64 // dt1 of components 0–3
	coef [4]float64 // the flux coefficient of fields 0–3: 0, then con2 or con2·con43 (the normal momentum)
	mask [4]uint64  // all ones in the lane of the normal momentum
	idx  [8]int32   // VPERMPS's indices that broadcast that lane

	dt14, con3, con4, con5, c1, c2, t2, dssp float64
	dt                                       float64 // the factor of the result: dt along z, else 1
	one                                      float64
}

// Offsets that adi_rhs_amd64.s relies on.
var _ = [1]struct{}{}[unsafe.Offsetof(adiAxisVec{}.dt14)-128]
var _ = [1]struct{}{}[unsafe.Offsetof(adiAxisVec{}.one)-200]

// adiRowVecs are the three axes' constants for adiRowAVX2.
type adiRowVecs [3]adiAxisVec

// newAdiRowVecs lays out the constants kc of the three axes for the
// assembly; the z terms are scaled by dt.
func newAdiRowVecs(kc *[3]adiAxisConsts, dt float64) adiRowVecs {
	var v adiRowVecs
	for d := range v {
		k, n := &kc[d], d+1
		a := &v[d]
		copy(a.dt1[:], k.dt1[:4])
		for m := 1; m < 4; m++ {
			a.coef[m] = k.con2
		}
		a.coef[n] = k.con2con43
		a.mask[n] = ^uint64(0)
		for l := range 4 {
			a.idx[2*l], a.idx[2*l+1] = int32(2*n), int32(2*n+1)
		}
		a.dt14, a.con3, a.con4, a.con5 = k.dt1[4], k.con3, k.con4, k.con5
		a.c1, a.c2, a.t2, a.dssp = k.c1, k.c2, k.t2, k.dssp
		a.dt, a.one = 1, 1
	}
	v[2].dt = dt
	return v
}

// adiRowAVX2 adds one axis's terms to the row r of rhs (len(r)/5 points)
// and scales it by k.dt: um2..up2 are the rows of u at −2..+2 along the
// axis, fm, fc, fp the rows of the derived fields at −1..+1, w the first
// point's dissipation weights and wstride the bytes from one point's to
// the next (0: the same for the whole row); end is 8·len(r). Every row
// holds as many points as r.
//
//go:noescape
func adiRowAVX2(r, um2, um, uc, up, up2, fm, fc, fp []float64, w *[5]float64, wstride int, k *adiAxisVec, end int)

// adiRowTerms adds the terms of the three axes to the row r of rhs and
// scales it by dt (adiRowX, adiRowY, adiRowZ), with AVX2 when the CPU has
// it.
func adiRowTerms(r []float64, rows *[3]adiRows, wx [][5]float64, wy, wz *[5]float64, kc *[3]adiAxisConsts, v *adiRowVecs, dt float64) {
	if !adiUseAVX2 || len(r) == 0 {
		adiRowTermsGo(r, rows, wx, wy, wz, kc, dt)
		return
	}
	np := len(r) / 5
	r = r[:5*np]
	wx = wx[:np] // the assembly trusts the lengths: make sure of them
	for d := range rows {
		u, f := &rows[d].u, &rows[d].fields
		w, stride := wy, 0
		switch d {
		case 0:
			w, stride = &wx[0], int(unsafe.Sizeof(wx[0]))
		case 2:
			w = wz
		}
		adiRowAVX2(r, u[0][:len(r)], u[1][:len(r)], u[2][:len(r)], u[3][:len(r)], u[4][:len(r)],
			f[0][:6*np], f[1][:6*np], f[2][:6*np], w, stride, &v[d], 8*len(r))
	}
}

// adiDerivedAVX2 is adiDerived's loop at the first n points of a row (n a
// multiple of 4; speed and ainv nil for BT) (adi_derived_amd64.s).
//
//go:noescape
func adiDerivedAVX2(u, pk, rhoI, us, vs, ws, qs, speed, ainv *float64, n int, c1c2 float64)

// adiDerivedLanes does adiDerived's first points of a row, four at a
// time, with AVX2 when the CPU has it, and returns how many: u holds the
// row's points (five values each), pk their packed fields, the others a
// value a point (speed and ainv nil for BT).
func adiDerivedLanes(u, pk, rhoI, us, vs, ws, qs, speed, ainv []float64, c1c2 float64) int {
	n := len(rhoI) &^ 3
	if !adiUseAVX2 || n == 0 {
		return 0
	}
	_, _, _, _, _ = u[5*n-1], pk[adiPacked*n-1], us[n-1], vs[n-1], ws[n-1]
	_ = qs[n-1]
	var sp, ai *float64
	if speed != nil {
		sp, ai = &speed[:n][0], &ainv[:n][0]
	}
	adiDerivedAVX2(&u[0], &pk[0], &rhoI[0], &us[0], &vs[0], &ws[0], &qs[0], sp, ai, n, c1c2)
	return n
}
