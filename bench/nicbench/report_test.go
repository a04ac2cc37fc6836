package nicbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/nicemu"
)

func TestSizeHalf(t *testing.T) {
	sizes := []int{256, 512, 1024, 2048}
	got, err := SizeHalf(sizes, []float64{50, 100, 300, 400}, 400)
	if err != nil || got != 1024 {
		t.Errorf("SizeHalf = %v, %v; want 1024 (the first size measured at half the peak or above)", got, err)
	}
	if got, _ := SizeHalf(sizes, []float64{50, 199, 200, 400}, 400); got != 1024 {
		t.Errorf("half the peak reached exactly at 1024: %v", got)
	}
	if got, _ := SizeHalf(sizes, []float64{300, 350, 380, 400}, 400); got != 256 {
		t.Errorf("curve above half from the start: %v", got)
	}
	if _, err := SizeHalf(sizes, []float64{1, 2, 3, 4}, 400); err == nil {
		t.Error("a curve that never reaches half its peak gave a size")
	}
}

// thesisRun is a martini run that measures exactly the thesis's figures.
func thesisRun() *Run {
	return &Run{Profile: "martini",
		Write: map[string]float64{WritePush: 2.48, WriteBOTF: 2.14, WriteAOTF: 1.74},
		Read:  map[string]float64{ReadPull: 3.26, ReadBOTFPull: 3.08},
		Sizes: []int{512, 1024, 1 << 20}, OneWay: []float64{100, 222, 444}, Bidirectional: []float64{120, 250, 470},
		// SOFT 10 µs above HARD, which saves 21% and 16%.
		PATLB: []MissPoint{{Size: 32, NoEx: 5, Hard: 10/0.21 - 10, Soft: 10 / 0.21}, {Size: 2048, NoEx: 20, Hard: 10/0.16 - 10, Soft: 10 / 0.16}},
		PM:    map[string]map[int]float64{"pm": {2: 10.1, 16: 11.9}, "vp": {2: 25.5}}}
}

func TestReproducedAndTable(t *testing.T) {
	r := thesisRun()
	if ok, off := Reproduced(r); !ok {
		t.Fatalf("the thesis's own figures are not reproduced: %v", off)
	}
	r.Write[WriteAOTF] = 2.0 // +15%
	ok, off := Reproduced(r)
	if ok || len(off) != 1 || !strings.Contains(off[0], "AOTF") {
		t.Errorf("AOTF 15%% off: %v, %v", ok, off)
	}
	delete(r.PM["vp"], 2) // not measured: a dash, and not reproduced
	if ok, off := Reproduced(r); ok || len(off) != 2 {
		t.Errorf("without the VP round trip: %v, %v", ok, off)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, []*Run{r}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 8 B remote write, AOTF (µs)", "+14.9%", "no", "1024", "| PATLB miss on every send: HARD's saving over SOFT, 2 KB (%) |", "—"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, &b)
		}
	}
}

func TestPMTableAndPlot(t *testing.T) {
	r := thesisRun()
	r.PM["pm"][4] = 10.3
	var b bytes.Buffer
	if err := WritePMTable(&b, []*Run{r}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PM/RHiNET, thesis", "PM/RHiNET-VP, martini", "| 4 ", "10.30", "11.90", "—"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("PM table lacks %q:\n%s", want, &b)
		}
	}
	path := filepath.Join(t.TempDir(), "pm.svg")
	if err := PlotPM(r, path); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("plot: %v", err)
	}
}

// TestPlotThroughputReference: the martini profile's plot draws the
// thesis's peaks as reference lines, named in the legend, with a PNG
// beside the SVG; another profile's plot, modelling other hardware, none.
func TestPlotThroughputReference(t *testing.T) {
	dir := t.TempDir()
	for _, profile := range []string{nicemu.ProfileMartini, nicemu.ProfileNative} {
		r := thesisRun()
		r.Profile = profile
		path := filepath.Join(dir, profile+".svg")
		if err := PlotThroughput(r, path); err != nil {
			t.Fatal(err)
		}
		svg, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range []string{"444 MB/s", "470 MB/s"} {
			if got, want := bytes.Contains(svg, []byte(ref)), profile == nicemu.ProfileMartini; got != want {
				t.Errorf("%s profile: reference %q drawn %v, want %v", profile, ref, got, want)
			}
		}
		if st, err := os.Stat(filepath.Join(dir, profile+".png")); err != nil || st.Size() == 0 {
			t.Errorf("%s profile: no PNG beside the SVG: %v", profile, err)
		}
	}
}
