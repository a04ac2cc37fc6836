package cpuload

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestCPUBusy(t *testing.T) {
	stat := []byte("cpu  9 9 9 9 9 9 9 9 0 0\ncpu0 1 2 3 100 4 5 6 7 0 0\ncpu1 10 20 30 100 40 50 60 70 0 0\nintr 1 2\n")
	for cpu, want := range map[int]uint64{0: 1 + 2 + 3 + 5 + 6, 1: 10 + 20 + 30 + 50 + 60, AllCPUs: 9 * 5} {
		if got, err := cpuBusy(stat, cpu); err != nil || got != want {
			t.Errorf("cpu%d: %d, %v; want %d", cpu, got, err, want)
		}
	}
	if _, err := cpuBusy(stat, 2); err == nil {
		t.Error("cpu2, not in the text: no error")
	}
	if _, err := cpuBusy([]byte("cpu0 1 2 3\n"), 0); err == nil {
		t.Error("a short line: no error")
	}
}

func TestProcessTicks(t *testing.T) {
	stat := []byte("4082 (a (b) c) R 4077 4077 16937 0 -1 4194304 128 0 0 0 7 8 0 0 20 0 1")
	if got, err := processTicks(stat); err != nil || got != 15 {
		t.Errorf("%d, %v; want 15", got, err)
	}
	if _, err := processTicks([]byte("4082 (x) R 1 2")); err == nil {
		t.Error("a short text: no error")
	}
	if f := StatFields(stat); len(f) < 3 || string(f[0]) != "R" || string(f[2]) != "4077" {
		t.Errorf("StatFields: %q, want the state R, then ppid and pgrp 4077", f)
	}
	if f := StatFields([]byte("garbage")); f != nil {
		t.Errorf("StatFields of a text without a command: %q, want nil", f)
	}
}

func TestForeignShare(t *testing.T) {
	t0 := time.Now()
	a := Sample{At: t0, Busy: 100, Ours: 50}
	for _, c := range []struct {
		b    Sample
		want float64
	}{
		{Sample{At: t0.Add(time.Second), Busy: 200, Ours: 100}, 0.5},
		{Sample{At: t0.Add(time.Second), Busy: 200, Ours: 150}, 0},
		{Sample{At: t0.Add(time.Second), Busy: 400, Ours: 50}, 1},
		{Sample{At: t0, Busy: 200, Ours: 50}, 0},
	} {
		if got := ForeignShare(a, c.b, 1); got != c.want {
			t.Errorf("%+v to %+v: %v, want %v", a, c.b, got, c.want)
		}
	}
}

// A reading of this machine: the first CPU and this process.
func TestTake(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	s, err := Take(0, []int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if s.Busy == 0 {
		t.Errorf("cpu0 never busy: %+v", s)
	}
	if _, err := Take(0, []int{-1}); err == nil {
		t.Error("process -1: no error")
	}
}
