package thesisnpb

import (
	"math"
	"strings"
	"testing"
)

// synthetic returns a record of every benchmark, class S, W and A, both
// layers and the default process counts, whose Mop/s show every finding
// of the thesis: EP ideal; class S stalling from 4 processes with
// PM/RHiNET 1.5 times ahead; classes W and A scaling, PM/RHiNET-VP ahead
// and gaining with the processes, IS most. change, when not nil, alters a
// point's Mop/s.
func synthetic(change func(k Key, mops float64) float64) *Record {
	r := &Record{HostSpeed: "p3-933"}
	for _, c := range AllClasses {
		for _, b := range AllBenchmarks {
			for _, np := range ProcsOf(b) {
				for _, l := range Layers {
					k := Key{Benchmark: b, Class: c, Layer: l, NP: np}
					n := float64(np)
					var m float64
					switch {
					case b == "EP":
						m = 10 * n
					case c == "S":
						m = 10 * math.Min(n, 4+0.1*n) // 4 → 16: ×1.15
						if l == "vp" {
							m /= 1.5
						}
					default:
						m = 8 * n
						if l == "vp" && c == "A" {
							gain := 0.05
							if b == "IS" {
								gain = 0.1
							}
							m *= 0.9 + gain*math.Log2(n)
						}
					}
					if change != nil {
						m = change(k, m)
					}
					r.Add(Point{Key: k, Mops: m, Verified: true})
				}
			}
		}
	}
	return r
}

func TestFindingsReproduced(t *testing.T) {
	r := synthetic(nil)
	for i, f := range Findings {
		if v, detail := f.Test(r); v != Reproduced {
			t.Errorf("finding %d (%s): %s: %s", i+1, f.Claim, v, detail)
		}
	}
	if m := Missing(r); len(m) != 0 {
		t.Errorf("a full sweep misses %v", m)
	}
}

// TestFindingsNotReproduced changes the synthetic data so that each
// finding in turn fails, and checks that exactly that one is not
// reproduced, and that the data say why.
func TestFindingsNotReproduced(t *testing.T) {
	cases := []struct {
		finding int
		change  func(k Key, m float64) float64
		why     string
	}{
		{0, func(k Key, m float64) float64 { // EP at 16 processes: 12 times 2's, not 8
			if k.Benchmark == "EP" && k.NP == 16 && k.Layer == "pm" {
				return m * 0.6
			}
			return m
		}, "efficiency 0.60 from 2 to 16 processes"},
		{1, func(k Key, m float64) float64 { // class S scales on
			if k.Class == "S" && k.Benchmark != "EP" {
				return float64(k.NP) * 10 / map[string]float64{"pm": 1, "vp": 1.5}[k.Layer]
			}
			return m
		}, "0 of 14 class S series"},
		{2, func(k Key, m float64) float64 { // LU class W flat
			if k.Class == "W" && k.Benchmark == "LU" {
				return 30
			}
			return m
		}, "LU class W PM/RHiNET (×1.00 from 2 to 16, scaling ×2.00)"},
		{3, func(k Key, m float64) float64 { // the layers even at class S
			if k.Class == "S" && k.Layer == "vp" && k.Benchmark != "EP" {
				return 10 * math.Min(float64(k.NP), 4+0.1*float64(k.NP))
			}
			return m
		}, "median of PM/RHiNET's Mop/s over PM/RHiNET-VP's is 1.00; at each benchmark's most processes (EP aside): IS ×1.00 (16), CG ×1.00 (16)"},
		{4, func(k Key, m float64) float64 { // IS no better than the others
			if k.Class == "A" && k.Benchmark == "IS" && k.Layer == "vp" {
				return 8 * float64(k.NP)
			}
			return m
		}, "at 16 processes, the most they all have, the largest ratio is CG's (1.10)"},
	}
	for _, c := range cases {
		r := synthetic(c.change)
		for i, f := range Findings {
			v, detail := f.Test(r)
			switch {
			case i == c.finding && (v != NotReproduced || !strings.Contains(detail, c.why)):
				t.Errorf("finding %d changed: %s: %s; want not reproduced, saying %q", i+1, v, detail, c.why)
			case i != c.finding && v != Reproduced:
				t.Errorf("finding %d changed, finding %d: %s: %s", c.finding+1, i+1, v, detail)
			}
		}
	}
}

func TestFindingsNoData(t *testing.T) {
	r := &Record{}
	r.Add(point("CG", "S", "pm", 2, 100))
	for i, f := range Findings {
		if v, detail := f.Test(r); v != NoData {
			t.Errorf("finding %d on one point: %s: %s", i+1, v, detail)
		}
	}
	if m := Missing(r); len(m) != 3*(6*4+2*3)*2-1 {
		t.Errorf("%d points missing, want every other", len(m))
	}
}

// series adds a series of benchmark b, class c, over both layers to r:
// Mop/s m[i] on procs[i] processes, PM/RHiNET-VP's vp times them.
func series(r *Record, b, c string, vp float64, procs []int, m ...float64) {
	for i, np := range procs {
		r.Add(point(b, c, "pm", np, m[i]))
		r.Add(point(b, c, "vp", np, vp*m[i]))
	}
}

// TestScaleRange: whether a class W or A series scales does not depend
// on the range of its process counts. Under the old test (a gain of ×2
// from the fewest processes to the most) a series that stops at 4
// processes had to scale ideally, so class A with 2 and 4 processes only
// read "not reproduced" at ×1.4-1.95; the gain asked for is now
// (most/fewest)^(1/3).
func TestScaleRange(t *testing.T) {
	cases := []struct {
		name  string
		procs []int
		mops  []float64
		want  Verdict
	}{
		{"2→4 at ×1.43 (the record's IS class A)", []int{2, 4}, []float64{46.3, 66.4}, Reproduced},
		{"2→4 at ×1.20", []int{2, 4}, []float64{100, 120}, NotReproduced},
		{"2→4 falling", []int{2, 4}, []float64{100, 80}, NotReproduced},
		{"2→16 at ×2.5", []int{2, 4, 8, 16}, []float64{100, 150, 200, 250}, Reproduced},
		{"2→16 at ×1.9", []int{2, 4, 8, 16}, []float64{100, 140, 170, 190}, NotReproduced},
		{"4→9 at ×1.35", []int{4, 9}, []float64{100, 135}, Reproduced},
		{"4→9 at ×1.25", []int{4, 9}, []float64{100, 125}, NotReproduced},
	}
	for _, c := range cases {
		r := &Record{}
		series(r, "CG", "A", 1, c.procs, c.mops...)
		if v, detail := testScaleWA(r); v != c.want {
			t.Errorf("%s: %s, want %s: %s", c.name, v, c.want, detail)
		}
	}
	if g := ScaleGain(2, 16); math.Abs(g-2) > 1e-12 {
		t.Errorf("ScaleGain(2, 16) = %v, want 2 (the old threshold over the thesis's full range)", g)
	}
}

// TestStallRange: whether a class S series has stopped scaling from 4
// processes does not depend on its range. Under the old test (a gain
// below ×1.5 from 4 processes to the most) a series that stops at 8
// processes, gaining 45% from 4 to 8, had stopped scaling.
func TestStallRange(t *testing.T) {
	cases := []struct {
		name  string
		procs []int
		mops  []float64
		want  Verdict
	}{
		{"4→8 at ×1.45", []int{2, 4, 8}, []float64{60, 100, 145}, NotReproduced},
		{"4→8 at ×1.10", []int{2, 4, 8}, []float64{60, 100, 110}, Reproduced},
		{"4→16 at ×1.55", []int{2, 4, 8, 16}, []float64{60, 100, 130, 155}, Reproduced},
		{"4→16 at ×1.70", []int{2, 4, 8, 16}, []float64{60, 100, 140, 170}, NotReproduced},
		{"4→9 at ×1.20", []int{4, 9}, []float64{100, 120}, Reproduced},
	}
	for _, c := range cases {
		r := &Record{}
		series(r, "CG", "S", 1, c.procs, c.mops...)
		if v, detail := testStallS(r); v != c.want {
			t.Errorf("%s: %s, want %s: %s", c.name, v, c.want, detail)
		}
	}
}

// TestOvertakeCommonCount: which class A benchmark PM/RHiNET-VP is
// furthest ahead in is found at the largest process count they all have.
// Before, each was taken at its own largest count, so IS, run to 4
// processes and furthest ahead there, lost to a CG run on to 16.
func TestOvertakeCommonCount(t *testing.T) {
	r := &Record{}
	series(r, "IS", "A", 1, []int{2}, 100)
	r.Add(point("IS", "A", "pm", 4, 150))
	r.Add(point("IS", "A", "vp", 4, 165)) // 1.00 → 1.10
	r.Add(point("CG", "A", "pm", 2, 100))
	r.Add(point("CG", "A", "vp", 2, 100))
	r.Add(point("CG", "A", "pm", 4, 150))
	r.Add(point("CG", "A", "vp", 4, 153)) // 1.02 at 4
	r.Add(point("CG", "A", "pm", 16, 400))
	r.Add(point("CG", "A", "vp", 16, 480)) // 1.20 at 16
	v, detail := testVPOvertakesA(r)
	if v != Reproduced || !strings.Contains(detail, "at 4 processes, the most they all have, the largest ratio is IS's (1.10)") {
		t.Errorf("%s: %s", v, detail)
	}
	r = &Record{}
	series(r, "IS", "A", 1.1, []int{2, 4}, 100, 150)
	series(r, "CG", "A", 1.1, []int{8, 16}, 100, 150)
	if v, detail := testVPOvertakesA(r); v != NoData || !strings.Contains(detail, "no process count common") {
		t.Errorf("no common count: %s: %s", v, detail)
	}
}
