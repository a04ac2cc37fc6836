// Package results regenerates a results directory (the project's
// results/): every file generated there from the records, whatever
// command wrote them. Package bench writes README.md and the benchmark
// plots from the records of the suite and of the NPB kernels; package
// bench/nicbench writes the thesis reproduction's page (thesis.md) and its
// plots from thesis.json.
package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/nicbench"
)

// Regenerate rewrites every generated file of the results directory dir
// from its records: README.md and the benchmark plots
// (bench.Regenerate), and the page and plots of each thesis record
// (nicbench.WritePage). A *.json file that is no record it can read is
// skipped, and named with the reason in the README and in the Summary.
// Running it twice on the same records writes the same bytes.
func Regenerate(dir string) (*bench.Summary, error) {
	s, err := bench.Regenerate(dir)
	if err != nil {
		return nil, err
	}
	var bad []bench.Skipped
	for _, f := range s.Files {
		if f.Kind != bench.KindThesis {
			continue
		}
		rec, err := readThesis(dir, f.Name)
		if err != nil {
			bad = append(bad, bench.Skipped{Name: f.Name, Why: err.Error()})
			continue
		}
		if err := nicbench.WritePage(dir, f.Name, rec); err != nil {
			return nil, fmt.Errorf("results: %s: %w", f.Name, err)
		}
	}
	if len(bad) == 0 {
		return s, nil
	}
	// The README must name the thesis records that did not decode.
	return bench.RegenerateExcept(dir, bad)
}

// readThesis reads the thesis record dir/name; the error does not name
// the directory.
func readThesis(dir, name string) (*nicbench.Record, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return nicbench.DecodeRecord(bytes.NewReader(data))
}

// WriteSkipped writes one line to w for each file s skipped, naming it
// and why, prefixed with prefix.
func WriteSkipped(w io.Writer, prefix string, s *bench.Summary) {
	for _, sk := range s.Skipped {
		fmt.Fprintf(w, "%sskipped %s: %s\n", prefix, sk.Name, sk.Why)
	}
}
