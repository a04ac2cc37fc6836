package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

const reportRecordPath = "testdata/record.json"

// readReportRecord decodes testdata/record.json.
func readReportRecord(t *testing.T) *Record {
	t.Helper()
	rec, err := ReadRecord(reportRecordPath)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// reportSeries returns the series of rec with that benchmark and variant.
func reportSeries(t *testing.T, rec *Record, benchmark, variant string) Series {
	t.Helper()
	i := slices.IndexFunc(rec.Series, func(s Series) bool { return s.Benchmark == benchmark && s.Variant == variant })
	if i < 0 {
		t.Fatalf("no %s series %q in the test record", benchmark, variant)
	}
	return rec.Series[i]
}

// writeRecordFile encodes rec into the file name of dir.
func writeRecordFile(t *testing.T, dir, name string, rec *Record) {
	t.Helper()
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// regenerateREADME regenerates the report of dir and returns its
// README.
func regenerateREADME(t *testing.T, dir string) []byte {
	t.Helper()
	if _, err := Regenerate(dir); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return readme
}

func TestRecordRoundTrip(t *testing.T) {
	raw, err := os.ReadFile(reportRecordPath)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Schema != 1 || len(rec.Series) != 4 || rec.Params.Samples != 5 { // an old record
		t.Fatalf("decoded schema %d, %d series, %d samples; want 1, 4, 5",
			rec.Schema, len(rec.Series), rec.Params.Samples)
	}
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	again, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec, again) {
		t.Errorf("record changed in an Encode/Decode round trip:\nbefore %+v\nafter  %+v", rec, again)
	}

	bad := map[string]string{
		"schema 99":     strings.Replace(string(raw), `"schema": 1,`, `"schema": 99,`, 1),
		"unknown field": strings.Replace(string(raw), `"schema": 1,`, `"schema": 1, "colour": "blue",`, 1),
	}
	for name, doc := range bad {
		if doc == string(raw) {
			t.Fatalf("%s: test record does not have the expected schema line", name)
		}
		if _, err := Decode(strings.NewReader(doc)); err == nil {
			t.Errorf("Decode accepted a record with %s", name)
		}
	}
}

func TestWriteIMB(t *testing.T) {
	rec := readReportRecord(t)
	tests := []struct {
		series Series
		want   []string // lines the output must contain
	}{
		{reportSeries(t, rec, "PingPong", "default"), []string{
			"#----------------------------------------------------------------",
			"# Benchmarking PingPong",
			"# #processes = 2",
			"# variant: default",
			"      #bytes #repetitions      t[usec]   Mbytes/sec",
			"           0         1000         0.35         0.00",
			"        1024         1000         0.92      1113.04",
			"     4194304           10       412.50     10167.99",
		}},
		{reportSeries(t, rec, "PingPong", "rndv=pull"), []string{
			"# variant: rndv=pull (mpirun -rndv pull)",
			"       65536          640         7.90      8295.70",
		}},
		{reportSeries(t, rec, "Allreduce", "default"), []string{
			"# Benchmarking Allreduce",
			"# #processes = 2",
			"      #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]",
			"           8         1000         0.62         0.71         0.67",
			"     4194304            5      1480.20      1521.70      1500.95",
		}},
		{Series{Benchmark: "Barrier", Variant: "default", NP: 4, Rows: []Row{{Reps: 1000, T: 1.9, TMin: 1.62, TMax: 1.9, TAvg: 1.77}}}, []string{
			"# #processes = 4",
			"#repetitions  t_min[usec]  t_max[usec]  t_avg[usec]",
			"        1000         1.62         1.90         1.77",
		}},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := WriteIMB(&buf, tc.series); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		lines := strings.Split(out, "\n")
		for _, w := range tc.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%s %s: no line %q in\n%s", tc.series.Benchmark, tc.series.Variant, w, out)
			}
		}
		if tc.series.Collective() && strings.Contains(out, "Mbytes/sec") {
			t.Errorf("%s: collective with a bandwidth column:\n%s", tc.series.Benchmark, out)
		}
	}

	err := WriteIMB(reportFailWriter{}, rec.Series[0])
	if !errors.Is(err, errReportWrite) {
		t.Errorf("WriteIMB to a failing writer: error %v, want it to wrap %v", err, errReportWrite)
	}
}

var errReportWrite = errors.New("disk full")

// reportFailWriter fails every write.
type reportFailWriter struct{}

func (reportFailWriter) Write([]byte) (int, error) { return 0, errReportWrite }

// markdownRows returns the cells, trimmed, of the rows of the Markdown
// tables in out, header and separator rows included, keyed by their
// first cell; a key seen twice (the latency and the bandwidth table)
// gets a "#2" suffix.
func markdownRows(out string) map[string][]string {
	rows := make(map[string][]string)
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		key := cells[0]
		if _, ok := rows[key]; ok {
			key += "#2"
		}
		rows[key] = cells
	}
	return rows
}

func TestWriteComparison(t *testing.T) {
	rec := readReportRecord(t)

	var buf bytes.Buffer
	if err := WriteComparison(&buf, rec, "PingPong"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, w := range []string{
		"**PingPong**, 2 processes, t[usec] (median of 5 samples)",
		"**PingPong**, 2 processes, Mbytes/sec",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("PingPong comparison lacks %q:\n%s", w, out)
		}
	}
	rows := markdownRows(out)
	wantRows := map[string][]string{
		"bytes":                                  {"bytes", "default", "rndv=pull", "system MPI", "Martini (thesis)"},
		"0":                                      {"0", "0.35", "0.36", "0.21", ""},
		"64 KiB":                                 {"64 KiB", "6.80", "7.90", "—", ""},
		"4 MiB":                                  {"4 MiB", "412", "398", "356", ""},
		"thesis: 8 B remote write latency, PUSH": {"thesis: 8 B remote write latency, PUSH", "—", "—", "—", "2.48"},
		"thesis: 8 B remote read latency, PULL":  {"thesis: 8 B remote read latency, PULL", "—", "—", "—", "3.26"},
		"8#2":                                    {"8", "21.1", "20.5", "33.3", ""},
		"4 MiB#2":                                {"4 MiB", "10168", "10533", "11788", ""},
		"thesis: peak throughput, one way":       {"thesis: peak throughput, one way", "—", "—", "—", "444"},
	}
	for key, want := range wantRows {
		if got := rows[key]; !slices.Equal(got, want) {
			t.Errorf("PingPong row %s: got %q, want %q\n%s", key, got, want, out)
		}
	}
	// The bandwidth figure belongs to the bandwidth table only.
	if i, j := strings.Index(out, "peak throughput"), strings.Index(out, "Mbytes/sec"); i < j {
		t.Errorf("bandwidth figure before the bandwidth table:\n%s", out)
	}

	buf.Reset()
	if err := WriteComparison(&buf, rec, "Allreduce"); err != nil {
		t.Fatal(err)
	}
	out = buf.String()
	if strings.Contains(out, thesisColumn) || strings.Contains(out, "thesis:") || strings.Contains(out, "Mbytes/sec") {
		t.Errorf("Allreduce comparison has a thesis column or a bandwidth table:\n%s", out)
	}
	if got, want := markdownRows(out)["4 MiB"], []string{"4 MiB", "1522"}; !slices.Equal(got, want) {
		t.Errorf("Allreduce row 4 MiB: got %q, want %q\n%s", got, want, out)
	}

	if err := WriteComparison(&buf, rec, "Barrier"); err == nil {
		t.Error("WriteComparison of a benchmark absent from the record: no error")
	}
	if err := WriteComparison(&buf, nil, "PingPong"); err == nil {
		t.Error("WriteComparison of a nil record: no error")
	}
	if err := WriteComparison(reportFailWriter{}, rec, "PingPong"); !errors.Is(err, errReportWrite) {
		t.Errorf("WriteComparison to a failing writer: error %v, want it to wrap %v", err, errReportWrite)
	}
}

// TestWriteComparisonFloor: the floor of a record is the last row of its
// PingPong latency table, its value in a column of its own, and nowhere
// else; it survives an Encode/Decode round trip.
func TestWriteComparisonFloor(t *testing.T) {
	rec := readReportRecord(t)
	rec.Schema = SchemaVersion
	rec.Floor = &Floor{CPUs: [2]int{0, 1}, RoundTrips: 50000, Samples: []float64{0.31, 0.3, 0.32}, T: 0.31, Compute: []float64{0.92, 1.7}}
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"floor": {`) {
		t.Errorf("encoded record has no floor:\n%s", &buf)
	}
	back, err := Decode(&buf)
	if err != nil || !reflect.DeepEqual(back.Floor, rec.Floor) {
		t.Fatalf("round trip: %v, floor %+v, want %+v", err, back.Floor, rec.Floor)
	}

	buf.Reset()
	if err := WriteComparison(&buf, back, "PingPong"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	floorRow := "floor: " + FloorWhat
	wantRows := map[string][]string{
		"bytes":                                  {"bytes", "default", "rndv=pull", "system MPI", thesisColumn, floorColumn},
		"8":                                      {"8", "0.38", "0.39", "0.24", "", ""},
		"thesis: 8 B remote write latency, PUSH": {"thesis: 8 B remote write latency, PUSH", "—", "—", "—", "2.48", ""},
		floorRow:                                 {floorRow, "—", "—", "—", "", "0.31"},
		"8#2":                                    {"8", "21.1", "20.5", "33.3", ""},
		"thesis: peak throughput, one way":       {"thesis: peak throughput, one way", "—", "—", "—", "444"},
	}
	rows := markdownRows(out)
	for key, want := range wantRows {
		if got := rows[key]; !slices.Equal(got, want) {
			t.Errorf("PingPong row %s: got %q, want %q\n%s", key, got, want, out)
		}
	}
	if i, j := strings.Index(out, floorRow), strings.Index(out, "Mbytes/sec"); i < 0 || i > j || strings.Count(out, floorColumn) != 1 {
		t.Errorf("the floor is not in the latency table alone:\n%s", out)
	}

	buf.Reset()
	if err := WriteComparison(&buf, back, "Allreduce"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "floor") {
		t.Errorf("Allreduce table shows the floor:\n%s", &buf)
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int]string{
		0: "0", 8: "8", 1000: "1000", 1024: "1 KiB", 1536: "1.5 KiB", 65536: "64 KiB",
		4194304: "4 MiB", 3 << 29: "1.5 GiB", 1 << 30: "1 GiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for v, want := range map[float64]string{
		0: "0.00", 0.35: "0.35", 2.48: "2.48", 9.999: "10.0", 12.34: "12.3", 99.96: "100", 1520: "1520",
	} {
		if got := formatUsec(v); got != want {
			t.Errorf("formatUsec(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{
		0: "0", 5.5: "5.50", 33.33: "33.3", 444: "444", 10167.99: "10168",
	} {
		if got := formatMBps(v); got != want {
			t.Errorf("formatMBps(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestPlot(t *testing.T) {
	rec := readReportRecord(t)
	dir := t.TempDir()
	pngSignature := []byte("\x89PNG\r\n\x1a\n")

	plots := []struct {
		name string
		draw func(*Record, string, string) error
		bm   string
	}{
		{"PingPong-latency", PlotLatency, "PingPong"},
		{"PingPong-bandwidth", PlotBandwidth, "PingPong"},
		{"Allreduce-latency", PlotLatency, "Allreduce"},
	}
	for _, p := range plots {
		if err := p.draw(rec, p.bm, filepath.Join(dir, p.name+".svg")); err != nil {
			t.Errorf("%s: %v", p.name, err)
			continue
		}
		// The SVG, and the PNG beside it.
		for ext, prefixes := range map[string][]string{".svg": {"<?xml", "<svg"}, ".png": {string(pngSignature)}} {
			data, err := os.ReadFile(filepath.Join(dir, p.name+ext))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(prefixes, func(pre string) bool { return bytes.HasPrefix(data, []byte(pre)) }) {
				t.Errorf("%s%s does not start like %s: %.40q", p.name, ext, ext, data)
			}
		}
	}

	bad := []struct {
		what string
		err  error
		path string
	}{
		{"bandwidth of a collective", PlotBandwidth(rec, "Allreduce", filepath.Join(dir, "a.svg")), "a.svg"},
		{"absent benchmark", PlotLatency(rec, "Bcast", filepath.Join(dir, "b.svg")), "b.svg"},
		{"unknown format", PlotLatency(rec, "PingPong", filepath.Join(dir, "c.gif")), "c.gif"},
		{"a PNG path", PlotLatency(rec, "PingPong", filepath.Join(dir, "f.png")), "f.png"},
		{"nil record", PlotLatency(nil, "PingPong", filepath.Join(dir, "d.svg")), "d.svg"},
		{"only size 0", PlotLatency(&Record{Series: []Series{{Benchmark: "Barrier", NP: 2, Rows: []Row{{T: 1.2}}}}}, "Barrier", filepath.Join(dir, "e.svg")), "e.svg"},
	}
	for _, b := range bad {
		if b.err == nil {
			t.Errorf("plot of %s: no error", b.what)
		}
		if _, err := os.Stat(filepath.Join(dir, b.path)); err == nil {
			t.Errorf("plot of %s: wrote %s anyway", b.what, b.path)
		}
	}
}

// TestRegenerate regenerates the README of two records, the newer with
// PingPong only, checks its text, summary cells and plots, and that a
// second run writes the same README.
func TestRegenerate(t *testing.T) {
	dir := writeTwoRecords(t)
	if s, err := Regenerate(dir); err != nil || s.Count(KindSuite) != 2 || len(s.Skipped) != 0 {
		t.Fatalf("Regenerate: %v, %+v", err, s)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := string(readme)
	checkRegeneratedText(t, out)
	checkRegeneratedCells(t, out)
	checkRegeneratedPlots(t, dir, out)

	if again := regenerateREADME(t, dir); !bytes.Equal(readme, again) {
		t.Errorf("README differs between two runs:\n%s\n----\n%s", readme, again)
	}
}

// writeTwoRecords writes the report's record into a new directory, and a
// newer one with PingPong only, and returns the directory.
func writeTwoRecords(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(reportRecordPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "2026-03-14-bench01.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// A newer record, with PingPong only, goes first.
	newer := readReportRecord(t)
	newer.Time = newer.Time.Add(48 * time.Hour)
	newer.Series = newer.Series[:1]
	writeRecordFile(t, dir, "2026-03-16-bench01.json", newer)
	return dir
}

// checkRegeneratedText checks the README's headings, machine, records
// (newest first) and plots' links.
func checkRegeneratedText(t *testing.T, out string) {
	t.Helper()
	for _, w := range []string{
		"# Benchmark results",
		"A summary of the 2 records (*.json) in this directory: 2 benchmark suite runs.",
		"## The benchmark suite against the system MPI",
		"### AMD Ryzen 7 5800X 8-Core Processor\n",
		"AMD Ryzen 7 5800X 8-Core Processor (AuthenticAMD), cpuid's package 8 cores / 16 threads, cache line 64 B, L1d 32 KiB, L2 512 KiB, L3 32 MiB, linux/amd64",
		// Newest first.
		"- np 2, 2 runs: [2026-03-16-bench01](2026-03-16-bench01.json), [2026-03-14-bench01](2026-03-14-bench01.json)",
		// PingPong's plots of the newest record, which has PingPong only;
		// Allreduce's of the older one, the newest that has it.
		"a line per series and process count: [PingPong latency](plots/2026-03-16-bench01-PingPong-latency.svg), [PingPong bandwidth](plots/2026-03-16-bench01-PingPong-bandwidth.svg), [Allreduce latency](plots/2026-03-14-bench01-Allreduce-latency.svg)\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("README lacks %q:\n%s", w, out)
		}
	}
}

// checkRegeneratedCells: PingPong has the system MPI's column: both
// medians and the ratio; Allreduce has this runtime's alone; the older
// record's Allreduce is summarised and plotted.
func checkRegeneratedCells(t *testing.T, out string) {
	t.Helper()
	cells := summaryRows(out)
	if c := cells["PingPong 8"]; !regexp.MustCompile(`^\S+ / \S+ \(\d+\.\d\d\)$`).MatchString(c) {
		t.Errorf("PingPong 8 B cell %q, want ours / peer (ratio)\n%s", c, out)
	}
	if c := cells["Allreduce 4 MiB"]; c != "1522" {
		t.Errorf("Allreduce 4 MiB cell %q, want 1522\n%s", c, out)
	}
}

// checkRegeneratedPlots checks that the README links the three plots it
// should, each written in dir and not empty.
func checkRegeneratedPlots(t *testing.T, dir, out string) {
	t.Helper()
	if strings.Contains(out, "2026-03-14-bench01-PingPong") || strings.Contains(out, "Allreduce-bandwidth") {
		t.Errorf("README links a PingPong plot of the older record or a bandwidth plot of Allreduce:\n%s", out)
	}
	links := regexp.MustCompile(`\]\((plots/[^)]+)\)`).FindAllStringSubmatch(out, -1)
	if len(links) != 3 {
		t.Errorf("README links %d plots, want 3", len(links))
	}
	for _, l := range links {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(l[1])))
		if err != nil {
			t.Errorf("README links a missing plot: %v", err)
		} else if fi.Size() == 0 {
			t.Errorf("plot %s is empty", l[1])
		}
	}
}

// summaryRows returns the np 2 cell of each row of the summary tables in
// out, by "benchmark bytes".
func summaryRows(out string) map[string]string {
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(line, "| ") {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if k := cells[1] + " " + cells[2]; rows[k] == "" { // the summary's, not the pairs' after it
			rows[k] = cells[3]
		}
	}
	return rows
}

// TestSummaryCell: a cell is the medians of both columns over the runs and
// the median of the runs' ratios.
func TestSummaryCell(t *testing.T) {
	run := func(own, peer float64) RecordFile {
		rec := &Record{Params: Params{NP: 2}, Series: []Series{
			{Benchmark: "Bcast", Variant: "eager=4k", Source: SourceMartini, Rows: []Row{{Bytes: 8, T: own * 10}}},
			{Benchmark: "Bcast", Variant: "default", Source: SourceMartini, Rows: []Row{{Bytes: 8, T: own}}},
			{Benchmark: "Bcast", Variant: "system MPI", Source: SourcePeer, Rows: []Row{{Bytes: 8, T: peer}}},
		}}
		return RecordFile{Kind: KindSuite, Record: rec}
	}
	set := suiteSet{np: 2, files: []RecordFile{run(1, 2), run(3, 2), run(2, 2)}}
	if got, want := summaryCell(set, "Bcast", 8), "2.00 / 2.00 (1.00)"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
	set.files = []RecordFile{run(1, 4), run(3, 2)} // ratios 0.25 and 1.5
	if got, want := summaryCell(set, "Bcast", 8), "2.00 / 3.00 (0.88)"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
	if got := summaryCell(set, "Bcast", 1024); got != cellMissing {
		t.Errorf("cell of a size no run measured %q, want %q", got, cellMissing)
	}
}

func TestRegenerateEmpty(t *testing.T) {
	if readme := regenerateREADME(t, t.TempDir()); !strings.Contains(string(readme), "No records") {
		t.Errorf("README of an empty directory:\n%s", readme)
	}
}

// TestRegenerateAcrossProcessCounts: a machine's plots draw the newest
// record of every process count together, one file per benchmark and
// kind named after the newest record, the lines named with their
// process count.
func TestRegenerateAcrossProcessCounts(t *testing.T) {
	dir := t.TempDir()
	for i, np := range []int{2, 4} {
		rec := readReportRecord(t)
		rec.Time = rec.Time.Add(time.Duration(i) * time.Hour)
		rec.Params.NP = np
		rec.Series = rec.Series[:1] // PingPong
		for j := range rec.Series {
			rec.Series[j].NP = np
		}
		if np == 4 { // a floor with its CPUs' gauges; the np 2 record has none
			rec.Floor = &Floor{CPUs: [2]int{0, 1}, RoundTrips: 100, Samples: []float64{0.06}, T: 0.06, Compute: []float64{0.92, 1.7}}
		}
		writeRecordFile(t, dir, fmt.Sprintf("2026-03-1%d-np%d.json", 4+i, np), rec)
	}
	readme := regenerateREADME(t, dir)
	for _, want := range []string{"median of the records: np 4 0.06 µs.", "median of the records: np 4 0.92/1.7 ms."} {
		if !bytes.Contains(readme, []byte(want)) {
			t.Errorf("README lacks %q", want)
		}
	}
	links := regexp.MustCompile(`\]\((plots/[^)]+)\)`).FindAllStringSubmatch(string(readme), -1)
	if len(links) != 2 || links[0][1] != "plots/2026-03-15-np4-PingPong-latency.svg" {
		t.Fatalf("README links %v, want the newest record's PingPong latency and bandwidth", links)
	}
	svg, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(links[0][1])))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"np 2, default", "np 4, default", "2/4 processes"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the plot does not show %q", want)
		}
	}
	// A plot an earlier report drew of a record, now unlinked, goes, as
	// does one of a record since removed; a file named otherwise stays.
	stale := filepath.Join(dir, "plots", "2026-03-14-np2-PingPong-latency.png")
	gone := filepath.Join(dir, "plots", "2026-03-01-np4-Ireduce-latency.svg")
	other := filepath.Join(dir, "plots", "thesis-figure.svg")
	for _, f := range []string{stale, gone, other} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Regenerate(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale plot of a record survived the report")
	}
	if _, err := os.Stat(gone); err == nil {
		t.Error("a plot of a removed record survived the report")
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file not named as the report names its plots was removed: %v", err)
	}
}

// TestRegenerateByPeer: records of one machine against MPICH get a
// section of their own beside those against Open MPI, so that no cell is
// a median of two MPIs' times.
func TestRegenerateByPeer(t *testing.T) {
	dir := t.TempDir()
	for i, note := range []string{"system MPI: mpirun.openmpi (OpenRTE) 4.1.4", "system MPI: MPICH Hydra 4.0.2"} {
		rec := readReportRecord(t)
		rec.Time = rec.Time.Add(time.Duration(i) * time.Hour)
		rec.Notes = []string{note}
		writeRecordFile(t, dir, fmt.Sprintf("2026-03-1%d-peer.json", 4+i), rec)
	}
	out := string(regenerateREADME(t, dir))
	for _, want := range []string{"### AMD Ryzen 7 5800X 8-Core Processor\n", "### AMD Ryzen 7 5800X 8-Core Processor, against MPICH\n"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("README has %d sections %q, want 1:\n%s", strings.Count(out, want), want, out)
		}
	}
}

// TestBothPeers: a run that measured Open MPI and MPICH shows a column of
// each, the faster one's cell in bold (the shorter time, the higher
// bandwidth); the results page gives such records a section of their
// own, whose cells compare with the faster MPI at each point and name it.
func TestBothPeers(t *testing.T) {
	rec := &Record{Schema: SchemaVersion, Time: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC), Params: Params{NP: 2, Samples: 1, Benchmarks: []string{"PingPong"}},
		Machine: Machine{CPU: "Test CPU", CPUs: 16},
		Notes:   []string{"system MPI: mpirun.openmpi (OpenRTE) 4.1.4", "system MPI: MPICH Hydra 4.0.2"},
		Series: []Series{
			{Benchmark: "PingPong", Variant: "default", Source: SourceMartini, NP: 2, Rows: []Row{{Bytes: 8, T: 0.2, MBps: 40}, {Bytes: 1024, T: 1, MBps: 1024}}},
			{Benchmark: "PingPong", Variant: "Open MPI", Source: SourcePeer, NP: 2, Rows: []Row{{Bytes: 8, T: 0.3, MBps: 26.7}, {Bytes: 1024, T: 0.5, MBps: 2048}}},
			{Benchmark: "PingPong", Variant: "MPICH", Source: SourcePeer, NP: 2, Rows: []Row{{Bytes: 8, T: 0.25, MBps: 32}, {Bytes: 1024, T: 0.8, MBps: 1280}}},
		}}
	var b bytes.Buffer
	if err := WriteComparison(&b, rec, "PingPong"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"system MPI, Open MPI", "system MPI, MPICH", "**0.25** |", "**0.50** |", "**2048** |", "**32.0** |"} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "**0.") != 2 || strings.Contains(out, "**0.20**") {
		t.Errorf("bold cells other than the faster MPI's:\n%s", out)
	}

	dir := t.TempDir()
	writeRecordFile(t, dir, "2026-11-26-both.json", rec)
	readme := string(regenerateREADME(t, dir))
	for _, want := range []string{"### Test CPU, 16 CPUs, against Open MPI and MPICH\n", "0.20 / 0.25 MPICH (0.80)", "1.00 / 0.50 Open MPI (2.00)"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
}

// TestRegeneratePairs: records that ran the default beside another
// variant get a table of the pairs' ratios, the default's time to the
// variant's, over all runs and over those whose floors and gauges stayed
// together; a variant without gauged runs has no column of the latter;
// records of the default alone have no table.
func TestRegeneratePairs(t *testing.T) {
	dir := t.TempDir()
	steady := [][]float64{{0.92, 0.93}, {0.93, 0.92}, {0.92, 0.94}}
	moved := [][]float64{{0.92, 0.93}, {1.7, 0.92}, {0.92, 0.94}}
	pair := func(i int, def, old float64, gauges [][]float64) *Record {
		floors := []float64{0.06, 0.06, 0.06}
		return &Record{Schema: SchemaVersion, Time: time.Date(2026, 12, 1, 12, 0, i, 0, time.UTC), Params: Params{NP: 2, Samples: 1, Benchmarks: []string{"PingPong"}},
			Machine: Machine{CPU: "Test CPU", CPUs: 2},
			Series: []Series{
				{Benchmark: "PingPong", Variant: "default", Source: SourceMartini, NP: 2, Floors: floors, Compute: gauges, Rows: []Row{{Bytes: 8, T: def}}},
				{Benchmark: "PingPong", Variant: "build=/old", Source: SourceMartini, NP: 2, Floors: floors, Compute: gauges, Rows: []Row{{Bytes: 8, T: old}}},
				{Benchmark: "PingPong", Variant: "eager=0", Source: SourceMartini, NP: 2, Rows: []Row{{Bytes: 8, T: 2 * def}}},
			}}
	}
	for i, r := range []*Record{pair(1, 0.9, 1, steady), pair(2, 1.2, 1, moved), pair(3, 0.95, 1, steady), pair(4, 1.0, 1, moved)} {
		writeRecordFile(t, dir, fmt.Sprintf("2026-12-01-pair%d.json", i), r)
	}
	readme := string(regenerateREADME(t, dir))
	// Ratios 0.9, 1.2, 0.95 and 1.0, of which 0.9 and 0.95 at one speed;
	// eager=0's 2.0 in every run.
	if want := "| PingPong  |     8 | 0.975 (0.900-1.000) of 4 | 0.925 (0.900-0.950) of 2 | 0.500 (0.500-0.500) of 4 |"; !strings.Contains(readme, want) {
		t.Errorf("README lacks the pairs row %q:\n%s", want, readme)
	}
	if !regexp.MustCompile(`\| +np 2, build=/old \| +at one speed \| +np 2, eager=0 \|`).MatchString(readme) {
		t.Errorf("pairs header:\n%s", readme)
	}

	alone := t.TempDir()
	rec := pair(1, 0.9, 1, steady)
	rec.Series = rec.Series[:1]
	writeRecordFile(t, alone, "2026-12-01-alone.json", rec)
	if out := string(regenerateREADME(t, alone)); strings.Contains(out, "Pairs:") {
		t.Errorf("a table of pairs without a pair:\n%s", out)
	}
}
