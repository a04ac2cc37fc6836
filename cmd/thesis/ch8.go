package main

import (
	"time"

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

// sectionCh8 is the rows' table on the page.
const sectionCh8 = "Chapter 8: mechanisms (Fig 8.4, Fig 8.5, 8.7.1)"

// ch8RecordRows returns the rows for the martini run in virtual time
// among runs, as the record's rows (the thesis's machine is what virtual
// time models; a run in real time measures this host): none without such
// a run, and none for a row whose round trips the run lacks.
func ch8RecordRows(runs []*nicbench.Run) ([]nicbench.Row, error) {
	p, err := nicemu.LookupProfile(nicemu.ProfileMartini)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if r.Profile != nicemu.ProfileMartini || r.Clock != nicemu.ClockVirtual {
			continue
		}
		var rows []nicbench.Row
		for _, c := range ch8Rows {
			if v, ok := c.model(p, r.PM); ok {
				rows = append(rows, nicbench.Value(sectionCh8, c.what, c.unit, c.source, c.thesis, v, ""))
			}
		}
		return rows, nil
	}
	return nil, nil
}
