package npb

import (
	"fmt"
	"strings"
	"testing"
)

// TestDeclaredOps runs every benchmark of class S on one process
// under declared computing at 100 Mop/s: what the timed part declares adds
// up to NPB's operation count when the reported Mop/s is the rate itself
// (one process communicates in no virtual time). At two processes (BT and
// SP: four) the Mop/s are at most twice (four times) the rate, the
// partition's own work on top.
func TestDeclaredOps(t *testing.T) {
	for _, k := range Kernels() {
		t.Run(k, func(t *testing.T) {
			t.Parallel()
			second := 2
			if k == "BT" || k == "SP" {
				second = 4 // a square
			}
			for _, np := range []int{1, second} {
				r := runDeclared(t, k, np, "100")
				t.Logf("%s class S np=%d: %.2f Mop/s", k, np, r.Mops)
				if lo, hi := 100*float64(np)*(1-1e-4), 100*float64(np)*(1+1e-4); np == 1 && (r.Mops < lo || r.Mops > hi) || r.Mops > hi {
					t.Errorf("%s class S np=%d: %.2f Mop/s at 100 Mop/s declared, want %.0f", k, np, r.Mops, 100*float64(np))
				}
			}
		})
	}
}

// runDeclared runs kernel of class S on np processes in virtual time with
// declared computing at rate Mop/s and returns its report.
func runDeclared(t *testing.T, kernel string, np int, rate string) Report {
	t.Helper()
	out, code := runKernelWith(t, kernel, Class('S'), false, mpirun(t), "-np", fmt.Sprint(np),
		"-profile", "martini", "-clock", "virtual", "-compute", "declared", "-op-rate", rate)
	if code != 0 || !strings.Contains(out, "SUCCESSFUL") {
		t.Fatalf("%s np=%d: exit %d:\n%s", kernel, np, code, out)
	}
	r, err := ParseReport([]byte(out))
	if err != nil {
		t.Fatalf("%s np=%d: %v:\n%s", kernel, np, err, out)
	}
	return r
}
