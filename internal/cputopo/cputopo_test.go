package cputopo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCore reads a made-up host of two packages whose CPUs 0 and 2 are
// threads of one core; a CPU without topology has no core.
func TestCore(t *testing.T) {
	root := t.TempDir()
	for cpu, v := range map[string][2]string{"0": {"0", "0"}, "1": {"1", "0"}, "2": {"0", "0"}, "3": {"1", "4"}} {
		dir := filepath.Join(root, "cpu"+cpu, "topology")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]string{"physical_package_id": v[0], "core_id": v[1]} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(s+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for cpu, want := range map[int]string{0: "0/0", 1: "1/0", 2: "0/0", 3: "1/4", 4: ""} {
		if got := core(root, cpu); got != want {
			t.Errorf("core(%d) = %q, want %q", cpu, got, want)
		}
	}
	if Core(0) == "" {
		if _, err := os.Stat(sysfs + "/cpu0/topology/core_id"); err == nil {
			t.Errorf("Core(0) is empty where sysfs has CPU 0's topology")
		}
	}
}
