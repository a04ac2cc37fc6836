package thesisnpb

import (
	"strings"
	"testing"
)

// report is the tail of a run of npb/cmd/npb under mpirun: NPB's report
// between other lines.
const report = `some line of mpirun

 CG Benchmark Completed.
 Class           =                        S
 Size            =                     1400
 Iterations      =                       15
 Time in seconds =                     0.37
 Total processes =                        4
 Mop/s total     =                   179.35
 Mop/s/process   =                    44.84
 Operation type  =           floating point
 Verification    =               SUCCESSFUL
 Version         =            3.4 (Go port)

   iteration           ||r||                 zeta
        1       0.14006707615843E-12     9.9986441579140
 Zeta is     0.8597177507865E+01
`

func TestParseReport(t *testing.T) {
	r, err := ParseReport(report)
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Benchmark: "CG", Class: "S", NP: 4, Seconds: 0.37, Mops: 179.35, Verified: true}
	if *r != want {
		t.Errorf("got %+v, want %+v", *r, want)
	}
	r, err = ParseReport(strings.Replace(report, "   SUCCESSFUL", " UNSUCCESSFUL", 1))
	if err != nil || r.Verified {
		t.Errorf("an UNSUCCESSFUL report: %+v, %v", r, err)
	}
}

func TestParseReportErrors(t *testing.T) {
	cases := []struct{ name, out, want string }{
		{"empty", "", `no "Benchmark Completed." line`},
		{"no Mop/s", strings.Replace(report, " Mop/s total ", " Mops ", 1), `no "Mop/s total" line`},
		{"bad Mop/s", strings.Replace(report, "179.35", "lots", 1), `Mop/s total "lots"`},
		{"bad processes", strings.Replace(report, "       4\n", "    four\n", 1), `Total processes "four"`},
		{"bad verification", strings.Replace(report, "   SUCCESSFUL", "      MAYBE", 1), `Verification "MAYBE": want SUCCESSFUL or UNSUCCESSFUL`},
	}
	for _, c := range cases {
		_, err := ParseReport(c.out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
