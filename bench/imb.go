package bench

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// imbRule is the rule IMB draws around a benchmark's header.
const imbRule = "#----------------------------------------------------------------"

// WriteIMB writes s in the layout of the Intel MPI Benchmarks: a header
// naming the benchmark, the process count and the variant, then one line
// per message size. Point-to-point series show t[usec] and Mbytes/sec,
// collectives t_min, t_max and t_avg; Barrier, which moves no data, has
// no #bytes column, as in IMB.
func WriteIMB(w io.Writer, s Series) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, imbRule)
	fmt.Fprintf(&b, "# Benchmarking %s\n", s.Benchmark)
	fmt.Fprintf(&b, "# #processes = %d\n", s.NP)
	if v := imbVariant(s); v != "" {
		fmt.Fprintf(&b, "# variant: %s\n", v)
	}
	fmt.Fprintln(&b, imbRule)

	switch {
	case SizeLess(s.Benchmark):
		fmt.Fprintf(&b, "%12s %12s %12s %12s\n", "#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "%12d %12.2f %12.2f %12.2f\n", r.Reps, r.TMin, r.TMax, r.TAvg)
		}
	case s.Collective():
		fmt.Fprintf(&b, "%12s %12s %12s %12s %12s\n", "#bytes", "#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "%12d %12d %12.2f %12.2f %12.2f\n", r.Bytes, r.Reps, r.TMin, r.TMax, r.TAvg)
		}
	default:
		fmt.Fprintf(&b, "%12s %12s %12s %12s\n", "#bytes", "#repetitions", "t[usec]", "Mbytes/sec")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "%12d %12d %12.2f %12.2f\n", r.Bytes, r.Reps, r.T, r.MBps)
		}
	}
	fmt.Fprintln(&b)

	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("bench: write IMB table of %s (%s): %w", s.Benchmark, s.Variant, err)
	}
	return nil
}

// imbVariant describes the settings of s for the header: the variant
// name and, in parentheses, the mpirun flags that made it.
func imbVariant(s Series) string {
	v := s.Variant
	if len(s.Flags) > 0 {
		flags := "mpirun " + strings.Join(s.Flags, " ")
		if v == "" {
			v = flags
		} else {
			v += " (" + flags + ")"
		}
	}
	return v
}
