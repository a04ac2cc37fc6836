package thesisnpb

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rhinet-go/martini/bench"
)

// The sweep's default process counts (thesis 8.6: 2 to 16 nodes; BT and
// SP take squares).
var (
	DefaultProcs = []int{2, 4, 8, 16}
	SquareProcs  = []int{4, 9, 16}
	// SquareBenchmarks take SquareProcs.
	SquareBenchmarks = []string{"BT", "SP"}
	// AllBenchmarks are NPB's eight, in its order.
	AllBenchmarks = []string{"EP", "IS", "CG", "MG", "FT", "BT", "SP", "LU"}
	// AllClasses are the thesis's classes.
	AllClasses = []string{"S", "W", "A"}
)

// ProcsOf returns the default process counts of benchmark b.
func ProcsOf(b string) []int {
	if slices.Contains(SquareBenchmarks, b) {
		return SquareProcs
	}
	return DefaultProcs
}

// Missing returns the points of the thesis's sweep (every benchmark,
// class, layer and default process count) that r lacks.
func Missing(r *Record) []Key {
	var out []Key
	for _, c := range AllClasses {
		for _, b := range AllBenchmarks {
			for _, np := range ProcsOf(b) {
				for _, l := range Layers {
					k := Key{Benchmark: b, Class: c, Layer: l, NP: np}
					if _, ok := r.Find(k); !ok {
						out = append(out, k)
					}
				}
			}
		}
	}
	return out
}

// WritePage writes the page of record rec, whose file in dir is named name,
// into dir: bench.ThesisPage(name) ("thesis-npb.md") with the findings
// and their verdicts, the runtimes, a table and a plot per benchmark (in
// dir/plots). The page depends on the record only.
func WritePage(dir, name string, rec *Record) error {
	base := strings.TrimSuffix(name, ".json")
	var md bytes.Buffer
	writeIntro(&md, name, rec)
	writeFindings(&md, rec)
	writeMissing(&md, rec)
	if err := writeRuntimes(&md, rec); err != nil {
		return err
	}
	writeEscapes(&md, rec)
	fmt.Fprintf(&md, "\n## Mop/s against processes\n")
	for _, b := range rec.Benchmarks() {
		file := "plots/" + base + "-" + strings.ToLower(b) + ".svg"
		if err := Plot(rec, b, filepath.Join(dir, file)); err != nil {
			return err
		}
		fmt.Fprintf(&md, "\n### %s\n\nMop/s in total, virtual time.\n\n", b)
		if err := writeTable(&md, rec, b); err != nil {
			return err
		}
		fmt.Fprintf(&md, "\n![%s](%s)\n", b, file)
	}
	if err := os.WriteFile(filepath.Join(dir, bench.ThesisPage(name)), md.Bytes(), 0o644); err != nil {
		return fmt.Errorf("thesisnpb: page: %w", err)
	}
	return nil
}

func writeIntro(md *bytes.Buffer, name string, rec *Record) {
	fmt.Fprintf(md, "# The thesis's chapter 8: NPB on PM/RHiNET and PM/RHiNET-VP, in virtual time\n\n")
	fmt.Fprintf(md, "Generated from [%s](%s), written by `go run ./cmd/thesis npb` (a sweep begun %s; %d runs), by `go run ./cmd/mpibench report`. ",
		name, name, rec.Time.Format("2006-01-02 15:04 MST"), len(rec.Points))
	if rec.Compute == ComputeDeclared {
		fmt.Fprintf(md, "Each run is `mpirun -np N -profile martini -clock virtual -compute declared -op-rate R -eager pm|vp ./npb/cmd/npb -class C bench`: the Go ports of NPB 3.4 (the thesis ran NPB 2.3, compiled with gcc/g77 2.95.3), their Mop/s in the virtual time of the martini model. The computing is declared: each benchmark's compute phases declare their operations over the process's own part (adding up to NPB's count at one process), charged at the rate R of the benchmark and class (below: its single-process Mop/s on this machine divided by the host speed of %s), so that no load and no number of processes per core moves it; the communication is emulated. ", rec.HostSpeed)
	} else {
		fmt.Fprintf(md, "Each run is `mpirun -np N -profile martini -clock virtual -host-speed %s -eager pm|vp ./npb/cmd/npb -class C bench`: the Go ports of NPB 3.4 (the thesis ran NPB 2.3, compiled with gcc/g77 2.95.3), their Mop/s in the virtual time of the martini model, the ranks' computing counted as their thread CPU time on this machine times the host-speed factor. ", rec.HostSpeed)
	}
	fmt.Fprintf(md, "`-eager pm` is PM/RHiNET as MPICH-SCore uses it without PM's remote memory access (thesis 8.3, 8.5): a ring per peer, records at 2 KB boundaries, every PUSH one 2 KB packet waiting for its ack before the next, every message sent eagerly, one above 32 KB as several ring records of up to 32 KB without a handshake. `-eager vp` is PM/RHiNET-VP: one VPUSH receive queue, PM messages of at most 2 KB without ack, every message sent eagerly, one above 2 KB as several of them without a handshake. ")
	fmt.Fprintf(md, "Machine of the last sweep: %s, %s.\n", rec.Machine.CPU, rec.GoVersion)
	writeCalibrations(md, rec)
}

// writeCalibrations writes the table of the record's calibrations.
func writeCalibrations(md *bytes.Buffer, rec *Record) {
	if len(rec.Calibrations) == 0 {
		return
	}
	fmt.Fprintf(md, "\n### The modelled host's operation rates\n\n")
	fmt.Fprintf(md, "| benchmark | class | Mop/s on one process here | runs (best taken) | load | ÷ host speed | -op-rate, Mop/s |\n|---|---|---|---|---|---|---|\n")
	for _, c := range rec.Calibrations {
		fmt.Fprintf(md, "| %s | %s | %.2f | %d | %.1f | %g | %.3f |\n", c.Benchmark, c.Class, c.Mops, c.Runs, c.Load, c.HostSpeed, c.OpRate)
	}
	if c := rec.Calibrations[0]; c.Command != "" {
		fmt.Fprintf(md, "\nEach measured as `%s`.\n", c.Command)
	}
}

func writeFindings(md *bytes.Buffer, rec *Record) {
	fmt.Fprintf(md, "\n## The thesis's findings (8.6), tested on these runs\n\n")
	fmt.Fprintf(md, "Each verdict is computed from the record (package bench/thesisnpb, `Findings`); the thresholds: ideal scaling is a parallel efficiency of at least %.1f; scaling is a gain in Mop/s of at least (most/fewest)^(%s) from the fewest processes to the most, ×%.2f per doubling whatever the range (×%.2f from 2 to 4, ×%.2f from 4 to 9, ×%.2f from 2 to 16), and a stall a gain below that from 4 processes to the most (×%.2f from 4 to 8, ×%.2f from 4 to 16); far ahead is a median ratio of at least %.1f; the benchmark furthest ahead is found at the largest process count all of them have.\n\n",
		IdealEfficiency, exponentText(), ScaleGain(1, 2), ScaleGain(2, 4), ScaleGain(4, 9), ScaleGain(2, 16), ScaleGain(4, 8), ScaleGain(4, 16), FarAhead)
	for i, f := range Findings {
		v, detail := f.Test(rec)
		fmt.Fprintf(md, "%d. %s **Here: %s.** %s.\n", i+1, f.Claim, v, upperFirst(detail))
	}
	fmt.Fprintf(md, "\n%s\n", caveats(rec))
}

// exponentText writes ScaleExponent as a fraction ("1/3") when it is
// one, as a decimal otherwise.
func exponentText() string {
	if d := math.Round(1 / ScaleExponent); math.Abs(1/d-ScaleExponent) < 1e-12 {
		return fmt.Sprintf("1/%.0f", d)
	}
	return strconv.FormatFloat(ScaleExponent, 'g', 3, 64)
}

// caveats says what limits the comparison, whatever the verdicts: the
// computing as the record's runs counted it (declared or CPU time), then
// what neither models.
func caveats(rec *Record) string {
	computing := cpuComputing
	if rec.Compute == ComputeDeclared {
		computing = declaredComputing
	}
	return "What the emulation does not model as the thesis's testbed ran:\n\n" + computing + "\n" + commonCaveats
}

// declaredComputing is the computing caveat of a record under declared
// computing (mpirun -compute declared).
const declaredComputing = `- **Computing.** A rank's computing is the operations its benchmark declares (counted from its own loop bounds; at one process they add up to NPB's count), charged at one rate per benchmark and class: its Mop/s on one process of this machine in real time divided by the host speed (13 for the Pentium III 933 MHz: an estimate from clock rates and work per cycle, not calibrated on a single-node NPB figure, which the thesis does not give). So the computing scales exactly with the operations and no load or process count moves it; but cache effects are gone too: a rank's smaller share of the data computes no faster here, while on the thesis's hosts (256 KB of L2) it could. The host's own software costs in communicating are charged as the thesis names them (docs/timing.md, "Chapter 8's mechanisms"): MPICH-SCore's copies into and out of PM's buffers and PM/RHiNET's zeroing of released buffers, at rates derived from the Pentium III host (3.73 GB/s while a copy fits the 256 KB L2, 355 MB/s beyond); MPICH-SCore's matching is not.`

// cpuComputing is the computing caveat of a record under CPU computing
// (the thread's CPU time).
const cpuComputing = `- **Computing.** A rank's computing is its thread's CPU time on this machine times the -host-speed factor (13 for the Pentium III 933 MHz, an estimate, not calibrated on a single-node NPB figure). With more ranks than cores, and other load, that CPU time grows (cache and scheduler interference), so Mop/s that depend on computing move from run to run; EP, which only computes, shows how much.`

// commonCaveats are the caveats of every record.
const commonCaveats = `- **Messages of several PM messages.** MPICH-SCore, with PM/RHiNET's remote memory access off and none on PM/RHiNET-VP, sends a message of more than one PM message as several PM messages without a handshake, at any size (8.5); so does this runtime (` + "`llc.Config.NoRendezvous`" + `): under PM/RHiNET as ring records of up to 32 KB (this runtime's eager limit: the thesis does not give the size of MPICH-SCore's PM messages) in a ring of 256 KB a sender, each sent as 2 KB PUSHes that wait for their acks, under PM/RHiNET-VP as VPUSH records of 2 KB in one queue of 256 KB; the receiver assembles the message in a buffer of its own. A sender whose ring is full tries again at its own clock; one whose VPUSH queue is full waits for the receiver's next release, an event at the receiver's clock, and sends again then (docs/timing.md, "Room in a VPUSH queue"). A message's copy at either end is charged whole, at the rate its size gives (in the L2 or not).
- **Determinism.** The communication's virtual times depend on the program and the model only: the ranks are ordered as a conservative parallel simulation, whatever the host's scheduling. Under declared computing, so do the runs' Mop/s (package npb's TestNPBDeclaredDeterministic checks it, beside busy loops); under CPU time they move with the load. A single run per point is recorded.
- **Collectives.** They run over point-to-point messages with this runtime's algorithms, not MPICH-SCore's.
- **Chapter 8's mechanisms in the model** (docs/timing.md): the VPUSH firmware's 7.4 µs of a packet on the receiver (8.7.1; 2 KB VPUSHes at 181.7 MB/s against Fig 7.11's 180.3); the host copies and zeroing above; PM/RHiNET's sweep of its rings, stepping up past 8 rings at Fig 8.5's 70 ns a buffer (round trips 9.98, 10.08, 10.32, 12.10 µs at 2, 4, 8, 16 processes; Fig 8.4: 10.1, flat, 11.9), with a second sweep when a 1 KB-or-longer message's trailer is not in yet (Fig 8.6); 4 nodes a switch and one 600 MB/s link between two switches (8.3.2). The thesis gives no switch latency, so none is charged.
- **Fig 8.10 (MPI latency): not reproduced.** One way, PM/RHiNET against PM/RHiNET-VP (` + "`mpirun -np 2 -profile martini -clock virtual -host-speed 0 -eager pm|vp ./examples/pingpong`" + `): 8 B 4.99 / 12.34 µs, 1 KB 9.74 / 15.80, 2 KB 18.15 / 27.87, 4 KB 31.34 / 39.60, 8 KB 64.08 / 63.07, 16 KB 118.0 / 110.0. PM/RHiNET-VP falls below PM/RHiNET between 4 and 8 KB, where the thesis has it from 2 KB. The model charges PM/RHiNET about 13 µs for each 2 KB packet and its ack, PM/RHiNET-VP about 11.5 µs for each further packet: 1.5 µs a packet less, against 7.6 µs more for the first. The thesis's reason (each 2 KB of PM/RHiNET costs "a packet's round trip", more than a VPUSH's receive processing) holds in the model, but by less; its Fig 8.7 jump of PM/RHiNET between 1 and 2 KB is not given as a number, nor the RHiNET-2/SW's latency that each packet and ack of the testbed crossed, so nothing derives a larger one.
- **Findings 4 and 5 with these mechanisms.** Finding 4 is still not reproduced: PM/RHiNET's lead for small messages (one way 4.99 against 12.34 µs) shows from 8 processes on (at 16, class S: CG ×1.23, MG ×1.41, LU ×1.38), but computing takes most of a run at 2 and 4 processes, and FT's all-to-all favours PM/RHiNET-VP from 8 processes (×0.83 at 8, ×0.87 at 16), whose packets follow one another without acks; the median stays near 1.05. Finding 5 shows in the kernels' trend, weakly: PM/RHiNET-VP's Mop/s over PM/RHiNET's at class A and 2, 4, 8, 16 processes are IS ×0.97, 0.99, 1.10, 1.01, FT ×0.96, 0.99, 1.09, 1.06, MG ×1.00, 1.00, 1.05, 1.04 and CG ×1.00, 1.01, 1.04, 1.02: ahead from 8 processes, most at 8, by 10% at the most, IS and FT most. BT and SP go the other way (×0.69, 0.78, 0.80 and ×0.74, 0.72, 0.75 at 4, 9, 16 processes), and LU is even (×1.00 at 2, 4, 8 and 16). The cause, confirmed: BT's and SP's faces, sent to several neighbours at once, fill PM/RHiNET-VP's one receive queue (256 KB here, shared by every sender; the thesis gives no size) while its owner computes, and each sender that finds it full waits for the owner's next poll (BT at 4 processes: 762 refused VPUSHes a rank), where PM/RHiNET gives each sender a ring of its own (256 KB each; the thesis's testbed had 128 KB, mpirun -pm-ring; docs/timing.md). With a 2 MB queue (mpirun -vp-queue 2m, the memory PM/RHiNET's 15 rings of 128 KB take at 16 nodes) no VPUSH is refused and at 4 processes PM/RHiNET-VP gives BT 1941 Mop/s (×1.00 of PM/RHiNET) and SP 1182 (×1.14): finding 5's direction, from a size the thesis does not give, so the sweep keeps 256 KB. The thesis's Fig 8.11-8.18 give no values in its text to hold the ratios against.
- **Fig 8.9 (MPI throughput): qualitatively.** One way (the pingpong above), PM/RHiNET and PM/RHiNET-VP peak at 156 and 168 MB/s between 64 and 128 KB, then fall to 87-112 and 92-119 MB/s from 256 KB on, where a copy's source and destination no longer fit the L2; the thesis has both peak near 32 KB and stay flat beyond (PMB's Sendrecv fills the L2 with four buffers at 64 KB). The Zerocopy curve (PM/RHiNET's RMA on, ` + "`-eager pm -pm-rma`" + `: a rendezvous above 16 KB whose data one PUSH moves between the users' buffers) reaches 360, 432 and 441 MB/s at 32 KB, 256 KB and 1 MB, the thesis's "more than 300 MB/s" (` + "`cmd/thesis -clock virtual`" + `'s row); these NPB runs keep the RMA off, as the thesis's did.`

func writeMissing(md *bytes.Buffer, rec *Record) {
	miss := Missing(rec)
	if len(miss) == 0 {
		return
	}
	fmt.Fprintf(md, "\n## Points not run yet\n\n%d points of the thesis's sweep (%s; kernels and LU at %s processes, BT and SP at %s) are not in the record; `go run ./cmd/thesis npb -resume` runs them:\n\n",
		len(miss), strings.Join(AllClasses, ", "), joinInts(DefaultProcs), joinInts(SquareProcs))
	byClass := map[string][]string{}
	for _, k := range miss {
		byClass[k.Class] = append(byClass[k.Class], fmt.Sprintf("%s np %d %s", k.Benchmark, k.NP, k.Layer))
	}
	for _, c := range AllClasses {
		if len(byClass[c]) > 0 {
			fmt.Fprintf(md, "- class %s: %s\n", c, strings.Join(byClass[c], ", "))
		}
	}
}

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// writeRuntimes tables how long the runs took on the machine, by class
// and process count: the median and the longest, and the load averages
// they ran under.
func writeRuntimes(w io.Writer, rec *Record) error {
	fmt.Fprintf(w, "\n## How long the runs took\n\nReal seconds per run on the machine that ran them (all benchmarks and both layers of each class and process count: median / longest), and the one-minute load average when they began (lowest to highest): the machine is shared, and under declared computing the load moves only these times, not the Mop/s.\n\n")
	var procs []int
	for _, p := range rec.Points {
		if !slices.Contains(procs, p.NP) {
			procs = append(procs, p.NP)
		}
	}
	slices.Sort(procs)
	header := []string{"processes"}
	for _, c := range AllClasses {
		header = append(header, "class "+c+", s", "load")
	}
	var rows [][]string
	for _, np := range procs {
		row := []string{strconv.Itoa(np)}
		for _, c := range AllClasses {
			var walls, loads []float64
			for _, p := range rec.Points {
				if p.NP == np && p.Class == c {
					walls, loads = append(walls, p.Wall), append(loads, p.Load)
				}
			}
			if len(walls) == 0 {
				row = append(row, "—", "—")
				continue
			}
			row = append(row, fmt.Sprintf("%.1f / %.1f", median(walls), slices.Max(walls)),
				fmt.Sprintf("%.0f–%.0f", slices.Min(loads), slices.Max(loads)))
		}
		rows = append(rows, row)
	}
	return bench.MarkdownTable(w, header, rows)
}

// writeEscapes says which runs had a process escape the ordering of
// virtual time (Point.Escapes), of the runs that counted it.
func writeEscapes(w io.Writer, rec *Record) {
	counted := 0
	var escaped []string
	for _, p := range rec.Points {
		if p.Escapes == nil {
			continue
		}
		counted++
		if *p.Escapes > 0 {
			escaped = append(escaped, fmt.Sprintf("%s class %s np %d %s (%s)", p.Benchmark, p.Class, p.NP, p.Layer, Processes(*p.Escapes)))
		}
	}
	if counted == 0 {
		return
	}
	fmt.Fprintf(w, "\nEscapes from the ordering of virtual time (a process waited 5 s of real time for the others' clocks, starved of the processor say, and went on in real order, so that the run's virtual times may differ from another's): %d of the %d runs that counted them", len(escaped), counted)
	if len(escaped) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(escaped, ", "))
	}
	fmt.Fprintf(w, ".\n")
}

// Processes says n processes, in the singular for one.
func Processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}
