package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteKernels(t *testing.T) {
	rec := &Record{Schema: SchemaVersion, Time: time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC), Params: Params{NP: 2},
		Kernels: []Kernel{
			{Name: "CG", Class: "A", Size: "14000", Iterations: 15, NP: 2, Seconds: 0.4, Mops: 3900, Operation: "floating point", Verified: true},
			{Name: "EP", Class: "S", Size: "33554432", NP: 2, Seconds: 0.2, Mops: 150, Operation: "Random numbers generated"},
		}}
	var b bytes.Buffer
	if err := WriteKernels(&b, rec); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| CG", "3900.0", "1950.0", "SUCCESSFUL", "7257", "0.54", "| EP", "UNSUCCESSFUL"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if err := WriteKernels(&b, &Record{}); err == nil {
		t.Error("a record without kernels gave no error")
	}
	// Regenerate shows them, and the record round-trips.
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "npb.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Encode(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	back, err := ReadRecord(filepath.Join(dir, "npb.json"))
	if err != nil || len(back.Kernels) != 2 || back.Kernels[0] != rec.Kernels[0] {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if s, err := Regenerate(dir); err != nil || s.Count(KindNPB) != 1 {
		t.Fatalf("Regenerate: %v, %+v", err, s)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(readme), "## NAS Parallel Benchmarks: every kernel run") || !strings.Contains(string(readme), "| CG ") {
		t.Errorf("README:\n%s", readme)
	}
}
