package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/internal/mpiruntest"
	"github.com/rhinet-go/martini/nicemu"
)

// findRow returns the row of rows whose What starts with what.
func findRow(t *testing.T, rows []nicbench.Row, what string) nicbench.Row {
	t.Helper()
	for _, r := range rows {
		if strings.HasPrefix(r.What, what) {
			return r
		}
	}
	t.Fatalf("no row %q", what)
	return nicbench.Row{}
}

// TestChapterRows checks the rows of chapters 6 and 7 against what the
// martini model gives, and that two runs give the same rows.
func TestChapterRows(t *testing.T) {
	rows, err := chapterRows(&nicemu.Martini)
	if err != nil {
		t.Fatal(err)
	}
	if r := findRow(t, rows, "8 B remote write, AOTF"); !strings.HasPrefix(r.Verdict(), "within") {
		t.Errorf("Fig 6.1's AOTF: %s (model %v)", r.Verdict(), *r.Model)
	}
	for what, holds := range map[string]bool{
		"PUSH the fastest write above 64 B":                true,
		"one-way peak bound by the receiver":               true,
		"up to 1 KB the receiver does not bound it":        true,
		"RFend's exceptions leave sending alone":           true,
		"the Initiator's exceptions leave receiving alone": true,
		"cancelled requests crowd the PCI bus":             false,
		// The model is receiver-bound at 32 KB and more (Fig 6.4),
		// where the chapter 7 testbed was sender-limited.
		"one-to-one stream limited by the sender": false,
	} {
		if r := findRow(t, rows, what); r.Holds == nil || *r.Holds != holds {
			t.Errorf("%q: %s, want holds = %v (%s)", what, r.Verdict(), holds, r.Note)
		}
	}
	if r := findRow(t, rows, "VPUSH/Software"); r.Model == nil || *r.Model <= 0 || *r.Paper != 78.6 {
		t.Errorf("Fig 7.11's VPUSH/Software row: %+v", r)
	}
	refs := 0
	for _, r := range rows {
		if r.Section == sectionT64 {
			refs++
			if !r.Reference || r.Model != nil {
				t.Errorf("Table 6.4 row %q is not a reference row", r.What)
			}
		}
	}
	if refs != 11 {
		t.Errorf("%d Table 6.4 rows, want 11", refs)
	}
	again, err := chapterRows(&nicemu.Martini)
	if err != nil || !reflect.DeepEqual(rows, again) {
		t.Errorf("a second run gave other rows (%v)", err)
	}
}

// TestSeedRows checks the other NICs' headline rows: the papers' figures
// within ±5% where the profile reproduces them, and the MPI rows once the
// comparison's figures are there.
func TestSeedRows(t *testing.T) {
	rows, err := seedRows(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, what := range []string{"8 B BOTF, sent and received", "8 B BOTF, completion seen", "496 B BOTFs in two alternating", "8 B one-way latency, Paralib/CJ4", "long transfers' throughput"} {
		if r := findRow(t, rows, what); !strings.HasPrefix(r.Verdict(), "within") {
			t.Errorf("%q: %s (paper %v, model %v)", what, r.Verdict(), *r.Paper, *r.Model)
		}
	}
	for _, what := range []string{"one Write Window: consecutive BOTFs slower", "in-network barrier flat up to 32 nodes"} {
		if r := findRow(t, rows, what); r.Holds == nil || !*r.Holds {
			t.Errorf("%q: %s", what, r.Verdict())
		}
	}
	if r := findRow(t, rows, "an event packet's hop"); !r.Reference {
		t.Error("the ETL row is not a reference row")
	}
	nics := []nicbench.NICFigures{{Profile: nicemu.ProfileCenju4, Latency: 5.2, Barrier: map[int]float64{2: 5, 8: 20}}}
	rows, err = seedRows(nics)
	if err != nil {
		t.Fatal(err)
	}
	if r := findRow(t, rows, "8 B one-way latency, MPI"); *r.Model != 5.2 || *r.Paper != 9.1 {
		t.Errorf("Cenju-4's MPI row: %+v", r)
	}
	if r := findRow(t, rows, "software barriers grow"); r.Holds == nil || !*r.Holds {
		t.Errorf("software barriers: %s", r.Verdict())
	}
}

// TestCompareNICs runs the NICs' comparison (quick): the same MPI
// programs under martini, dimmnet2 and cenju4 in virtual time, and NPB
// charged at the committed record's calibration.
func TestCompareNICs(t *testing.T) {
	if testing.Short() {
		t.Skip("jobs of up to 8 processes under three profiles")
	}
	mpirun := mpiruntest.ForTest(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	cal := filepath.Join("..", "..", defaultCalibration)
	nics, err := compareNICs(context.Background(), mpirun, self, cal, true, 2*time.Minute, &errs)
	if err != nil {
		t.Fatalf("%v\n%s", err, &errs)
	}
	byName := map[string]nicbench.NICFigures{}
	for _, n := range nics {
		byName[n.Profile] = n
	}
	m, d, c := byName[nicemu.ProfileMartini], byName[nicemu.ProfileDIMMnet2], byName[nicemu.ProfileCenju4]
	if !(d.Latency < m.Latency && m.Latency < c.Latency) {
		t.Errorf("8 B latencies: dimmnet2 %.2f, martini %.2f, cenju4 %.2f µs; want in that order", d.Latency, m.Latency, c.Latency)
	}
	for _, n := range nics {
		if n.Barrier[8] <= n.Barrier[2] || n.Barrier[2] < n.Latency*0.99 {
			t.Errorf("%s: barrier %v µs, latency %.2f", n.Profile, n.Barrier, n.Latency)
		}
	}
	if len(c.InNetwork) == 0 || len(m.InNetwork) != 0 {
		t.Errorf("in-network barriers: cenju4 %v, martini %v", c.InNetwork, m.InNetwork)
	}
	if _, err := os.Stat(cal); err == nil && len(c.NPB) != len(npbCompared) {
		t.Errorf("NPB runs: %v", c.NPB)
	}
}
