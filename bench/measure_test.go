package bench

import (
	"slices"
	"testing"
)

// TestSizesOf: a size-less benchmark is measured whatever the sizes
// asked for (Barrier had no row unless 0 was among them).
func TestSizesOf(t *testing.T) {
	sizes := []int{2, 8, 1024}
	for _, tc := range []struct {
		benchmark string
		want      []int
	}{
		{"Barrier", []int{0}},
		{"PingPong", []int{2, 8, 1024}},
		{"Allreduce", []int{8, 1024}},
		{"Reduce", []int{8, 1024}},
		{"Bcast", []int{2, 8, 1024}},
		{"Ibarrier", []int{0}},
		{"Iallreduce", []int{8, 1024}},
		{"Ireduce", []int{8, 1024}},
		{"Ialltoall", []int{2, 8, 1024}},
	} {
		if got := SizesOf(tc.benchmark, sizes); !slices.Equal(got, tc.want) {
			t.Errorf("SizesOf(%s, %v) = %v, want %v", tc.benchmark, sizes, got, tc.want)
		}
	}
	if !slices.Equal(sizes, []int{2, 8, 1024}) {
		t.Errorf("SizesOf changed its argument: %v", sizes)
	}
	if !SizeLess("Barrier") || !SizeLess("Ibarrier") || SizeLess("Bcast") || SizeLess("Ibcast") {
		t.Error("SizeLess: only the barriers have no size")
	}
}

// TestSlowStarts: a row whose first sample exceeds the bound times its
// median is listed, with its benchmark, size and variant; the others, and
// rows without samples, are not.
func TestSlowStarts(t *testing.T) {
	series := []Series{
		{Benchmark: "Reduce", Variant: "default", NP: 16, Rows: []Row{
			{Bytes: 8, Samples: []float64{78.9, 41.8, 14.5, 1.72, 1.67}, T: 14.5},
			{Bytes: 1024, Samples: []float64{3, 2, 2}, T: 2},
		}},
		{Benchmark: "Bcast", Variant: "system MPI", NP: 16, Rows: []Row{
			{Bytes: 8, Samples: []float64{30.8, 4.3, 1.3, 1.4, 1.3}, T: 1.4},
			{Bytes: 64},
		}},
	}
	if got := series[0].Rows[0].FirstToMedian(); got < 5.44 || got > 5.45 {
		t.Errorf("FirstToMedian = %v, want 78.9/14.5", got)
	}
	if got := (Row{}).FirstToMedian(); got != 0 {
		t.Errorf("FirstToMedian of a row without samples = %v, want 0", got)
	}
	got := SlowStarts(series, 2)
	want := []string{
		"Reduce 8 B (default, 16 processes): first sample 78.9 µs, 5.4× the median 14.5 µs",
		"Bcast 8 B (system MPI, 16 processes): first sample 30.8 µs, 22.0× the median 1.4 µs",
	}
	if !slices.Equal(got, want) {
		t.Errorf("SlowStarts:\n got %q\nwant %q", got, want)
	}
}

// calibrate scales the operations of the round that reached a quarter of
// the target to the target, and does not let one slow round of a few
// operations (a hiccup) set them: that round is taken again.
func TestCalibrate(t *testing.T) {
	const target = 0.004 // seconds a sample
	perOp := 1e-7
	steady := func(n int) (float64, error) { return float64(n) * perOp, nil }
	reps, err := calibrate(steady, target)
	if err != nil || reps < 39000 || reps > 41000 {
		t.Fatalf("steady: %d repetitions (%v), want about %d", reps, err, int(target/perOp))
	}
	calls := 0
	hiccup := func(n int) (float64, error) {
		calls++
		if calls == 1 {
			return 0.002, nil // the first round of one operation: 2 ms
		}
		return float64(n) * perOp, nil
	}
	if reps, err = calibrate(hiccup, target); err != nil || reps < 39000 || reps > 41000 {
		t.Fatalf("a hiccup in the first round: %d repetitions (%v), want about %d", reps, err, int(target/perOp))
	}
	slow := func(n int) (float64, error) { return float64(n) * 0.003, nil } // 3 ms an operation
	if reps, err = calibrate(slow, target); err != nil || reps != 2 {
		t.Fatalf("slow operations: %d repetitions (%v), want 2", reps, err)
	}
}
