package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/mpiruntest"
)

// The parallel solution equals the serial one on every process grid,
// oversubscribed (8 ranks on 2 cores) included, with blocks of unequal
// sizes.
func TestJacobiMatchesSerial(t *testing.T) {
	mpirun, jacobi := mpiruntest.Program(t, "github.com/rhinet-go/martini/examples/jacobi2d")
	for _, np := range []int{1, 2, 3, 4, 8} {
		t.Run(fmt.Sprintf("np=%d", np), func(t *testing.T) {
			code, out := mpiruntest.Run(t, mpirun, "-np", fmt.Sprint(np), "-timeout", "60s", jacobi, "-n", "30", "-iters", "60")
			if code != 0 || !strings.Contains(out, "solution identical to the serial one") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
}

func TestJacobiBadArguments(t *testing.T) {
	mpirun, jacobi := mpiruntest.Program(t, "github.com/rhinet-go/martini/examples/jacobi2d")
	if code, out := mpiruntest.Run(t, jacobi, "-n", "0"); code != 2 || !strings.Contains(out, "must be positive") {
		t.Errorf("-n 0: exit %d:\n%s", code, out)
	}
	code, out := mpiruntest.Run(t, mpirun, "-np", "6", "-timeout", "60s", jacobi, "-n", "2")
	if code == 0 || !strings.Contains(out, "too large for a side of 2 points") {
		t.Errorf("6 ranks for 2×2 points: exit %d:\n%s", code, out)
	}
}
