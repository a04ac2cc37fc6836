package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/mpiruntest"
)

// The one-sided histogram equals the serial count, with the bins on rank
// 0 and spread over the ranks (more ranks than bins included), on both
// networks and oversubscribed.
func TestHistogramMatchesSerial(t *testing.T) {
	mpirun, histogram := mpiruntest.Program(t, "github.com/rhinet-go/martini/examples/histogram")
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
			code, out := mpiruntest.Run(t, mpirun, args...)
			want := fmt.Sprintf("histogram of %d numbers identical to the serial count", 3000*c.np)
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
}

func TestHistogramBadArguments(t *testing.T) {
	_, histogram := mpiruntest.Program(t, "github.com/rhinet-go/martini/examples/histogram")
	for _, args := range [][]string{{"-bins", "0"}, {"-n", "-1"}} {
		if code, out := mpiruntest.Run(t, histogram, args...); code != 2 || !strings.Contains(out, "-bins must be positive") {
			t.Errorf("%v: exit %d:\n%s", args, code, out)
		}
	}
}
