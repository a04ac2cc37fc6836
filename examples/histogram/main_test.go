package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// build builds mpirun and this example into a temporary directory.
func build(t *testing.T) (mpirun, histogram string) {
	t.Helper()
	dir := t.TempDir()
	const mod = "github.com/rhinet-go/martini/"
	cmd := exec.Command("go", "build", "-o", dir+"/", mod+"cmd/mpirun", mod+"examples/histogram")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "mpirun"), filepath.Join(dir, "histogram")
}

// runCmd runs name with args and returns its exit code and output.
func runCmd(t *testing.T, name string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatalf("%s %v: %v", name, args, err)
	return 0, ""
}

// The one-sided histogram equals the serial count, with the bins on rank
// 0 and spread over the ranks (more ranks than bins included), on both
// networks and oversubscribed.
func TestHistogramMatchesSerial(t *testing.T) {
	mpirun, histogram := build(t)
	for _, c := range []struct {
		np    int
		flags []string
	}{
		{1, nil}, {2, nil}, {3, []string{"-distributed"}}, {4, nil}, {4, []string{"-distributed"}},
		{8, []string{"-distributed", "-bins", "5"}},
		{3, []string{"-transport", "tcp"}}, {4, []string{"-transport", "tcp", "-distributed"}},
	} {
		var mflags, hflags []string
		for i := 0; i < len(c.flags); i++ {
			switch c.flags[i] {
			case "-transport":
				mflags = append(mflags, c.flags[i], c.flags[i+1])
				i++
			default:
				hflags = append(hflags, c.flags[i])
			}
		}
		t.Run(fmt.Sprintf("np=%d%s", c.np, strings.Join(c.flags, "")), func(t *testing.T) {
			args := append([]string{"-np", fmt.Sprint(c.np), "-timeout", "60s"}, mflags...)
			args = append(append(args, histogram, "-n", "3000"), hflags...)
			code, out := runCmd(t, mpirun, args...)
			want := fmt.Sprintf("histogram of %d numbers identical to the serial count", 3000*c.np)
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
}

func TestHistogramBadArguments(t *testing.T) {
	_, histogram := build(t)
	for _, args := range [][]string{{"-bins", "0"}, {"-n", "-1"}} {
		if code, out := runCmd(t, histogram, args...); code != 2 || !strings.Contains(out, "-bins must be positive") {
			t.Errorf("%v: exit %d:\n%s", args, code, out)
		}
	}
}
