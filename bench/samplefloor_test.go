package bench

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMatchSpeeds: a row's time becomes the median of its samples taken
// in the state of the lowest floor any column read at that point; a row
// with none is unmatched and keeps the median of all; rows without floors,
// or of another point, are left alone.
func TestMatchSpeeds(t *testing.T) {
	series := []Series{
		{Benchmark: "Bcast", Variant: "default", Source: SourceMartini, Rows: []Row{
			// All five in the slow state: unmatched.
			{Bytes: 8, Samples: []float64{0.47, 0.48, 0.48, 0.48, 0.46}, T: 0.48, SampleFloors: []float64{0.21, 0.2, 0.22, 0.21, 0.2}},
			// Two of three in the fast state.
			{Bytes: 1024, Samples: []float64{0.5, 0.9, 0.6}, T: 0.6, SampleFloors: []float64{0.05, 0.2, 0.06}},
		}},
		{Benchmark: "Bcast", Variant: "Open MPI", Source: SourcePeer, Rows: []Row{
			{Bytes: 8, Samples: []float64{0.2, 0.21, 0.2}, T: 0.2, SampleFloors: []float64{0.06, 0.07, 0.05}},
			{Bytes: 1024, Samples: []float64{0.7, 0.8, 0.75}, T: 0.75}, // no floors
		}},
		{Benchmark: "PingPong", Variant: "default", Source: SourceMartini, Rows: []Row{
			// Slow alone at its point: its own lowest floor is the state.
			{Bytes: 8, Samples: []float64{0.24, 0.25, 0.5}, T: 0.25, MBps: 32, SampleFloors: []float64{0.2, 0.21, 0.5}},
		}},
	}
	notes := MatchSpeeds(series)
	b8, b1k, theirs, pp := series[0].Rows[0], series[0].Rows[1], series[1].Rows[0], series[2].Rows[0]
	if !b8.Unmatched || b8.T != 0.48 || b8.LeftOut != 0 {
		t.Errorf("Bcast 8 B, all samples slow: %+v, want unmatched at 0.48", b8)
	}
	if b1k.Unmatched || b1k.T != 0.55 || b1k.LeftOut != 1 {
		t.Errorf("Bcast 1 KiB, one sample slow: %+v, want 0.55 of 2", b1k)
	}
	if theirs.Unmatched || theirs.T != 0.2 || theirs.LeftOut != 0 {
		t.Errorf("Open MPI's Bcast 8 B: %+v", theirs)
	}
	if !reflect.DeepEqual(series[1].Rows[1], Row{Bytes: 1024, Samples: []float64{0.7, 0.8, 0.75}, T: 0.75}) {
		t.Errorf("a row without floors changed: %+v", series[1].Rows[1])
	}
	if pp.T != 0.245 || pp.LeftOut != 1 || pp.MBps != float64(8)/0.245 {
		t.Errorf("PingPong 8 B: %+v, want 0.245 µs of 2 and its bandwidth", pp)
	}
	if want := "Bcast, default: every sample at 8 bytes ran while the job's own floor read 0.2 to 0.22 µs, 2 times or more the 0.06 µs of another column's job there"; len(notes) != 1 || !strings.HasPrefix(notes[0], want) {
		t.Errorf("notes %q, want one of Bcast 8 B's default", notes)
	}
}

// TestSummaryLeavesUnmatched: the results page's cell counts a run whose
// columns ran in different states of the machine at that point only
// where every run's did.
func TestSummaryLeavesUnmatched(t *testing.T) {
	run := func(i int, own, theirs float64, unmatched bool) *Record {
		return &Record{Schema: SchemaVersion, Time: time.Date(2026, 12, 2, 12, 0, i, 0, time.UTC), Params: Params{NP: 2, Samples: 1, Benchmarks: []string{"Bcast"}},
			Machine: Machine{CPU: "Test CPU", CPUs: 2},
			Series: []Series{
				{Benchmark: "Bcast", Variant: "default", Source: SourceMartini, NP: 2, Rows: []Row{{Bytes: 8, T: own, Unmatched: unmatched}, {Bytes: 64, T: own, Unmatched: true}}},
				{Benchmark: "Bcast", Variant: PeerVariant, Source: SourcePeer, NP: 2, Rows: []Row{{Bytes: 8, T: theirs}, {Bytes: 64, T: theirs}}},
			}}
	}
	dir := t.TempDir()
	for i, r := range []*Record{run(1, 0.18, 0.2, false), run(2, 0.48, 0.2, true), run(3, 0.16, 0.2, false)} {
		writeRecordFile(t, dir, fmt.Sprintf("2026-12-02-run%d.json", i), r)
	}
	readme := string(regenerateREADME(t, dir))
	// 8 B: runs 1 and 3 alone; 64 B: unmatched in every run, so all three.
	for _, want := range []string{"0.17 / 0.20 (0.85)", "0.18 / 0.20 (0.90)"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
}
