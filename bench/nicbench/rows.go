package nicbench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/rhinet-go/martini/bench"
)

// RowTolerance is how far from its paper a row's model value may land and
// still count as reproduced.
const RowTolerance = 0.05

// Row is one figure of the thesis, or of another paper of the period,
// beside the timing model's value (cmd/thesis -clock virtual): a number
// with its difference, a shape stated as a check that holds or not, or,
// for Reference rows, the paper's figure alone.
type Row struct {
	Section string `json:"section"` // the table it belongs in
	What    string `json:"what"`
	Unit    string `json:"unit,omitempty"`
	Source  string `json:"source"` // where in the paper
	// Paper is the paper's value; nil where the paper gives a shape only.
	Paper *float64 `json:"paper,omitempty"`
	// Model is the model's value; nil for a reference row or a check.
	Model *float64 `json:"model,omitempty"`
	// Check states the shape the paper gives, and Holds whether the
	// model's figures have it.
	Check string `json:"check,omitempty"`
	Holds *bool  `json:"holds,omitempty"`
	// Note says where the model's value comes from or why it differs.
	Note string `json:"note,omitempty"`
	// Reference marks a figure the model does not produce: the paper's
	// own, shown for comparison.
	Reference bool `json:"reference,omitempty"`
}

// Value returns a row of a number the model produces.
func Value(section, what, unit, source string, paper, model float64, note string) Row {
	return Row{Section: section, What: what, Unit: unit, Source: source, Paper: &paper, Model: &model, Note: note}
}

// Check returns a row of a shape the paper gives, and whether the model
// has it.
func Check(section, what, source, check string, holds bool, note string) Row {
	return Row{Section: section, What: what, Source: source, Check: check, Holds: &holds, Note: note}
}

// Reference returns a row of a paper's figure that the model does not
// produce.
func Reference(section, what, unit, source string, paper float64, note string) Row {
	return Row{Section: section, What: what, Unit: unit, Source: source, Paper: &paper, Note: note, Reference: true}
}

// Verdict says how the row compares: within ±RowTolerance or not, the
// check held or not, or reference only.
func (r Row) Verdict() string {
	switch {
	case r.Reference:
		return "reference (not a model output)"
	case r.Holds != nil && *r.Holds:
		return "holds"
	case r.Holds != nil:
		return "does not hold"
	case r.Paper == nil || r.Model == nil:
		return "—"
	case math.Abs(*r.Model-*r.Paper) <= RowTolerance*math.Abs(*r.Paper):
		return fmt.Sprintf("within ±%.0f%%", 100*RowTolerance)
	}
	return fmt.Sprintf("outside ±%.0f%%", 100*RowTolerance)
}

// NICFigures are the figures of the same MPI programs under one NIC's
// timing profile, in virtual time.
type NICFigures struct {
	Profile string `json:"profile"`
	// Latency is half an 8-byte MPI ping-pong's round trip (µs),
	// Bandwidth a 1 MB ping-pong's bytes over half its round trip (MB/s).
	Latency   float64 `json:"latency_usec"`
	Bandwidth float64 `json:"bandwidth_mbps"`
	// Barrier is one MPI_Barrier (µs) by the number of processes.
	Barrier map[int]float64 `json:"barrier_usec"`
	// InNetwork is the model's in-network barrier (µs) by the number of
	// processes, for a NIC that has one.
	InNetwork map[int]float64 `json:"in_network_barrier_usec,omitempty"`
	// NPB are NPB kernels' Mop/s by run ("IS class S, 4 processes").
	NPB map[string]float64 `json:"npb_mops,omitempty"`
}

// WriteRows writes the rows as Markdown tables, one per section in the
// order of their first row.
func WriteRows(w io.Writer, rows []Row) error {
	var sections []string
	for _, r := range rows {
		if !slices.Contains(sections, r.Section) {
			sections = append(sections, r.Section)
		}
	}
	header := []string{"figure", "source", "paper", "model (virtual time)", "difference", "verdict", "note"}
	for _, s := range sections {
		var table [][]string
		for _, r := range rows {
			if r.Section == s {
				table = append(table, rowCells(r))
			}
		}
		if _, err := fmt.Fprintf(w, "\n### %s\n\n", s); err != nil {
			return err
		}
		if err := bench.MarkdownTable(w, header, table); err != nil {
			return err
		}
	}
	return nil
}

func rowCells(r Row) []string {
	what, paper, model, diff := r.What, "—", "—", "—"
	if r.Unit != "" {
		what += " (" + r.Unit + ")"
	}
	if r.Paper != nil {
		paper = rowNumber(*r.Paper)
	}
	if r.Model != nil {
		model = rowNumber(*r.Model)
	}
	if r.Paper != nil && r.Model != nil && *r.Paper != 0 {
		diff = fmt.Sprintf("%+.1f%%", 100*(*r.Model-*r.Paper)/math.Abs(*r.Paper))
	}
	if r.Check != "" {
		paper = r.Check
	}
	return []string{what, r.Source, paper, model, diff, r.Verdict(), r.Note}
}

// rowNumber formats a row's value: three decimals below 10, two below
// 100, one above.
func rowNumber(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// WriteNICTable writes the NICs' figures side by side as Markdown.
func WriteNICTable(w io.Writer, nics []NICFigures) error {
	header := []string{"program"}
	for _, n := range nics {
		header = append(header, n.Profile)
	}
	var procs, inNet []int
	for _, n := range nics {
		for p := range n.Barrier {
			if !slices.Contains(procs, p) {
				procs = append(procs, p)
			}
		}
		for p := range n.InNetwork {
			if !slices.Contains(inNet, p) {
				inNet = append(inNet, p)
			}
		}
	}
	slices.Sort(procs)
	slices.Sort(inNet)
	rows := [][]string{
		nicRow("MPI ping-pong, 8 B: half the round trip (µs)", nics, func(n NICFigures) (float64, bool) { return n.Latency, true }),
		nicRow("MPI ping-pong, 1 MB: bandwidth (MB/s)", nics, func(n NICFigures) (float64, bool) { return n.Bandwidth, true }),
	}
	for _, p := range procs {
		rows = append(rows, nicRow(fmt.Sprintf("MPI_Barrier, %d processes (µs)", p), nics, func(n NICFigures) (float64, bool) {
			v, ok := n.Barrier[p]
			return v, ok
		}))
	}
	for _, p := range inNet {
		rows = append(rows, nicRow(fmt.Sprintf("in-network barrier (model), %d nodes (µs)", p), nics, func(n NICFigures) (float64, bool) {
			v, ok := n.InNetwork[p]
			return v, ok
		}))
	}
	var runs []string
	for _, n := range nics {
		for r := range n.NPB {
			if !slices.Contains(runs, r) {
				runs = append(runs, r)
			}
		}
	}
	slices.Sort(runs)
	for _, r := range runs {
		rows = append(rows, nicRow("NPB "+r+" (Mop/s)", nics, func(n NICFigures) (float64, bool) {
			v, ok := n.NPB[r]
			return v, ok
		}))
	}
	return bench.MarkdownTable(w, header, rows)
}

func nicRow(what string, nics []NICFigures, of func(NICFigures) (float64, bool)) []string {
	row := []string{what}
	for _, n := range nics {
		if v, ok := of(n); ok {
			row = append(row, rowNumber(v))
		} else {
			row = append(row, "—")
		}
	}
	return row
}

// writeRowsSection writes the page's section of rows and of the NICs'
// table, when the record has them.
func writeRowsSection(md *bytes.Buffer, rec *Record) error {
	if len(rec.Rows) > 0 {
		fmt.Fprintf(md, "\n## Chapters 6 and 7, Table 6.4 and the other seeds' NICs\n\nEach row is a figure of the thesis (or of the paper of another NIC) beside the timing model's value in virtual time; where the paper gives only a shape, the row states it as a check and says whether the model's figures have it. Reference rows are the papers' figures alone, not model outputs. Rows of chapters 6 and 7 come from the model run (`nicemu.Profile.RunModel`: the timing model's requests back to back on virtual clocks, which gives the emulated NIC's own one-way figures), the lone-write latencies from `nicemu.Profile.WriteLatency`; the profiles' sources are in docs/timing.md.\n")
		if err := WriteRows(md, rec.Rows); err != nil {
			return err
		}
	}
	if len(rec.NICs) > 0 {
		fmt.Fprintf(md, "\n## The three NICs on the same programs\n\nThe same MPI programs (`thesis nicworker`, and NPB) run in virtual time under each timing profile (`mpirun -profile martini|dimmnet2|cenju4 -clock virtual`), with the default eager path and no host computing charged (`-host-speed 0`); NPB at the declared operation rate of the thesis's Pentium III host (the committed record's calibration), so that only the NIC differs. Barriers are the MPI library's (dissemination over the NIC's messages); the in-network barrier row is the model of Cenju-4's synchronisation packets (`nicemu.Profile.SyncBarrier`).\n\n")
		if err := WriteNICTable(md, rec.NICs); err != nil {
			return err
		}
	}
	return nil
}
