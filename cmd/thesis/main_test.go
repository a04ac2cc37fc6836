package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/internal/mpiruntest"
	"github.com/rhinet-go/martini/nicemu"
)

// TestMain lets the test binary serve as the worker: mpirun starts it with
// the worker's arguments.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "worker" || os.Args[1] == "pmworker" || os.Args[1] == "nicworker") {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "thesis" {
		os.Exit(runUntilSignal(os.Args[2:])) // as the thesis command (TestTermStopsSweep)
	}
	os.Exit(m.Run())
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-profiles", "myrinet"}, {"-profiles", ""}, {"extra"}, {"-bogus"}} {
		var out bytes.Buffer
		if code := run(context.Background(), args, &out, &out); code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", args, code, &out)
		}
	}
}

// TestQuickRun runs both profiles in quick mode and checks the files and
// the table; under martini the latencies must at least reach the thesis's
// (the emulation cannot be faster than its model).
func TestQuickRun(t *testing.T) {
	mpirun := mpiruntest.ForTest(t)
	dir := t.TempDir()
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"-quick", "-mpirun", mpirun, "-results", dir}, &out, &errs); code != 0 {
		t.Fatalf("exit %d\n%s", code, &errs)
	}
	for _, f := range nicbench.Figures {
		if !strings.Contains(out.String(), f.What) {
			t.Errorf("table lacks %q", f.What)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "thesis.md"))
	if err != nil || !strings.Contains(string(md), "| figure") {
		t.Fatalf("thesis.md: %v\n%s", err, md)
	}
	js, err := os.ReadFile(filepath.Join(dir, "thesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := nicbench.DecodeRecord(bytes.NewReader(js))
	if err != nil || len(rec.Runs) != 2 || !rec.Quick {
		t.Fatalf("thesis.json: %v, %+v", err, rec)
	}
	for _, r := range rec.Runs {
		if _, err := os.Stat(filepath.Join(dir, "plots", "thesis-throughput-"+r.Profile+".svg")); err != nil {
			t.Error(err)
		}
		if len(r.OneWay) != len(r.Sizes) || len(r.Bidirectional) != len(r.Sizes) {
			t.Errorf("%s: %d sizes, %d and %d points", r.Profile, len(r.Sizes), len(r.OneWay), len(r.Bidirectional))
		}
		if r.Profile != nicemu.ProfileMartini {
			continue
		}
		// The emulation holds each request for its modelled time; a
		// write's data moves at most the recorded handoff early.
		if r.Handoff < 0 || r.Handoff > 0.42 {
			t.Errorf("martini handoff %.3f µs, outside [0, the DMA write stage]", r.Handoff)
		}
		for i, f := range nicbench.Figures[:5] {
			floor := 0.99 * f.Thesis
			if i < 3 {
				floor -= r.Handoff
			}
			if v, _ := f.Of(r); v < floor {
				t.Errorf("martini %s: %.2f µs, below the model's %.2f (handoff %.3f)", f.What, v, f.Thesis, r.Handoff)
			}
		}
	}
}
