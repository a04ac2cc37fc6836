package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/nicemu"
)

// The rows of chapters 6 and 7 that the thesis reproduction's jobs do not
// measure (Fig 6.1, 6.4, 7.8, 7.11) and Table 6.4's NICs of the period.
// They come from the martini model alone: lone writes
// (nicemu.Profile.WriteLatency) and streams between NICs
// (nicemu.Profile.RunModel), so that they are the same on every run.

// Sections of the rows.
const (
	sectionCh6 = "Chapter 6: Fig 6.1 and 6.4"
	sectionCh7 = "Chapter 7: Fig 7.8 and 7.11"
	sectionT64 = "Table 6.4: NICs of the period (reference)"
)

// The size of the model's streams: about streamBytes a point, at most
// maxStreamReq requests.
const (
	streamBytes  = 8 << 20
	maxStreamReq = 4096
)

// chapterRows returns the rows of chapters 6 and 7 and Table 6.4 under
// the martini profile p.
func chapterRows(p *nicemu.Profile) ([]nicbench.Row, error) {
	rows := fig61Rows(p)
	r64, err := fig64Rows(p)
	if err != nil {
		return nil, err
	}
	r78, err := fig78Rows(p)
	if err != nil {
		return nil, err
	}
	r711, err := fig711Rows(p)
	if err != nil {
		return nil, err
	}
	rows = append(append(append(rows, r64...), r78...), r711...)
	return append(rows, table64Rows()...), nil
}

// usec is d in microseconds.
func usec(d time.Duration) float64 { return float64(d) / 1e3 }

// fig61Rows: Fig 6.1, the remote write latency by size (thesis 6.1.2:
// AOTF 1.75 µs at 8 bytes, the lowest; BOTF the lowest from 16 to 64
// bytes, PUSH above).
func fig61Rows(p *nicemu.Profile) []nicbench.Row {
	lat := func(op nicemu.Op, n int) float64 { return usec(p.WriteLatency(op, n)) }
	rows := []nicbench.Row{nicbench.Value(sectionCh6, "8 B remote write, AOTF: the lowest latency", "µs", "6.1.2, Fig 6.1", 1.75, lat(nicemu.OpAOTF, 8),
		fmt.Sprintf("BOTF %.2f, PUSH %.2f", lat(nicemu.OpBOTF, 8), lat(nicemu.OpPush, 8)))}
	botf, push := true, true
	var notes []string
	for _, n := range []int{16, 32, 64} {
		b, u := lat(nicemu.OpBOTF, n), lat(nicemu.OpPush, n)
		botf = botf && b < u
		notes = append(notes, fmt.Sprintf("%d B: BOTF %.2f, PUSH %.2f", n, b, u))
	}
	rows = append(rows, nicbench.Check(sectionCh6, "BOTF the fastest write from 16 to 64 B", "6.1.2, Fig 6.1", "BOTF < PUSH at 16, 32, 64 B", botf, strings.Join(notes, "; ")))
	notes = nil
	for _, n := range []int{128, 256, 512} {
		b, u := lat(nicemu.OpBOTF, n), lat(nicemu.OpPush, n)
		push = push && u < b
		notes = append(notes, fmt.Sprintf("%d B: BOTF %.2f, PUSH %.2f", n, b, u))
	}
	cross := 8
	for cross < 2048 && lat(nicemu.OpPush, cross) >= lat(nicemu.OpBOTF, cross) {
		cross += 8
	}
	notes = append(notes, fmt.Sprintf("PUSH first faster at %d B", cross))
	rows = append(rows, nicbench.Check(sectionCh6, "PUSH the fastest write above 64 B", "6.1.2, Fig 6.1", "PUSH < BOTF at 128, 256, 512 B", push, strings.Join(notes, "; ")))
	return rows
}

// stream returns the model's one-way PUSH throughput of size-byte
// requests from process 0 to 1 (MB/s), with the receiver dropping every
// packet when drop is set.
func stream(p *nicemu.Profile, size int, drop bool) (float64, error) {
	m := nicemu.ModelRun{Procs: 2, Flows: []nicemu.Flow{pushFlow(0, size, 1)}}
	if drop {
		m.Discard = []int{1}
	}
	v, err := p.RunModel(m)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// pushFlow is a stream of PUSHes of size bytes from process from to the
// processes to in turn.
func pushFlow(from, size int, to ...int) nicemu.Flow {
	return nicemu.Flow{Kind: nicemu.FlowPush, From: from, To: to, Size: size, Count: min(max(streamBytes/size, 16), maxStreamReq)}
}

// fig64Rows: Fig 6.4, one-way throughput with the receiver dropping every
// packet ("Sending") against the usual one (6.1.3): higher, so the usual
// peak is bound by the receiver; up to 1 KB almost the same.
func fig64Rows(p *nicemu.Profile) ([]nicbench.Row, error) {
	var peakOne, peakDrop float64
	small := true
	first := 0
	for size := 8; size <= 1<<20; size *= 2 {
		one, err := stream(p, size, false)
		if err != nil {
			return nil, err
		}
		drop, err := stream(p, size, true)
		if err != nil {
			return nil, err
		}
		peakOne, peakDrop = max(peakOne, one), max(peakDrop, drop)
		gain := drop/one - 1
		if size <= 1024 {
			small = small && gain < 0.02
		}
		if first == 0 && gain >= 0.02 {
			first = size
		}
	}
	peaks := fmt.Sprintf("peaks: %.1f MB/s received, %.1f dropped", peakOne, peakDrop)
	return []nicbench.Row{
		nicbench.Check(sectionCh6, "one-way peak bound by the receiver", "6.1.3, Fig 6.4", "dropping at the receiver raises the peak", peakDrop > 1.02*peakOne, peaks),
		nicbench.Check(sectionCh6, "up to 1 KB the receiver does not bound it", "6.1.3, Fig 6.4", "dropping changes nothing up to 1 KB (< 2%)", small, ""),
		nicbench.Check(sectionCh6, "above 1 KB the receiver bounds it", "6.1.3, Fig 6.4", "dropping gains ≥ 2% from 2 KB", first == 2048,
			fmt.Sprintf("the model's first gain of 2%%: %s (the receive FIFO limits only once the contflag wait no longer does)", sizeName(first))),
	}, nil
}

func sizeName(n int) string {
	switch {
	case n == 0:
		return "none"
	case n >= 1024:
		return fmt.Sprintf("%d KB", n/1024)
	}
	return fmt.Sprintf("%d B", n)
}

// fig78Sizes are the transfer sizes of Fig 7.8.
var fig78Sizes = []int{128, 512, 2048, 8 << 10, 32 << 10, 128 << 10}

// fig78 is Fig 7.8's patterns at one size (MB/s): the sum of the senders'
// throughputs of patterns (1)-(3), (4)'s stream (a), (5')'s two senders.
type fig78 struct{ p1, p2, p3, p4, p5 float64 }

// fig78At runs Fig 7.7's patterns on three NICs: (1) node 1 streams to
// node 0; (2) node 1 to nodes 0 and 2 in turn; (3) nodes 0 and 2 to node
// 1; (4) as (1), while node 2 sends node 1 packets that fault at RFend
// and that its firmware discards; (5') as (3), while node 1's Initiator
// faults over and over.
func fig78At(p *nicemu.Profile, size int) (fig78, error) {
	var f fig78
	sum := func(m nicemu.ModelRun, n int) (float64, error) {
		v, err := p.RunModel(m)
		s := 0.0
		for _, x := range v[:min(n, len(v))] {
			s += x
		}
		return s, err
	}
	fault := nicemu.Flow{Kind: nicemu.FlowFault, From: 2, To: []int{1}, Size: min(size, 2048), Count: 2 * maxStreamReq}
	runs := []struct {
		to *float64
		m  nicemu.ModelRun
		n  int
	}{
		{&f.p1, nicemu.ModelRun{Procs: 3, Flows: []nicemu.Flow{pushFlow(1, size, 0)}}, 1},
		{&f.p2, nicemu.ModelRun{Procs: 3, Flows: []nicemu.Flow{pushFlow(1, size, 0, 2)}}, 1},
		{&f.p3, nicemu.ModelRun{Procs: 3, Flows: []nicemu.Flow{pushFlow(0, size, 1), pushFlow(2, size, 1)}}, 2},
		{&f.p4, nicemu.ModelRun{Procs: 3, Flows: []nicemu.Flow{pushFlow(1, size, 0), fault}}, 1},
		{&f.p5, nicemu.ModelRun{Procs: 3, Flows: []nicemu.Flow{pushFlow(0, size, 1), pushFlow(2, size, 1)}, BusyInitiator: []int{1}}, 2},
	}
	for _, r := range runs {
		v, err := sum(r.m, r.n)
		if err != nil {
			return f, err
		}
		*r.to = v
	}
	return f, nil
}

// fig78Rows: Fig 7.8 (7.5.2): (1) ≈ (2) < (3), so the chapter 7
// testbed's one-to-one stream was limited by its sender; (4) ≈ (1) and
// (5') = (3), so an exception on one side leaves the other's throughput
// as it was; (5) below (3) from the PCI bus crowded by the cancelled
// requests.
func fig78Rows(p *nicemu.Profile) ([]nicbench.Row, error) {
	near := func(a, b float64) bool { return a > 0 && b/a > 0.95 && b/a < 1.05 }
	rfend, init := true, true
	var sender, recv []string // the sizes where each check fails
	for _, size := range fig78Sizes {
		f, err := fig78At(p, size)
		if err != nil {
			return nil, err
		}
		at := fmt.Sprintf("%s: (1) %.0f, (2) %.0f, (3) %.0f", sizeName(size), f.p1, f.p2, f.p3)
		if !near(f.p1, f.p2) {
			sender = append(sender, at)
		}
		if !(f.p1 < 0.98*f.p3) {
			recv = append(recv, at)
		}
		rfend = rfend && near(f.p1, f.p4)
		init = init && near(f.p3, f.p5)
	}
	fails := func(at []string, why string) string {
		if len(at) == 0 {
			return ""
		}
		return "fails at " + strings.Join(at, "; ") + why
	}
	const testbed = ". The model's costs are the chapter 6 testbed's, whose receiver bounds the peak (Fig 6.4); the chapter 7 hosts (Table 7.2: ServerSet III HE-SL, not LE) reached their senders' limit first, and the text gives no figure of it to derive"
	return []nicbench.Row{
		nicbench.Check(sectionCh7, "one-to-one stream limited by the sender (the chapter 7 testbed)", "7.5.2, Fig 7.8", "(1) ≈ (2) within 5% at 128 B-128 KB", len(sender) == 0, fails(sender, testbed)),
		nicbench.Check(sectionCh7, "the receiver could take more", "7.5.2, Fig 7.8", "(1) < (3) by 2% at 128 B-128 KB", len(recv) == 0, fails(recv, ": the one-to-one stream already takes the receiver's all")),
		nicbench.Check(sectionCh7, "RFend's exceptions leave sending alone", "7.5.2, Fig 7.8", "(4) ≈ (1) within 5%", rfend, "firmware discarding faulting packets holds node 1's receive path only"),
		nicbench.Check(sectionCh7, "the Initiator's exceptions leave receiving alone", "7.5.2, Fig 7.8", "(5') ≈ (3) within 5%", init, "the receive path shares nothing with the Initiator"),
		nicbench.Check(sectionCh7, "cancelled requests crowd the PCI bus", "7.5.2, Fig 7.8", "(5) < (3)", false, "not modelled: the model puts no PIO stores on the PCI bus"),
	}, nil
}

// fig711Rows: Fig 7.11, VPUSH at 2 KB: 180.3 MB/s with the hardware
// resumed, 78.6 MB/s with the receive done all in software.
func fig711Rows(p *nicemu.Profile) ([]nicbench.Row, error) {
	run := func(kind nicemu.FlowKind) (float64, error) {
		v, err := p.RunModel(nicemu.ModelRun{Procs: 2, Flows: []nicemu.Flow{{Kind: kind, From: 0, To: []int{1}, Size: 2048, Count: maxStreamReq}}})
		if err != nil {
			return 0, err
		}
		return v[0], nil
	}
	hw, err := run(nicemu.FlowVPUSH)
	if err != nil {
		return nil, err
	}
	sw, err := run(nicemu.FlowVPUSHSoftware)
	if err != nil {
		return nil, err
	}
	return []nicbench.Row{
		nicbench.Value(sectionCh7, "VPUSH/Software, 2 KB", "MB/s", "7.5.3, Fig 7.11", 78.6, sw,
			"the firmware's VPUSH handlers (Fig 7.12) and SOFT's completion (Fig 7.9), the DMA not overlapped; none fitted to this figure"),
		nicbench.Check(sectionCh7, "hardware resumed more than twice as fast as all software", "7.5.3, Fig 7.11", "VPUSH / VPUSH/Software ≥ 2 at 2 KB (180.3 / 78.6 = 2.29)", hw >= 2*sw,
			fmt.Sprintf("VPUSH %.1f, VPUSH/Software %.1f MB/s: %.2f", hw, sw, hw/sw)),
	}, nil
}

// table64Rows: Table 6.4's NICs of the period, as the thesis lists them
// (6.2): the papers' figures, not the model's.
func table64Rows() []nicbench.Row {
	type nic struct {
		name               string
		latency, one, both float64
		half               string
	}
	nics := []nic{
		{"Myrinet-2000 (LANai 2XP, M3F2-PCIXE)", 2.6, 495, 912, "300 B"},
		{"QsNet II (Elan4, QM500)", 1.6, 911, 900, "4-8 KB"},
		{"InfiniBand 4X (InfiniHost III Ex)", 3.8, 972, 1932, "1-2 KB"},
		{"10GbE TOE (Chelsio T110)", 8.9, 972, 0, "256-512 B"},
	}
	var rows []nicbench.Row
	for _, n := range nics {
		rows = append(rows,
			nicbench.Reference(sectionT64, n.name+": latency", "µs", "6.2, Table 6.4", n.latency, "Martini: 1.74 µs (AOTF)"),
			nicbench.Reference(sectionT64, n.name+": one-way throughput", "MB/s", "6.2, Table 6.4", n.one, "Size_half "+n.half+"; Martini: 444 MB/s, 1 KB"))
		if n.both > 0 {
			rows = append(rows, nicbench.Reference(sectionT64, n.name+": bidirectional throughput", "MB/s", "6.2, Table 6.4", n.both, "Martini: 470 MB/s"))
		}
	}
	return rows
}
