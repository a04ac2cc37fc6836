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
		}, "LU class W PM/RHiNET (×1.00 from 2 to 16)"},
		{3, func(k Key, m float64) float64 { // the layers even at class S
			if k.Class == "S" && k.Layer == "vp" && k.Benchmark != "EP" {
				return 10 * math.Min(float64(k.NP), 4+0.1*float64(k.NP))
			}
			return m
		}, "median of PM/RHiNET's Mop/s over PM/RHiNET-VP's is 1.00"},
		{4, func(k Key, m float64) float64 { // IS no better than the others
			if k.Class == "A" && k.Benchmark == "IS" && k.Layer == "vp" {
				return 8 * float64(k.NP)
			}
			return m
		}, "the largest ratio at the largest count is "},
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
