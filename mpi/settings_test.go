package mpi_test

import (
	"strconv"
	"strings"
	"testing"
)

// TestInitRejectsBadBackoff: MARTINI_SPIN and MARTINI_YIELD that are not
// non-negative numbers of polls make Init fail, naming the variable and
// its value, instead of being ignored.
func TestInitRejectsBadBackoff(t *testing.T) {
	for _, bad := range [][2]string{{"MARTINI_SPIN", "-1"}, {"MARTINI_YIELD", "abc"}} {
		name, value := bad[0], bad[1]
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			code, out := runAlone(t, "self")
			want := name + "=" + strconv.Quote(value)
			if code == 0 || !strings.Contains(out, "mpi: Init") || !strings.Contains(out, want) {
				t.Errorf("exit %d, output:\n%s\nwant a failure of Init naming %s", code, out, want)
			}
		})
	}
}
