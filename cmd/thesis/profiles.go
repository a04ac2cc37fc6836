package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/bench/thesisnpb"
	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/nicemu"
)

// The other seeds' NICs beside Martini (seeds 001, 002, 004): their
// profiles' headline figures as rows, and the same MPI programs and an NPB
// kernel run in virtual time under each profile (the three NICs' table).

// Sections of the other NICs' rows.
const (
	sectionDIMMnet2 = "DIMMnet-2 (seed 002)"
	sectionCenju4   = "Cenju-4 (seed 004)"
	sectionETL      = "ETL synchronisation network (seed 001)"
)

// comparedProfiles are the NICs compared on the same programs.
var comparedProfiles = []string{nicemu.ProfileMartini, nicemu.ProfileDIMMnet2, nicemu.ProfileCenju4}

// barrierProcs are the job sizes of the barrier comparison.
var barrierProcs = []int{2, 4, 8}

// npbCompared are the NPB runs of the comparison, at class S.
var npbCompared = []struct {
	bench string
	np    int
}{{"IS", 4}, {"CG", 4}}

// seedRows returns the rows of DIMMnet-2's and Cenju-4's headline figures
// from their profiles' model, and of the ETL synchronisation network's.
// nics, when it holds the comparison's figures, adds the MPI-level rows.
func seedRows(nics []nicbench.NICFigures) ([]nicbench.Row, error) {
	d, c := &nicemu.DIMMnet2, &nicemu.Cenju4
	two, err := botfInterval(d, 2)
	if err != nil {
		return nil, err
	}
	one, err := botfInterval(d, 1)
	if err != nil {
		return nil, err
	}
	rows := []nicbench.Row{
		nicbench.Value(sectionDIMMnet2, "8 B BOTF, sent and received (theoretical)", "µs", "4.1 Table 2 + 4.3 Table 4 (0.570 + 0.442)", 0.570+0.442, usec(d.WriteLatency(nicemu.OpBOTF, 8)),
			"the stages of Tables 2-5 on the profile's fields"),
		nicbench.Value(sectionDIMMnet2, "8 B BOTF, completion seen by the sender polling its status", "µs", "4.1, Fig 8 (measured)", 0.922, usec(d.WriteCompletion(nicemu.OpBOTF, 8)),
			"calibration: ContFlag (the SWIF's 0.188 µs and the status polls) is fitted to this figure"),
		nicbench.Value(sectionDIMMnet2, "496 B BOTFs in two alternating Write Windows: one every", "µs", "4.2, Fig 9-10 (70 clocks at 100 MHz)", 0.700, two,
			"the host's next image (≤ 0.409 + 0.081 µs) is hidden behind the Window Controller"),
		nicbench.Check(sectionDIMMnet2, "one Write Window: consecutive BOTFs slower", "4.2, Fig 10", "one Window's interval above two Windows'", one > 1.2*two,
			fmt.Sprintf("one Window: one every %.3f µs", one)),
	}
	cr, err := cenju4Rows(c, nics)
	if err != nil {
		return nil, err
	}
	rows = append(rows, cr...)
	return append(rows, nicbench.Reference(sectionETL, "an event packet's hop on the synchronisation network", "µs", "3.2.1", 3,
		"the paper gives this and the barrier algorithms (master/slave, shuffle exchange up to 16 nodes, modified shuffle exchange up to 36) but no barrier's time and no hop counts per step: no profile is derived from it")), nil
}

// botfInterval returns the model's interval (µs) between back-to-back
// 496-byte BOTFs under p with windows Write Windows.
func botfInterval(p *nicemu.Profile, windows int) (float64, error) {
	q := *p
	q.WriteWindows = windows
	v, err := q.RunModel(nicemu.ModelRun{Procs: 2, Flows: []nicemu.Flow{{Kind: nicemu.FlowBOTF, From: 0, To: []int{1}, Size: 496, Count: maxStreamReq}}})
	if err != nil {
		return 0, err
	}
	return 496 / v[0], nil
}

// cenju4Rows returns Cenju-4's rows: the model's, and the MPI job's from
// nics where it holds Cenju-4's figures.
func cenju4Rows(c *nicemu.Profile, nics []nicbench.NICFigures) ([]nicbench.Row, error) {
	v, err := c.RunModel(nicemu.ModelRun{Procs: 2, Flows: []nicemu.Flow{pushFlow(0, 1<<20, 1)}})
	if err != nil {
		return nil, err
	}
	b2, _ := c.SyncBarrier(2)
	b32, _ := c.SyncBarrier(32)
	inline := usec(c.WriteLatency(nicemu.OpPush, 16) - c.WriteLatency(nicemu.OpBOTF, 8))
	rows := []nicbench.Row{
		nicbench.Value(sectionCenju4, "8 B one-way latency, Paralib/CJ4 (inline)", "µs", "6.1, Fig 6", 4.9, usec(c.WriteLatency(nicemu.OpBOTF, 8)),
			"calibration: the host's share (PIOFirst) is fitted to this figure"),
		nicbench.Value(sectionCenju4, "16 B over 8 B inline", "µs", "6.1, Fig 6 (about 0.3)", 0.3, inline,
			"the data read from a dirty cache line (410 ns, 4.3) that inline mode saves"),
		nicbench.Value(sectionCenju4, "long transfers' throughput", "MB/s", "4.3 (128 B / (410 + 16 × 12.5 ns)), Fig 7", 200, v[0], "1 MB remote DMA"),
		nicbench.Value(sectionCenju4, "in-network barrier, 32 nodes", "µs", "6.3, Fig 10 (E)", 5, usec(b32),
			"derived: the lone write's two ends and 2 × 3 switch stages × 200 ns (2.2); nothing fitted"),
		nicbench.Check(sectionCenju4, "in-network barrier flat up to 32 nodes", "6.3, Fig 10 (E)", "grows by under 1 µs from 2 to 32 nodes", b32-b2 < time.Microsecond,
			fmt.Sprintf("%.3f µs at 2 nodes, %.3f at 32", usec(b2), usec(b32))),
	}
	for _, n := range nics {
		if n.Profile != nicemu.ProfileCenju4 {
			continue
		}
		rows = append(rows, nicbench.Value(sectionCenju4, "8 B one-way latency, MPI", "µs", "6.1, Fig 6", 9.1, n.Latency,
			"this runtime's MPI over the profile at -host-speed 0: the 4.2 µs the paper's MPI library adds on the R10000 host are not charged"))
		if lo, hi := n.Barrier[barrierProcs[0]], n.Barrier[barrierProcs[len(barrierProcs)-1]]; lo > 0 {
			rows = append(rows, nicbench.Check(sectionCenju4, "software barriers grow with the nodes", "6.3, Fig 10 (A-D)", "MPI_Barrier over messages grows from 2 to 8 processes", hi > 1.5*lo,
				fmt.Sprintf("%.2f µs at %d processes, %.2f at %d", lo, barrierProcs[0], hi, barrierProcs[len(barrierProcs)-1])))
		}
	}
	return rows, nil
}

// compareNICs runs the same MPI programs and NPB kernels in virtual time
// under each compared profile. calibration is a thesis-npb record whose
// calibrations give the NPB runs' operation rate; without it, or without
// a calibration for a run, the NPB runs are left out.
func compareNICs(ctx context.Context, mpirun, self, calibration string, quick bool, timeout time.Duration, stderr io.Writer) ([]nicbench.NICFigures, error) {
	var npbBin string
	rec, err := thesisnpb.Load(calibration)
	if err != nil {
		fmt.Fprintf(stderr, "thesis: no NPB in the NICs' comparison: %v\n", err)
		rec = nil
	} else {
		dir, err := os.MkdirTemp("", "thesis-npb")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		npbBin = filepath.Join(dir, "npb")
		var out bytes.Buffer
		if err := mpirunbuild.GoBuild(ctx, mpirunbuild.Spec{Pkg: "github.com/rhinet-go/martini/npb/cmd/npb", Out: npbBin, Work: dir, Stdout: &out, Stderr: &out}); err != nil {
			return nil, fmt.Errorf("building npb: %w\n%s", err, out.String())
		}
	}
	var all []nicbench.NICFigures
	for _, prof := range comparedProfiles {
		fmt.Fprintf(stderr, "thesis: the NICs' comparison: %s profile\n", prof)
		f, err := nicJobs(ctx, mpirun, self, prof, quick, timeout, stderr)
		if err != nil {
			return nil, err
		}
		if p, _ := nicemu.LookupProfile(prof); p != nil {
			for _, n := range []int{2, 4, 8, 16, 32} {
				if b, ok := p.SyncBarrier(n); ok {
					if f.InNetwork == nil {
						f.InNetwork = map[int]float64{}
					}
					f.InNetwork[n] = usec(b)
				}
			}
		}
		if rec != nil {
			if f.NPB, err = npbJobs(ctx, mpirun, npbBin, prof, rec, timeout); err != nil {
				return nil, err
			}
		}
		all = append(all, f)
	}
	return all, nil
}

// nicJobs runs the NIC worker under prof in jobs of barrierProcs
// processes; latency and bandwidth come from the smallest.
func nicJobs(ctx context.Context, mpirun, self, prof string, quick bool, timeout time.Duration, stderr io.Writer) (nicbench.NICFigures, error) {
	f := nicbench.NICFigures{Profile: prof, Barrier: map[int]float64{}}
	for i, np := range barrierProcs {
		args := []string{"-np", strconv.Itoa(np), "-profile", prof, "-clock", nicemu.ClockVirtual, "-host-speed", "0",
			"-timeout", timeout.String(), self, "nicworker"}
		if quick {
			args = append(args, "-reps", "20", "-samples", "1")
		}
		r, err := runNICWorker(ctx, mpirun, args, stderr)
		if err != nil {
			return f, fmt.Errorf("mpirun -np %d -profile %s: %w", np, prof, err)
		}
		if i == 0 {
			f.Latency, f.Bandwidth = r.Latency, r.Bandwidth
		}
		f.Barrier[np] = r.Barrier
	}
	return f, nil
}

// runNICWorker runs mpirun with args and returns the NIC worker's report.
func runNICWorker(ctx context.Context, mpirun string, args []string, stderr io.Writer) (nicResult, error) {
	var r nicResult
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return r, err
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), nicPrefix)
		if !ok {
			fmt.Fprintln(stderr, sc.Text())
			continue
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return r, fmt.Errorf("reading the NIC worker's report: %w", err)
		}
		return r, nil
	}
	return r, fmt.Errorf("the NIC worker reported nothing")
}

// npbJobs runs npbCompared under prof at class S, charged at rec's
// calibrated operation rate, and returns their Mop/s by run.
func npbJobs(ctx context.Context, mpirun, npbBin, prof string, rec *thesisnpb.Record, timeout time.Duration) (map[string]float64, error) {
	res := map[string]float64{}
	o := &npbOptions{mpirun: mpirun}
	for _, run := range npbCompared {
		c, ok := rec.FindCalibration(run.bench, "S")
		if !ok {
			continue
		}
		args := []string{"-np", strconv.Itoa(run.np), "-profile", prof, "-clock", nicemu.ClockVirtual,
			"-compute", nicemu.ComputeDeclared, "-op-rate", strconv.FormatFloat(c.OpRate, 'g', -1, 64),
			"-timeout", timeout.String(), npbBin, "-results", "", "-class", "S", strings.ToLower(run.bench)}
		r, _, err := runNPB(ctx, o, args)
		if err != nil {
			return nil, fmt.Errorf("%s class S, %d processes, %s profile: %w", run.bench, run.np, prof, err)
		}
		res[fmt.Sprintf("%s class S, %d processes", run.bench, run.np)] = r.Mops
	}
	return res, nil
}

// defaultCalibration is the committed thesis-npb record, whose
// calibrations charge the comparison's NPB runs.
var defaultCalibration = filepath.Join(bench.CommittedResults, thesisnpb.RecordFile)

// extraFigures are the rows of chapters 6-7 and of the other NICs, and
// the NICs' comparison, of a run in virtual time.
type extraFigures struct {
	rows []nicbench.Row
	nics []nicbench.NICFigures
}

// extras measures the extra figures: the NICs' comparison when compare is
// set, then the rows.
func extras(ctx context.Context, mpirun, self, calibration string, vt []string, compare, quick bool, timeout time.Duration, stderr io.Writer) (extraFigures, error) {
	var e extraFigures
	var err error
	if compare {
		if e.nics, err = compareNICs(ctx, mpirun, self, calibration, quick, timeout, stderr); err != nil {
			return e, err
		}
	}
	if e.rows, err = chapterRows(&nicemu.Martini); err != nil {
		return e, err
	}
	for _, rows := range []func(context.Context, string, string, []string, bool, time.Duration, io.Writer) ([]nicbench.Row, error){fig88Rows, fig89Rows} {
		r, err := rows(ctx, mpirun, self, vt, quick, timeout, stderr)
		if err != nil {
			return e, err
		}
		e.rows = append(e.rows, r...)
	}
	seeds, err := seedRows(e.nics)
	e.rows = append(e.rows, seeds...)
	return e, err
}

// write prints the extra figures' tables.
func (e extraFigures) write(w io.Writer) error {
	if len(e.rows) > 0 {
		if err := nicbench.WriteRows(w, e.rows); err != nil {
			return err
		}
	}
	if len(e.nics) > 0 {
		fmt.Fprintf(w, "\n### The three NICs on the same programs\n\n")
		return nicbench.WriteNICTable(w, e.nics)
	}
	return nil
}
