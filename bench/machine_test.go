package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestThisMachineCPUs: the machine gives the CPUs this process may use,
// not cpuid's package figures (254 on a 2-CPU virtual machine).
func TestThisMachineCPUs(t *testing.T) {
	m := ThisMachine()
	if m.CPUs != runtime.NumCPU() {
		t.Errorf("CPUs = %d, want the %d of the affinity mask", m.CPUs, runtime.NumCPU())
	}
	if m.CPU == "" || m.OS != runtime.GOOS {
		t.Errorf("machine %+v: no model or OS", m)
	}
}

// TestMachineSchemas: records of schema 1 name cpuid's package figures
// "cores" and "threads"; they decode into the fields named for them.
func TestMachineSchemas(t *testing.T) {
	rec, err := ReadRecord(reportRecordPath) // schema 1
	if err != nil {
		t.Fatal(err)
	}
	if m := rec.Machine; rec.Schema != 1 || m.PackageCores != 8 || m.PackageThreads != 16 || m.CPUs != 0 || m.L3 != 32<<20 {
		t.Errorf("schema %d machine %+v: want package 8 cores / 16 threads, CPUs unknown", rec.Schema, m)
	}
	rec.Schema = 2 // a record of schema 2, which has no floor
	rec.Machine.CPUs = 2
	var buf bytes.Buffer
	if err := rec.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`"schema": 2`, `"cpus": 2`, `"cpuid_package_cores": 8`, `"cpuid_package_threads": 16`} {
		if !strings.Contains(out, want) {
			t.Errorf("encoded record lacks %s", want)
		}
	}
	if strings.Contains(out, `"cores"`) || strings.Contains(out, `"threads"`) {
		t.Errorf("encoded record keeps schema 1's names:\n%s", out)
	}
	back, err := Decode(&buf)
	if err != nil || back.Machine.CPUs != 2 || back.Machine.PackageCores != 8 {
		t.Errorf("schema 2 round trip: %v, %+v", err, back)
	}
	bad := strings.Replace(out, `"cpus": 2`, `"cpus": 2, "sockets": 1`, 1)
	if _, err := Decode(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "sockets") {
		t.Errorf("a machine with an unknown field: error %v", err)
	}
}

// writeSysfsCache writes one cache's description under dir/indexN.
func writeSysfsCache(t *testing.T, dir, index, level, typ, size string) {
	t.Helper()
	d := filepath.Join(dir, index)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"level": level, "type": typ, "size": size} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSysfsCaches: the caches cpuid does not give come from Linux's
// description.
func TestSysfsCaches(t *testing.T) {
	dir := t.TempDir()
	writeSysfsCache(t, dir, "index0", "1", "Data", "48K")
	writeSysfsCache(t, dir, "index1", "1", "Instruction", "32K")
	writeSysfsCache(t, dir, "index2", "2", "Unified", "1024K")
	writeSysfsCache(t, dir, "index3", "3", "Unified", "32M")
	c := readSysfsCaches(dir)
	if c != (sysfsCaches{l1d: 48 << 10, l2: 1 << 20, l3: 32 << 20}) {
		t.Errorf("read %+v", c)
	}
	m := Machine{L1D: 32 << 10, L2: 512 << 10} // cpuid gave no L3
	m.fillCaches(c)
	if m.L1D != 32<<10 || m.L2 != 512<<10 || m.L3 != 32<<20 {
		t.Errorf("filled %+v: cpuid's sizes must stay, the missing L3 come from sysfs", m)
	}
	if c := readSysfsCaches(filepath.Join(dir, "absent")); c != (sysfsCaches{}) {
		t.Errorf("no directory: %+v", c)
	}
	for in, want := range map[string]int{"48K": 48 << 10, "1M": 1 << 20, "2G": 2 << 30, "512": 512, "": 0, "big": 0, "-1K": 0} {
		if got := sysfsSize(in); got != want {
			t.Errorf("sysfsSize(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestGitRevision: a repository's revision is its commit, marked dirty by
// a change to a tracked file but not by one under results/.
func TestGitRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("code.go", "package x\n")
	write("results/README.md", "old\n")
	git("add", ".")
	git("commit", "-q", "-m", "x")
	rev := GitRevision(dir)
	if len(rev) != 40 {
		t.Fatalf("revision %q, want a commit", rev)
	}
	write("results/README.md", "new\n")
	if got := GitRevision(dir); got != rev {
		t.Errorf("after a change under results/: %q, want %q", got, rev)
	}
	write("code.go", "package y\n")
	if got := GitRevision(dir); got != rev+"+dirty" {
		t.Errorf("after a change to code: %q, want %q", got, rev+"+dirty")
	}
}
