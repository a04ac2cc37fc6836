package bench

import (
	"fmt"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter/tw"
)

// NPBReference is the reference NPB3.4-MPI (gfortran -O3 on Open MPI
// 4.1.4) on the 2-core reference machine, class A, in Mop/s by benchmark
// and process count, from ../shared/reference/peers.md (the midpoint
// where it gives a range; np=4 is two processes a core).
var NPBReference = map[string]map[int]float64{
	"EP": {1: 159, 2: 285, 4: 283},
	"IS": {1: 513, 2: 755, 4: 718},
	"CG": {1: 2994, 2: 7257, 4: 6159},
	"MG": {1: 6802, 2: 12252, 4: 11893},
	"FT": {1: 4343, 2: 6928, 4: 6624},
	"LU": {2: 13854},
	"BT": {1: 6527, 4: 12170},
	"SP": {1: 4220, 4: 8489},
}

// WriteKernels writes the NPB kernel runs of rec as a Markdown table, with
// the reference NPB3.4-MPI's Mop/s of NPBReference beside class A runs:
// fixed figures measured on another machine, labelled so that they cannot
// be taken for ones of the same run (npb/cmd/npbcompare measures those).
func WriteKernels(w io.Writer, rec *Record) error {
	if rec == nil || len(rec.Kernels) == 0 {
		return fmt.Errorf("bench: no NPB kernel runs in the record")
	}
	header := []string{"kernel", "class", "np", "size", "iterations", "time [s]", "Mop/s", "Mop/s/process",
		"verification", "peers.md NPB3.4-MPI Mop/s (other machine)", "ratio to peers.md"}
	var rows [][]string
	for _, k := range rec.Kernels {
		verdict := "UNSUCCESSFUL"
		if k.Verified {
			verdict = "SUCCESSFUL"
		}
		ref, ratio := cellMissing, cellMissing
		if v, ok := NPBReference[k.Name][k.NP]; ok && k.Class == "A" {
			ref, ratio = strconv.FormatFloat(v, 'f', 0, 64), fmt.Sprintf("%.2f", k.Mops/v)
		}
		rows = append(rows, []string{k.Name, k.Class, strconv.Itoa(k.NP), k.Size, strconv.Itoa(k.Iterations),
			fmt.Sprintf("%.2f", k.Seconds), fmt.Sprintf("%.1f", k.Mops), fmt.Sprintf("%.1f", k.Mops/float64(max(k.NP, 1))),
			verdict, ref, ratio})
	}
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[0], align[1], align[3], align[8] = tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft
	fmt.Fprintf(w, "**NAS Parallel Benchmarks**\n\n")
	if err := renderMarkdown(w, header, rows, align); err != nil {
		return fmt.Errorf("bench: NPB table: %w", err)
	}
	fmt.Fprintln(w)
	return nil
}
