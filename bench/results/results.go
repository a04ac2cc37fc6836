// Package results regenerates a results directory (the project's
// results/): every file generated there from the records, whatever
// command wrote them. Package bench writes README.md and the benchmark
// plots from the records of the suite and of the NPB kernels; package
// bench/nicbench writes the thesis reproduction's page (thesis.md) and its
// plots from thesis.json; package bench/thesisnpb the chapter 8 page
// (thesis-npb.md) and its plots from thesis-npb.json.
package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/bench/nicbench"
	"github.com/rhinet-go/martini/bench/thesisnpb"
)

// Regenerate rewrites every generated file of the results directory dir
// from its records: README.md and the benchmark plots
// (bench.Regenerate), and the page and plots of each thesis record
// (nicbench.WritePage) and chapter 8 record (thesisnpb.WritePage). A *.json file that is no record it can read is
// skipped, and named with the reason in the README and in the Summary.
// Running it twice on the same records writes the same bytes.
func Regenerate(dir string) (*bench.Summary, error) {
	s, err := bench.Regenerate(dir)
	if err != nil {
		return nil, err
	}
	var bad []bench.Skipped
	for _, f := range s.Files {
		var err error
		switch f.Kind {
		case bench.KindThesis:
			err = writeThesisPage(dir, f.Name)
		case bench.KindThesisNPB:
			err = writeNPBPage(dir, f.Name)
		default:
			continue
		}
		var unreadable *unreadableError
		switch {
		case errors.As(err, &unreadable):
			bad = append(bad, bench.Skipped{Name: f.Name, Why: unreadable.err.Error()})
		case err != nil:
			return nil, fmt.Errorf("results: %s: %w", f.Name, err)
		}
	}
	if len(bad) == 0 {
		return s, nil
	}
	// The README must name the thesis records that did not decode.
	return bench.RegenerateExcept(dir, bad)
}

// unreadableError is a record that does not decode: skipped, with the
// reason.
type unreadableError struct{ err error }

func (e *unreadableError) Error() string { return e.err.Error() }

// writeThesisPage writes the page of the thesis record dir/name.
func writeThesisPage(dir, name string) error {
	rec, err := readThesis(dir, name)
	if err != nil {
		return &unreadableError{err}
	}
	return nicbench.WritePage(dir, name, rec)
}

// writeNPBPage writes the page of the chapter 8 record dir/name.
func writeNPBPage(dir, name string) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return &unreadableError{fmt.Errorf("results: %w", err)}
	}
	rec, err := thesisnpb.Decode(bytes.NewReader(data))
	if err != nil {
		return &unreadableError{err}
	}
	return thesisnpb.WritePage(dir, name, rec)
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
