package npb

import "math"

// LU's blocks formed four points at a time: the sweeps form the blocks of
// four consecutive points of a line together (NPB's jacld and jacu form
// those of a whole plane before blts and buts use them), so that
// lu_lanes_amd64.s can form them with one point in each lane of an AVX2
// vector. The assembly does luJacD's, luJacX's, luJacY's and luJacZ's
// operations in their order, without fused multiply-adds, so the blocks
// are the same bit for bit.

// luLanes are the blocks of four consecutive points of a line, point p's
// at [p]: the diagonal blocks, and the neighbour blocks of axis x, y and z
// (n[0], n[1], n[2]).
type luLanes struct {
	d [4]luDiag
	n [3][4][25]float64
}

// luLaneConst are the constants of one kind of block for the assembly,
// each in the four lanes of a vector, at the indices lk*: the assembly
// reads constant i at 32·i bytes (its #defines follow this list).
type luLaneConst [lkN][4]float64

// The indices of luLaneConst: the neighbour blocks' constants, then the
// diagonal block's.
const (
	lkCV        = iota // the convective factor cv
	lkNC2              // −c2
	lkC2H              // c2·0.50
	lkHALF2            // 0.50·c2 (k.half2)
	lkTMC2             // 2 − c2
	lkVS               // dt·t1 of the axis
	lkNR43C34          // −r43·c34
	lkR43C34           // r43·c34
	lkNC34             // −c34
	lkC34              // c34
	lkC1               // c1
	lkC2               // c2
	lkNRCM             // −(r43·c34 − c1345)
	lkCM               // c34 − c1345
	lkNCM              // −(c34 − c1345)
	lkC1345            // c1345
	lkVSD1             // vs·d(m) of the axis, m = 2..5
	lkVSD2             //
	lkVSD3             //
	lkVSD4             //
	lkVSRCM            // vs·(r43·c34 − c1345)
	lkVSCM             // vs·(c34 − c1345)
	lkVSC1345          // vs·c1345
	lkVSC34Z           // dt·tz1·c34
	lkCVTMC2           // cv·(2 − c2)
	lkTHREE            // 3
	lkSIGN             // −0: an exclusive or with it negates
	lkDT2              // dt·2
	lkTX1              // tx1
	lkTY1              // ty1
	lkTZ1              // tz1
	lkTX1R43C34        // tx1·r43·c34
	lkTY1C34           // ty1·c34
	lkTZ1C34           // tz1·c34
	lkONE              // 1
	lkDD1              // the diagonal's constant terms, entries 2..5
	lkDD2              //
	lkDD3              //
	lkDD4              //
	lkTX1C34           // tx1·c34
	lkTY1R43C34        // ty1·r43·c34
	lkTZ1R43C34        // tz1·r43·c34
	lkTX1RCM           // tx1·(r43·c34 − c1345)
	lkTY1CM            // ty1·(c34 − c1345)
	lkTZ1CM            // tz1·(c34 − c1345)
	lkTX1CM            // tx1·(c34 − c1345)
	lkTY1RCM           // ty1·(r43·c34 − c1345)
	lkTZ1RCM           // tz1·(r43·c34 − c1345)
	lkTX1C1345         // tx1·c1345
	lkTY1C1345         // ty1·c1345
	lkTZ1C1345         // tz1·c1345
	lkN
)

// luLaneTables are the assembly's constants: d for the diagonal block,
// n[sweep][axis] for the neighbour blocks of the lower (sweep 0) and the
// upper (1) sweep.
type luLaneTables struct {
	d luLaneConst
	n [2][3]luLaneConst
}

func (t *luLaneConst) set(i int, v float64) { t[i] = lanes4(v) }

// newLULaneTables lays out k's constants for the assembly. Each is the
// number that luJac* forms or reads (c2·0.50 is k.c2*0.50 as luJacX
// forms it, cv·(2 − c2) as luJacZ forms it).
func newLULaneTables(k *luJacConst) *luLaneTables {
	t := &luLaneTables{}
	for sweep, cvs := range [2][3]float64{k.cvLower, k.cvUpper} {
		for axis, v := range [3]*luJacDir{&k.x, &k.y, &k.z} {
			c := &t.n[sweep][axis]
			cv := cvs[axis]
			for i, x := range [...]float64{
				lkCV: cv, lkNC2: -k.c2, lkC2H: k.c2 * 0.50, lkHALF2: k.half2, lkTMC2: k.twoMinusC2,
				lkVS: v.vs, lkNR43C34: k.nr43c34, lkR43C34: k.r43c34, lkNC34: k.nc34, lkC34: k.c34,
				lkC1: k.c1, lkC2: k.c2, lkNRCM: k.nrcm, lkCM: k.cm, lkNCM: -k.cm, lkC1345: k.c1345,
				lkVSD1: v.vsd[1], lkVSD2: v.vsd[2], lkVSD3: v.vsd[3], lkVSD4: v.vsd[4],
				lkVSRCM: v.vsrcm, lkVSCM: v.vscm, lkVSC1345: v.vsc1345, lkVSC34Z: k.vsc34z,
				lkCVTMC2: cv * k.twoMinusC2, lkTHREE: 3.0, lkSIGN: math.Copysign(0, -1),
			} {
				c.set(i, x)
			}
		}
	}
	d := &t.d
	for i, x := range [...]float64{
		lkSIGN:    math.Copysign(0, -1),
		lkNR43C34: k.nr43c34, lkNC34: k.nc34, lkNRCM: k.nrcm, lkCM: k.cm, lkC1345: k.c1345,
		lkDT2: k.dt2, lkTX1: k.tx1, lkTY1: k.ty1, lkTZ1: k.tz1,
		lkTX1R43C34: k.tx1r43c34, lkTY1C34: k.ty1c34, lkTZ1C34: k.tz1c34, lkONE: 1.0,
		lkDD1: k.dd[1], lkDD2: k.dd[2], lkDD3: k.dd[3], lkDD4: k.dd[4],
		lkTX1C34: k.tx1c34, lkTY1R43C34: k.ty1r43c34, lkTZ1R43C34: k.tz1r43c34,
		lkTX1RCM: k.tx1rcm, lkTY1CM: k.ty1cm, lkTZ1CM: k.tz1cm,
		lkTX1CM: k.tx1cm, lkTY1RCM: k.ty1rcm, lkTZ1RCM: k.tz1rcm,
		lkTX1C1345: k.tx1c1345, lkTY1C1345: k.ty1c1345, lkTZ1C1345: k.tz1c1345,
	} {
		d.set(i, x)
	}
	return t
}

// setConstant writes the entries of the blocks that are the same at
// every point of a sweep (0 lower, 1 upper): d11 and its reciprocal, and
// the neighbour blocks' constant entries, which the assembly leaves
// alone. The entries that are zero stay zero.
func (l *luLanes) setConstant(k *luJacConst, sweep int) {
	cv := k.cvLower
	if sweep == 1 {
		cv = k.cvUpper
	}
	for p := range 4 {
		l.d[p].d11, l.d[p].r11 = k.d11, k.r11
		for axis, v := range [3]*luJacDir{&k.x, &k.y, &k.z} {
			a := &l.n[axis][p]
			a[0] = -v.vsd[0]
			a[1+axis] = cv[axis]          // a[1], a[2], a[3]
			a[9+5*axis] = cv[axis] * k.c2 // a[9], a[14], a[19]
		}
	}
}

// luJacD4Go forms the diagonal blocks of the four points of u (20
// values) whose 1/ρ are r.
func luJacD4Go(d *[4]luDiag, u, r []float64, k *luJacConst) {
	for p := range 4 {
		luJacD(&d[p], luPt(u, 5*p), r[p], k)
	}
}

// luJacN4Go forms the neighbour blocks of axis (0 x, 1 y, 2 z) with
// convective factor cv of the four points of u whose 1/ρ are r.
func luJacN4Go(axis int, a *[4][25]float64, u, r []float64, cv float64, k *luJacConst) {
	jac := [3]func(a *[25]float64, w *[5]float64, t1, cv float64, k *luJacConst){luJacX, luJacY, luJacZ}[axis]
	for p := range 4 {
		jac(&a[p], luPt(u, 5*p), r[p], cv, k)
	}
}
