package nicbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rhinet-go/martini/bench"
	"github.com/rhinet-go/martini/nicemu"
)

// RecordFile is the name of the thesis reproduction's record in a
// results directory.
const RecordFile = "thesis.json"

// VirtualRecordFile is the name of the record of the thesis reproduction
// in virtual time (cmd/thesis -clock virtual).
const VirtualRecordFile = "thesis-virtual.json"

// Record is the thesis reproduction's record (results/thesis.json,
// bench.KindThesis): the runs of cmd/thesis, one per timing profile, with
// what they ran on.
type Record struct {
	Time        time.Time     `json:"time"`
	Machine     bench.Machine `json:"machine"`
	GoVersion   string        `json:"go_version"`
	GitRevision string        `json:"git_revision,omitempty"`
	// Quick says that the runs were cmd/thesis -quick's: fewer
	// repetitions and samples, smaller transfers.
	Quick bool   `json:"quick,omitempty"`
	Runs  []*Run `json:"runs"`
	// Rows and NICs are the figures of chapters 6-7 and of the other
	// seeds' NICs (cmd/thesis -clock virtual; rows.go).
	Rows []Row        `json:"rows,omitempty"`
	NICs []NICFigures `json:"nics,omitempty"`
}

// Encode writes r as indented JSON.
func (r *Record) Encode(w io.Writer) error {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("nicbench: encode record: %w", err)
	}
	if _, err := w.Write(append(js, '\n')); err != nil {
		return fmt.Errorf("nicbench: encode record: %w", err)
	}
	return nil
}

// DecodeRecord reads a Record written by Encode; a field it does not
// know is an error.
func DecodeRecord(rd io.Reader) (*Record, error) {
	var r Record
	d := json.NewDecoder(rd)
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("nicbench: decode record: %w", err)
	}
	if len(r.Runs) == 0 {
		return nil, fmt.Errorf("nicbench: decode record: no runs")
	}
	return &r, nil
}

// WritePage writes the page of the thesis record rec, whose file in dir
// is named name, into dir: the table of the thesis's figures beside the
// emulated ones (bench.ThesisPage(name), "thesis.md") and its plots in
// dir/plots. The page depends on the record only.
func WritePage(dir, name string, rec *Record) error {
	base := strings.TrimSuffix(name, ".json")
	var md bytes.Buffer
	if err := writePageText(&md, rec); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		return fmt.Errorf("nicbench: page: %w", err)
	}
	for _, r := range rec.Runs {
		file := "plots/" + base + "-throughput-" + r.Profile + ".svg"
		if err := PlotThroughput(r, filepath.Join(dir, file)); err != nil {
			return err
		}
		fmt.Fprintf(&md, "\n![PUSH throughput, %s profile](%s)\n", r.Profile, file)
	}
	for _, r := range rec.Runs {
		if len(r.PM) == 0 {
			continue
		}
		file := "plots/" + base + "-pm-rtt-" + r.Profile + ".svg"
		if err := PlotPM(r, filepath.Join(dir, file)); err != nil {
			return err
		}
		fmt.Fprintf(&md, "\n![PM round trips, %s profile](%s)\n", r.Profile, file)
	}
	if err := os.WriteFile(filepath.Join(dir, bench.ThesisPage(name)), md.Bytes(), 0o644); err != nil {
		return fmt.Errorf("nicbench: page: %w", err)
	}
	return nil
}

// writePageText writes the text and tables of rec's page into md.
func writePageText(md *bytes.Buffer, rec *Record) error {
	samples := "medians of 5 samples"
	if rec.Quick {
		samples = "medians of 3 samples, a quick run (`-quick`: fewer repetitions, smaller transfers)"
	}
	fmt.Fprintf(md, "# The thesis's Martini figures, reproduced\n\n")
	if virtualRuns(rec) {
		writeVirtualIntro(md, rec, samples)
	} else {
		writeRealIntro(md, rec, samples)
	}
	if err := WriteTable(md, rec.Runs); err != nil {
		return err
	}
	for _, r := range rec.Runs {
		if r.Profile != nicemu.ProfileMartini {
			continue
		}
		if ok, off := Reproduced(r); ok {
			fmt.Fprintf(md, "\nEvery figure of the %s profile lands within ±%.0f%% of the thesis.\n", r.Name(), 100*Tolerance)
		} else {
			fmt.Fprintf(md, "\nOutside ±%.0f%% of the thesis under the %s profile: %s.\n", 100*Tolerance, r.Name(), strings.Join(off, "; "))
		}
		if r.Clock != nicemu.ClockVirtual {
			fmt.Fprintf(md, "\nThe martini job moved each remote write's data %.3f µs before its modelled time: the emulation's own part of a hop on this machine, measured when the job started (`nicemu.MeasureHandoff`). The thesis's round trips already contain its host's part, folded into `DMAWriteLatency`.\n", r.Handoff)
		}
	}
	fmt.Fprintf(md, "\nThe martini profile's costs are one table, `nicemu.Martini` (nicemu/profile.go), each field derived from the thesis figure it cites.\n")
	fmt.Fprintf(md, "\n## PM round trips against the number of processes\n\nAn 8-byte ping-pong between ranks 0 and 1 through MPI over llc's PM/RHiNET eager transport (a ring per peer, every ring checked on every poll; `mpirun -eager pm`) or PM/RHiNET-VP's (one VPUSH queue for all peers; `-eager vp`); the other processes wait asleep. %s, µs.\n\n", pmSamples(rec.Quick))
	if err := WritePMTable(md, rec.Runs); err != nil {
		return err
	}
	return writeRowsSection(md, rec)
}

// virtualRuns reports whether rec's runs are in virtual time.
func virtualRuns(rec *Record) bool {
	for _, r := range rec.Runs {
		if r.Clock == nicemu.ClockVirtual {
			return true
		}
	}
	return false
}

// writeVirtualIntro writes the opening paragraph of a record in virtual
// time.
func writeVirtualIntro(md *bytes.Buffer, rec *Record, samples string) {
	fmt.Fprintf(md, "Generated by `go run ./cmd/thesis -clock virtual` on %s (%s, %s). The same measurements as `thesis.md`, in virtual time (`mpirun -profile martini -clock virtual`): every process has a clock of its own that only the martini model (and, at `-host-speed` above 0, its own computing) moves, so the figures depend neither on this machine's cross-core latency nor on its cores or load. Latencies are half a ping-pong's round trip (writes) or one request until the data is in local memory (reads), %s; throughputs are back-to-back PUSHes of each size, one way and both ways at once. The PATLB-miss rows are a PUSH ping-pong in which both processes flush their PATLB before every send. The PM rows are ping-pongs through MPI over llc's PM eager transports in jobs of 2 to 16 processes on however many cores the machine has (section below).\n\n",
		rec.Time.Format("2006-01-02 15:04 MST"), rec.Machine.CPU, rec.GoVersion, samples)
}

// writeRealIntro writes the opening paragraph of a record in real time.
func writeRealIntro(md *bytes.Buffer, rec *Record, samples string) {
	fmt.Fprintf(md, "Generated by `go run ./cmd/thesis` on %s (%s, %s). Two processes measure the emulated NIC directly, below MPI, once under each timing profile (`mpirun -profile`). Latencies are half a ping-pong's round trip (writes) or one request until the data is in local memory (reads), %s; throughputs are back-to-back PUSHes of each size, one way and both ways at once. The PATLB-miss rows are a PUSH ping-pong in which both processes flush their PATLB before every send, so that firmware takes every request over (HARD: the hardware resumed after the refill; SOFT: the request finished in firmware); under native the takeover costs no time, so HARD and SOFT differ by noise only. The PM rows are ping-pongs through MPI over llc's PM eager transports in jobs of 2 and 16 processes (section below).\n\n",
		rec.Time.Format("2006-01-02 15:04 MST"), rec.Machine.CPU, rec.GoVersion, samples)
}

// pmSamples says of how many samples the PM round trips are the median.
func pmSamples(quick bool) string {
	if quick {
		return "Medians of 3 samples (a quick run)"
	}
	return "Medians of 5 samples"
}
