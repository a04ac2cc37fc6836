package plotstyle

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// labels returns the labels of ticks, in order.
func labels(ticks []plot.Tick) []string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestByteTicks(t *testing.T) {
	tests := []struct {
		min, max float64
		want     []string
	}{
		{8, 1 << 20, []string{"16 B", "256 B", "4 KiB", "64 KiB", "1 MiB"}},
		{1, 1 << 10, []string{"1 B", "4 B", "16 B", "64 B", "256 B", "1 KiB"}},
		{256, 4096, []string{"256 B", "512 B", "1 KiB", "2 KiB", "4 KiB"}},
		{1 << 20, 1 << 30, []string{"1 MiB", "4 MiB", "16 MiB", "64 MiB", "256 MiB", "1 GiB"}},
	}
	for _, tc := range tests {
		got := labels(ByteTicks{}.Ticks(tc.min, tc.max))
		if !slices.Equal(got, tc.want) {
			t.Errorf("ByteTicks(%g, %g) labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	if ticks := (ByteTicks{}).Ticks(0, 8); ticks != nil {
		t.Errorf("ByteTicks(0, 8) = %v, want none (a log axis starts above 0)", ticks)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int]string{0: "0 B", 8: "8 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 1 << 20: "1 MiB", 3 << 30: "3 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTicksReadable checks that every marker labels between minLabels and
// maxLabels ticks over ranges from a fraction of a decade to many, and
// that no label is in exponent form ("1e+06").
func TestTicksReadable(t *testing.T) {
	ranges := [][2]float64{{0.15, 0.25}, {540, 2300}, {0.1, 100}, {1, 1e6}, {3, 4e12}, {0, 493}, {0, 37000}, {2, 16}, {9.7, 26}, {0, 0.004}}
	markers := map[string]plot.Ticker{"LogTicks": LogTicks{}, "LinearTicks": LinearTicks{}, "ByteTicks": ByteTicks{}}
	for name, m := range markers {
		for _, r := range ranges {
			lo, hi := r[0], r[1]
			switch name {
			case "LogTicks":
				if lo <= 0 {
					continue
				}
				lo, hi = LogRange(lo, hi)
			case "ByteTicks":
				if lo < 1 {
					continue
				}
				lo, hi = pow2Range(lo, hi)
			}
			got := labels(m.Ticks(lo, hi))
			if len(got) < minLabels || len(got) > maxLabels {
				t.Errorf("%s over [%g, %g]: %d labels %q, want %d to %d", name, lo, hi, len(got), got, minLabels, maxLabels)
			}
			for _, l := range got {
				if hi < 1e9 && strings.ContainsAny(l, "e+") {
					t.Errorf("%s over [%g, %g]: label %q in exponent form", name, lo, hi, l)
				}
			}
		}
	}
}

func TestLogTicksLabels(t *testing.T) {
	tests := []struct {
		min, max float64
		want     []string
	}{
		{1, 1e6, []string{"1", "10", "100", "1000", "10000", "100000", "1000000"}},
		{0.1, 0.5, []string{"0.1", "0.2", "0.3", "0.5"}},
		{500, 3000, []string{"500", "1000", "2000", "3000"}},
		{20, 300, []string{"20", "50", "100", "200"}},
		// 900 would crowd 1000.
		{900, 4000, []string{"1000", "2000", "3000", "4000"}},
		{0.6, 0.9, []string{"0.6", "0.7", "0.8", "0.9"}},
		// Over 16 decades, every second power, 8 labels at most.
		{1e-3, 1e12, []string{"0.01", "1", "100", "10000", "1000000", "100000000", "1e+10", "1e+12"}},
	}
	for _, tc := range tests {
		if got := labels(LogTicks{}.Ticks(tc.min, tc.max)); !slices.Equal(got, tc.want) {
			t.Errorf("LogTicks(%g, %g) labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

func TestLinearTicksLabels(t *testing.T) {
	tests := []struct {
		min, max float64
		want     []string
	}{
		{0, 500, []string{"0", "100", "200", "300", "400", "500"}},
		{0, 0.3, []string{"0", "0.1", "0.2", "0.3"}},
		{2, 16, []string{"2", "4", "6", "8", "10", "12", "14", "16"}},
		{-1, 1, []string{"-1", "-0.5", "0", "0.5", "1"}},
	}
	for _, tc := range tests {
		if got := labels(LinearTicks{}.Ticks(tc.min, tc.max)); !slices.Equal(got, tc.want) {
			t.Errorf("LinearTicks(%g, %g) labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

func TestLogRange(t *testing.T) {
	tests := []struct{ lo, hi, wantLo, wantHi float64 }{
		{0.15, 0.25, 0.1, 0.3},
		{540, 2300, 500, 3000},
		{1, 100, 1, 100},
		{7, 7, 6, 8},
		{0.13, 80, 0.1, 100},
		{3, 4e12, 1, 1e13},
	}
	for _, tc := range tests {
		lo, hi := LogRange(tc.lo, tc.hi)
		if !near(lo, tc.wantLo) || !near(hi, tc.wantHi) {
			t.Errorf("LogRange(%g, %g) = %g, %g, want %g, %g", tc.lo, tc.hi, lo, hi, tc.wantLo, tc.wantHi)
		}
	}
}

func near(a, b float64) bool { return a > b*(1-1e-9) && a < b*(1+1e-9) }
