package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/nicemu"
)

// Chapter 8's figures that follow from the martini model's mechanisms and
// the PM round trips a run measured: Fig 8.4's step, Fig 8.5's sweep of
// 128 buffers, and 8.7.1's predictions for a faster VPUSH.

// ch8Row is one of them: the thesis's value beside the model's.
type ch8Row struct {
	what, unit, source string
	thesis             float64
	model              func(p *nicemu.Profile, pm map[string]map[int]float64) (float64, bool)
}

// rtt returns a measured PM round trip (µs), if the run has it.
func rtt(pm map[string]map[int]float64, layer string, procs int) (float64, bool) {
	v, ok := pm[layer][procs]
	return v, ok
}

// us is d in microseconds.
func us(d time.Duration) float64 { return d.Seconds() * 1e6 }

// ch8Rows are the rows, in the thesis's order.
var ch8Rows = []ch8Row{
	{"PM/RHiNET round trip, 8 → 16 processes: the step", "µs", "8.3.2, Fig 8.4", 1.8,
		func(_ *nicemu.Profile, pm map[string]map[int]float64) (float64, bool) {
			a, ok1 := rtt(pm, "pm", 8)
			b, ok2 := rtt(pm, "pm", 16)
			return b - a, ok1 && ok2
		}},
	{"PM/RHiNET sweep of 128 receive buffers (at least)", "µs", "8.3.2, Fig 8.5", 9,
		func(p *nicemu.Profile, _ map[string]map[int]float64) (float64, bool) {
			return us(p.PMSweep(128)), true
		}},
	{"VPUSH firmware alone, a small packet", "µs", "8.7.1", 7.4,
		func(p *nicemu.Profile, _ map[string]map[int]float64) (float64, bool) {
			return us(p.VPUSHFirmwareWait(8)), true
		}},
	{"PM/RHiNET-VP round trip, firmware time halved", "µs", "8.7.1", 18.1,
		func(p *nicemu.Profile, pm map[string]map[int]float64) (float64, bool) {
			v, ok := rtt(pm, "vp", 2)
			return v - us(p.VPUSHFirmwareWait(8)), ok // half of it on each of two hops
		}},
	{"PM/RHiNET-VP round trip, VPUSH in hardware (≈ PM/RHiNET at 16)", "µs", "8.7.1", 11.9,
		func(p *nicemu.Profile, pm map[string]map[int]float64) (float64, bool) {
			// 8.7.1: the hardware's receive notification adds about 1.0 µs
			// to a PUSH's receive processing in place of the firmware.
			v, ok := rtt(pm, "vp", 2)
			return v - 2*us(p.VPUSHFirmwareWait(8)) + 2*1.0, ok
		}},
}

// writeCh8Table writes the rows for the martini run among runs, as
// Markdown; nothing when there is none.
func writeCh8Table(w io.Writer, runs []*nicbench.Run) error {
	p, err := nicemu.LookupProfile(nicemu.ProfileMartini)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.Profile != nicemu.ProfileMartini {
			continue
		}
		fmt.Fprintf(w, "\nChapter 8's mechanisms (%s):\n\n", r.Name())
		return bench.MarkdownTable(w, []string{"figure", "thesis", "source", "model", "deviation"}, ch8Table(p, r.PM))
	}
	return nil
}

// ch8Table computes the rows' cells.
func ch8Table(p *nicemu.Profile, pm map[string]map[int]float64) [][]string {
	var rows [][]string
	for _, c := range ch8Rows {
		row := []string{c.what + " (" + c.unit + ")", strconv.FormatFloat(c.thesis, 'f', 2, 64), c.source, "—", "—"}
		if v, ok := c.model(p, pm); ok {
			row[3] = strconv.FormatFloat(v, 'f', 2, 64)
			row[4] = fmt.Sprintf("%+.1f%%", 100*(v-c.thesis)/c.thesis)
		}
		rows = append(rows, row)
	}
	return rows
}
