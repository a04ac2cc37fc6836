package main

import (
	"testing"

	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/nicemu"
)

// TestCh8Rows checks chapter 8's rows against round trips given: the step
// from 8 to 16 processes, the model's sweep and firmware figures, and
// 8.7.1's predictions from the VP round trip; a row whose round trips the
// run lacks is left out, and a run in real time gives none.
func TestCh8Rows(t *testing.T) {
	pm := map[string]map[int]float64{"pm": {8: 10.3, 16: 12.1}, "vp": {2: 24.7}}
	run := &nicbench.Run{Profile: nicemu.ProfileMartini, Clock: nicemu.ClockVirtual, PM: pm}
	rows, err := ch8RecordRows([]*nicbench.Run{run})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.80, 8.96, 7.40, 17.30, 11.91}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if r := rows[i]; r.Section != sectionCh8 || r.Model == nil || *r.Model < w-0.005 || *r.Model > w+0.005 {
			t.Errorf("%s: model %v in %q, want %.2f in %q", r.What, r.Model, r.Section, w, sectionCh8)
		}
	}
	run.PM = nil
	if rows, _ := ch8RecordRows([]*nicbench.Run{run}); len(rows) != 2 {
		t.Errorf("without round trips: %d rows, want the 2 the model gives alone", len(rows))
	}
	run.PM, run.Clock = pm, nicemu.ClockReal
	if rows, _ := ch8RecordRows([]*nicbench.Run{run}); len(rows) != 0 {
		t.Errorf("a run in real time: %d rows, want none", len(rows))
	}
}
