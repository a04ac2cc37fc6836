package nicbench

import (
	"bytes"
	"strings"
	"testing"
)

func TestRowVerdict(t *testing.T) {
	for _, c := range []struct {
		r    Row
		want string
	}{
		{Value("s", "a", "µs", "x", 2.0, 2.09, ""), "within ±5%"},
		{Value("s", "a", "µs", "x", 2.0, 2.11, ""), "outside ±5%"},
		{Check("s", "a", "x", "c", true, ""), "holds"},
		{Check("s", "a", "x", "c", false, ""), "does not hold"},
		{Reference("s", "a", "µs", "x", 2.6, ""), "reference (not a model output)"},
	} {
		if got := c.r.Verdict(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

// The rows and the NICs' table reach the page through the record.
func TestRowsOnPage(t *testing.T) {
	rec := &Record{Runs: []*Run{{Profile: "martini", Clock: "virtual"}},
		Rows: []Row{Value("Chapter 6", "AOTF", "µs", "Fig 6.1", 1.75, 1.74, "n"), Reference("Table 6.4", "Myrinet latency", "µs", "Table 6.4", 2.6, "")},
		NICs: []NICFigures{{Profile: "martini", Latency: 2.7, Bandwidth: 442, Barrier: map[int]float64{2: 2.9}, NPB: map[string]float64{"IS class S, 4 processes": 99.9}},
			{Profile: "cenju4", Latency: 5.2, Bandwidth: 207, Barrier: map[int]float64{2: 5.2}, InNetwork: map[int]float64{32: 5.7}}}}
	var js bytes.Buffer
	if err := rec.Encode(&js); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord(&js)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := writePageText(&md, back); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Chapter 6", "| AOTF (µs)", "-0.6%", "### Table 6.4", "reference (not a model output)",
		"## The three NICs", "| MPI_Barrier, 2 processes (µs)", "| in-network barrier (model), 32 nodes (µs)", "NPB IS class S, 4 processes (Mop/s)", "99.90"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("page lacks %q\n%s", want, md.String())
		}
	}
}
