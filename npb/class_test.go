package npb

import (
	"math"
	"slices"
	"testing"
)

// TestClassC checks that every benchmark accepts class C and that its
// class C parameters are NPB3.4-MPI's: the problem sizes, iteration
// counts and time steps of setparams.c and the verification values of
// each benchmark's verify routine, written here a second time so that a
// mistyped digit in either copy fails.
func TestClassC(t *testing.T) {
	for _, k := range Kernels() {
		if _, err := Check(k, 'C', 4); err != nil {
			t.Errorf("%s class C on 4 processes: %v", k, err)
		}
	}
	t.Run("EP", testClassCEP)
	t.Run("CG", testClassCCG)
	t.Run("IS", testClassCIS)
	t.Run("MG", testClassCMG)
	t.Run("FT", testClassCFT)
	t.Run("ADI", testClassCADI)
	t.Run("LU", testClassCLU)
}

func testClassCEP(t *testing.T) {
	want := epClassParams{m: 32, sx: 2.691444083862931e+09, sy: 2.691519118724585e+09, gc: 3373275903}
	if p, ok := epParams('C'); !ok || p != want {
		t.Errorf("EP class C: %+v, %v; want %+v", p, ok, want)
	}
}

func testClassCCG(t *testing.T) {
	want := cgParams{na: 150000, nonzer: 15, niter: 75, shift: 110, zeta: 28.973605592845}
	if p, ok := cgClassParams('C'); !ok || p != want {
		t.Errorf("CG class C: %+v, %v; want %+v", p, ok, want)
	}
}

func testClassCIS(t *testing.T) {
	want := isClassParams{27, 23, 10, 1024,
		[isTestArraySize]int64{44172927, 72999161, 74326391, 129606274, 21736814},
		[isTestArraySize]int64{61147, 882988, 266290, 133997595, 133525895}}
	if p, ok := isParams('C'); !ok || p != want {
		t.Errorf("IS class C: %+v, %v; want %+v", p, ok, want)
	}
	// The fixed-size arrays of the ranking hold every class's keys and
	// buckets.
	for _, c := range kernelClasses(t, "IS") {
		p, _ := isParams(c)
		if 1<<p.maxKeyLog2 > isMaxKey || 1<<p.numBucketsLog2 > isMaxBuckets {
			t.Errorf("IS class %v: MAX_KEY 2^%d, NUM_BUCKETS 2^%d; the arrays hold %d and %d",
				c, p.maxKeyLog2, p.numBucketsLog2, isMaxKey, isMaxBuckets)
		}
	}
}

func testClassCMG(t *testing.T) {
	want := mgParams{lt: 9, nit: 20, verify: 0.5706732285740e-06}
	p, ok := mgClassParams('C')
	if !ok || p != want {
		t.Errorf("MG class C: %+v, %v; want %+v", p, ok, want)
	}
	if _, c := mgCoefficients('C'); c != [4]float64{-3.0 / 17.0, +1.0 / 33.0, -1.0 / 61.0, 0} {
		t.Errorf("MG class C smoother %v, want S(b)", c)
	}
	if s, err := mgOpScale(p); err != nil || !(s > 0) || math.IsInf(s, 0) {
		t.Errorf("MG class C operation scale %v, %v", s, err)
	}
}

func testClassCFT(t *testing.T) {
	want := []complex128{
		complex(5.195078707457e+02, 5.149019699238e+02), complex(5.155422171134e+02, 5.127578201997e+02),
		complex(5.144678022222e+02, 5.122251847514e+02), complex(5.140150594328e+02, 5.121090289018e+02),
		complex(5.137550426810e+02, 5.121143685824e+02), complex(5.135811056728e+02, 5.121496764568e+02),
		complex(5.134569343165e+02, 5.121870921893e+02), complex(5.133651975661e+02, 5.122193250322e+02),
		complex(5.132955192805e+02, 5.122454735794e+02), complex(5.132410471738e+02, 5.122663649603e+02),
		complex(5.131971141679e+02, 5.122830879827e+02), complex(5.131605205716e+02, 5.122965869718e+02),
		complex(5.131290734194e+02, 5.123075927445e+02), complex(5.131012720314e+02, 5.123166486553e+02),
		complex(5.130760908195e+02, 5.123241541685e+02), complex(5.130528295923e+02, 5.123304037599e+02),
		complex(5.130310107773e+02, 5.123356167976e+02), complex(5.130103090133e+02, 5.123399592211e+02),
		complex(5.129905029333e+02, 5.123435588985e+02), complex(5.129714421109e+02, 5.123465164008e+02),
	}
	p, ok := ftParams('C')
	if !ok || p.nx != 512 || p.ny != 512 || p.nz != 512 || p.niter != 20 || !slices.Equal(p.ref, want) {
		t.Errorf("FT class C: %dx%dx%d, %d iterations, checksums %v, %v", p.nx, p.ny, p.nz, p.niter, p.ref, ok)
	}
}

func testClassCADI(t *testing.T) {
	for _, c := range []struct {
		name   string
		params func(Class) (adiParams, bool)
		want   adiParams
	}{
		{"BT", btClassParams, adiParams{n: 162, niter: 200, dt: 1.0e-4, ref: adiReference{
			xcr: [5]float64{6.2398116551764615e+03, 5.0793239190423964e+02, 1.5423530093013596e+03, 1.3302387929291190e+03, 1.1604087428436455e+04},
			xce: [5]float64{1.6462008369091265e+02, 1.1497107903824313e+01, 4.1207446207461508e+01, 3.7087651059694167e+01, 3.6211053051841265e+02},
		}}},
		{"SP", spClassParams, adiParams{n: 162, niter: 400, dt: 0.67e-3, ref: adiReference{
			xcr: [5]float64{5.881691581829e+02, 2.454417603569e+02, 3.293829191851e+02, 3.081924971891e+02, 4.597223799176e+02},
			xce: [5]float64{2.598120500183e-01, 2.590888922315e-02, 5.132886416320e-02, 4.806073419454e-02, 5.483377491301e-01},
		}}},
	} {
		if p, ok := c.params('C'); !ok || p != c.want {
			t.Errorf("%s class C: %+v, %v; want %+v", c.name, p, ok, c.want)
		}
	}
}

func testClassCLU(t *testing.T) {
	p, ok := luClassParams('C')
	want := luParams{n: 162, itmax: 250, dt: 2.0, omega: 1.2, tolrsd: 1e-8,
		xcr: [5]float64{1.03766980323537846e+04, 8.92212458801008552e+02, 2.56238814582660871e+03, 2.19194343857831427e+03, 1.78078057261061185e+04},
		xce: [5]float64{2.15986399716949279e+02, 1.55789559239863600e+01, 5.41318863077207766e+01, 4.82262643154045421e+01, 4.55902910043250358e+02},
		xci: 6.66404553572181300e+01,
	}
	if !ok || p != want {
		t.Errorf("LU class C: %+v, %v; want %+v", p, ok, want)
	}
	if c := luClassOf(p); c != "C" {
		t.Errorf("LU class C is named %q", c)
	}
}

// kernelClasses returns the classes kernel name registers.
func kernelClasses(t *testing.T, name string) []Class {
	t.Helper()
	i := slices.IndexFunc(kernels, func(k Kernel) bool { return k.Name == name })
	if i < 0 {
		t.Fatalf("no kernel %s", name)
	}
	return kernels[i].Classes
}
