package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/nicemu"
)

// TestCh8Table checks chapter 8's rows against round trips given: the
// step from 8 to 16 processes, the model's sweep and firmware figures, and
// 8.7.1's predictions from the VP round trip; a row whose round trips the
// run lacks shows none.
func TestCh8Table(t *testing.T) {
	p, err := nicemu.LookupProfile(nicemu.ProfileMartini)
	if err != nil {
		t.Fatal(err)
	}
	pm := map[string]map[int]float64{"pm": {8: 10.3, 16: 12.1}, "vp": {2: 24.7}}
	rows := ch8Table(p, pm)
	want := []string{"1.80", "8.96", "7.40", "17.30", "11.91"}
	for i, w := range want {
		if got := rows[i][3]; got != w {
			t.Errorf("%s: model %s, want %s", rows[i][0], got, w)
		}
	}
	if rows := ch8Table(p, nil); rows[0][3] != "—" || rows[3][3] != "—" || rows[1][3] != "8.96" {
		t.Errorf("without round trips: %v", rows)
	}
	var out bytes.Buffer
	runs := []*nicbench.Run{{Profile: nicemu.ProfileMartini, PM: pm}}
	if err := writeCh8Table(&out, runs); err != nil || !strings.Contains(out.String(), "Fig 8.5") {
		t.Errorf("table %q, error %v", out.String(), err)
	}
}
