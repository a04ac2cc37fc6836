package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// floorChildArg makes the test binary serve as the child of MeasureFloor.
const floorChildArg = "floor-child"

// TestMain lets the test binary serve as the floor's child: the tests
// start it with floorChildArg.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == floorChildArg {
		if err := FloorChild(os.Args[2:], os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// floorCommand is the command that starts the test binary as the child.
func floorCommand(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, floorChildArg}
}

func TestMeasureFloor(t *testing.T) {
	if _, err := floorCPUs(); errors.Is(err, ErrFloorCPUs) {
		t.Skipf("no floor here: %v", err)
	}
	// The timeout is for a hang only: two processes that must share
	// their CPUs with others take long.
	f, err := MeasureFloor(context.Background(), floorCommand(t), FloorOptions{Samples: 3, Budget: 30 * time.Millisecond, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if f.T <= 0 || math.IsInf(f.T, 0) || math.IsNaN(f.T) || len(f.Samples) != 3 || f.RoundTrips < 1 || f.CPUs[0] == f.CPUs[1] {
		t.Errorf("floor %+v", f)
	}
	for _, s := range f.Samples {
		if s <= 0 || math.IsInf(s, 0) || math.IsNaN(s) {
			t.Errorf("sample %v in %+v", s, f)
		}
	}
	if len(f.Compute) != 2 || slices.ContainsFunc(f.Compute, func(ms float64) bool { return ms <= 0 || math.IsInf(ms, 0) || math.IsNaN(ms) }) {
		t.Errorf("compute gauges %v", f.Compute)
	}
	if d := f.Describe(); !strings.Contains(d, FloorWhat) || !strings.Contains(d, formatUsec(f.T)+" usec") || !strings.Contains(d, "compute gauge") {
		t.Errorf("Describe() = %q", d)
	}
}

// TestComputeList: gauges listed as ComputeApart takes them.
func TestComputeList(t *testing.T) {
	if got := ComputeList([][]float64{{0.92, 0.934}, {1.7, 0.93}, {0.92, 0.92}}); got != "0.92/0.93, 1.7/0.93 and 0.92/0.92" {
		t.Errorf("ComputeList = %q", got)
	}
	if got := ComputeList(nil); got != "" {
		t.Errorf("ComputeList(nil) = %q", got)
	}
}

// TestMeasureFloorFails: bad options, a child that cannot start, that
// fails, that never answers, and a context that ends are errors that say
// so.
func TestMeasureFloorFails(t *testing.T) {
	if _, err := floorCPUs(); errors.Is(err, ErrFloorCPUs) {
		t.Skipf("no floor here: %v", err)
	}
	good := FloorOptions{Samples: 1, Budget: 10 * time.Millisecond}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		command []string
		o       FloorOptions
		want    string
	}{
		{"no command", context.Background(), nil, good, "no command"},
		{"empty command", context.Background(), []string{""}, good, "no command"},
		{"no samples", context.Background(), floorCommand(t), FloorOptions{Budget: time.Millisecond}, "0 samples"},
		{"no budget", context.Background(), floorCommand(t), FloorOptions{Samples: 1}, "budget 0s"},
		{"negative timeout", context.Background(), floorCommand(t), FloorOptions{Samples: 1, Budget: time.Millisecond, Timeout: -time.Second}, "timeout -1s"},
		{"absent program", context.Background(), []string{"/nonexistent/floor-child"}, good, "start the child"},
		{"failing child", context.Background(), []string{"/bin/sh", "-c", "echo broken >&2; exit 3"}, good, "exit status 3: broken"},
		{"bad child argument", context.Background(), append(floorCommand(t), "-bogus"), good, "flag provided but not defined"},
		{"silent child", context.Background(), []string{"/bin/sh", "-c", "exec sleep 60"}, FloorOptions{Samples: 1, Budget: time.Millisecond, Timeout: 300 * time.Millisecond}, "not done within 300ms"},
		{"cancelled", cancelled, floorCommand(t), good, "context canceled"},
	}
	for _, tc := range tests {
		f, err := MeasureFloor(tc.ctx, tc.command, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: floor %+v, error %v; want an error saying %q", tc.name, f, err, tc.want)
		}
	}
}

// TestFloorChildArgs: the child rejects a bad command line before it
// touches its descriptor 3.
func TestFloorChildArgs(t *testing.T) {
	for _, args := range [][]string{
		nil,                    // no -cpu
		{"-cpu", "-1"},         //
		{"-cpu", "1048576"},    // past any CPU set
		{"-cpu", "x"},          //
		{"-cpu", "0", "extra"}, //
		{"-colour", "blue"},    //
	} {
		var stderr bytes.Buffer
		if err := FloorChild(args, &stderr); err == nil {
			t.Errorf("FloorChild(%q): no error", args)
		}
	}
}

func TestLimitedBuffer(t *testing.T) {
	b := &limitedBuffer{max: 5}
	for _, s := range []string{"abc", "defg", "h"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Errorf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "abcde" {
		t.Errorf("kept %q, want %q", got, "abcde")
	}
}
