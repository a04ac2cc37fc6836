package mpirun

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc/launch"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "100": 100, "4k": 4096, "4K": 4096, "2m": 2 << 20} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "k", "1g", "1.5k", "99999999999m"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) succeeded", in)
		}
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-np", "4", "-tag-output", "-timeout", "3s", "-eager-limit", "1k", "-v", "-profile", "martini", "prog", "-np", "x"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.np != 4 || !o.tagOutput || o.timeout.Seconds() != 3 || !o.verbose || o.settings.EagerLimit != 1024 || o.settings.Rndv != "" || o.profile != "martini" {
		t.Errorf("options = %+v", o)
	}
	// Parsing stops at PROGRAM: its flags are its own.
	if o.program != "prog" || strings.Join(o.args, " ") != "-np x" {
		t.Errorf("program %q args %q", o.program, o.args)
	}
}

// -eager takes rings, pm or vp, forwarded as MARTINI_EAGER; anything else
// is a usage error that names the choices.
func TestParseEagerFlag(t *testing.T) {
	for _, mode := range []string{launch.EagerRings, launch.EagerPM, launch.EagerVP} {
		o, err := parseFlags([]string{"-np", "2", "-eager", mode, "prog"}, io.Discard)
		if err != nil {
			t.Fatalf("-eager %s: %v", mode, err)
		}
		if o.settings.Eager != mode || !slices.Contains(o.settings.Env(), launch.EnvEager+"="+mode) {
			t.Errorf("-eager %s: settings %+v, environment %q", mode, o.settings, o.settings.Env())
		}
	}
	o, err := parseFlags([]string{"-np", "2", "prog"}, io.Discard)
	if err != nil || o.settings.Eager != "" {
		t.Fatalf("no -eager: settings %+v, %v", o.settings, err)
	}
	var stderr bytes.Buffer
	if _, err := parseFlags([]string{"-np", "2", "-eager", "vpush", "prog"}, &stderr); err != errUsage {
		t.Fatalf("-eager vpush: error %v, want errUsage", err)
	}
	if msg := stderr.String(); !strings.Contains(msg, "want rings, pm or vp") || !strings.Contains(msg, "-eager") {
		t.Errorf("-eager vpush: stderr %q does not name the choices", msg)
	}
}

// -pm-rma turns PM/RHiNET's remote memory access on, under -eager pm
// only.
func TestParsePMRMAFlag(t *testing.T) {
	o, err := parseFlags([]string{"-np", "2", "-eager", "pm", "-pm-rma", "prog"}, io.Discard)
	if err != nil || !o.settings.PMRMA || !slices.Contains(o.settings.Env(), launch.EnvPMRMA+"=1") {
		t.Fatalf("-eager pm -pm-rma: settings %+v, %v", o.settings, err)
	}
	for _, args := range [][]string{{"-pm-rma"}, {"-eager", "vp", "-pm-rma"}} {
		var stderr bytes.Buffer
		_, err := parseFlags(append(append([]string{"-np", "2"}, args...), "prog"), &stderr)
		if err == nil || !strings.Contains(stderr.String()+err.Error(), "only with -eager pm") {
			t.Errorf("%q: error %v, stderr %q: does not ask for -eager pm", args, err, stderr.String())
		}
	}
}

// -vp-queue sizes PM/RHiNET-VP's receive queue, under -eager vp only, and
// -pm-ring PM/RHiNET's rings, under -eager pm only; both powers of two.
func TestParsePMBufferFlags(t *testing.T) {
	o, err := parseFlags([]string{"-np", "2", "-eager", "vp", "-vp-queue", "1m", "prog"}, io.Discard)
	if err != nil || o.settings.VPQueue != 1<<20 || !slices.Contains(o.settings.Env(), launch.EnvVPQueue+"=1048576") {
		t.Fatalf("-eager vp -vp-queue 1m: settings %+v, %v", o.settings, err)
	}
	o, err = parseFlags([]string{"-np", "2", "-eager", "pm", "-pm-ring", "128k", "prog"}, io.Discard)
	if err != nil || o.settings.PMRing != 128<<10 || !slices.Contains(o.settings.Env(), launch.EnvPMRing+"=131072") {
		t.Fatalf("-eager pm -pm-ring 128k: settings %+v, %v", o.settings, err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-vp-queue", "1m"}, "only with -eager vp"},
		{[]string{"-eager", "pm", "-vp-queue", "1m"}, "only with -eager vp"},
		{[]string{"-eager", "vp", "-vp-queue", "300k"}, "power of two"},
		{[]string{"-eager", "vp", "-pm-ring", "128k"}, "only with -eager pm"},
		{[]string{"-eager", "pm", "-pm-ring", "100k"}, "power of two"},
	} {
		var stderr bytes.Buffer
		_, err := parseFlags(append(append([]string{"-np", "2"}, tt.args...), "prog"), &stderr)
		if err == nil || !strings.Contains(stderr.String()+err.Error(), tt.want) {
			t.Errorf("%q: error %v, stderr %q: does not say %q", tt.args, err, stderr.String(), tt.want)
		}
	}
}

func TestResolveProgram(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("package main\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe := write("exe", 0o755)
	data := write("data", 0o644)
	goFile := write("single/main.go", 0o644)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)

	tests := []struct {
		prog      string
		wantPath  string // for executables
		wantPkg   string // for builds
		wantDir   string
		wantError bool
	}{
		{prog: exe, wantPath: exe},
		{prog: data, wantError: true},
		{prog: filepath.Dir(goFile), wantPkg: ".", wantDir: filepath.Dir(goFile)},
		{prog: goFile, wantPkg: "main.go", wantDir: filepath.Dir(goFile)},
		{prog: filepath.Join(dir, "empty"), wantError: true},
		{prog: filepath.Join(dir, "missing"), wantError: true},
		{prog: "./testdata/missing", wantError: true},
		{prog: "example.com/some/cmd", wantPkg: "example.com/some/cmd"},
		{prog: "sh", wantPath: "/"},
		{prog: "no-such-command-xyzzy", wantError: true},
	}
	for _, tt := range tests {
		got, err := resolveProgram(tt.prog)
		switch {
		case tt.wantError:
			if err == nil {
				t.Errorf("resolveProgram(%q) = %+v, want an error", tt.prog, got)
			} else if !strings.Contains(err.Error(), tt.prog) {
				t.Errorf("resolveProgram(%q) error %q does not name it", tt.prog, err)
			}
		case err != nil:
			t.Errorf("resolveProgram(%q): %v", tt.prog, err)
		case tt.wantPath != "":
			if got.needsBuild() || !strings.HasPrefix(got.path, tt.wantPath) {
				t.Errorf("resolveProgram(%q) = %+v, want executable %s", tt.prog, got, tt.wantPath)
			}
		default:
			if got.pkg != tt.wantPkg || (tt.wantDir != "" && got.dir != tt.wantDir) {
				t.Errorf("resolveProgram(%q) = %+v, want package %q in %q", tt.prog, got, tt.wantPkg, tt.wantDir)
			}
		}
	}
}

func TestForwardLines(t *testing.T) {
	var stdout, stderr bytes.Buffer
	o := newOutput(&stdout, &stderr, true)
	long := strings.Repeat("x", maxLine+10)
	var seen []string
	o.forward(strings.NewReader("one\ntwo\n\n"+long+"\nlast"), streamStdout, 5, func(l []byte) { seen = append(seen, string(l)) })
	want := "[5] one\n[5] two\n[5] \n[5] " + long[:maxLine] + "\n[5] " + long[maxLine:] + "\n[5] last\n"
	if stdout.String() != want {
		t.Errorf("forwarded %d bytes, want %d:\n%.200q", stdout.Len(), len(want), stdout.String())
	}
	if len(seen) != 6 || seen[0] != "one" || seen[5] != "last" {
		t.Errorf("inspected %d lines: %.100q", len(seen), seen)
	}
	o.logf("hello %d", 1)
	if stderr.String() != "mpirun: hello 1\n" {
		t.Errorf("logf wrote %q", stderr.String())
	}
}

func TestForwardWholeLinesOnly(t *testing.T) {
	// Two ranks writing partial lines concurrently must not interleave
	// within a line.
	var stdout bytes.Buffer
	o := newOutput(&stdout, io.Discard, false)
	done := make(chan struct{})
	for rank := range 2 {
		pr, pw := io.Pipe()
		go func() {
			o.forward(pr, streamStdout, rank, nil)
			done <- struct{}{}
		}()
		go func() {
			for range 200 {
				pw.Write([]byte("rank "))
				pw.Write([]byte{'0' + byte(rank)})
				pw.Write([]byte(" says hi\n"))
			}
			pw.Close()
		}()
	}
	<-done
	<-done
	for _, l := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		if l != "rank 0 says hi" && l != "rank 1 says hi" {
			t.Fatalf("mangled line %q", l)
		}
	}
}

// -tcp-timeout takes a positive duration, forwarded as
// MARTINI_TCP_TIMEOUT; anything else is a usage error.
func TestParseTCPTimeoutFlag(t *testing.T) {
	o, err := parseFlags([]string{"-np", "2", "-tcp-timeout", "3s", "prog"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.settings.TCPTimeout != 3*time.Second || !slices.Contains(o.settings.Env(), launch.EnvTCPTimeout+"=3s") {
		t.Errorf("-tcp-timeout 3s: settings %+v, environment %q", o.settings, o.settings.Env())
	}
	for _, bad := range []string{"0", "-1s", "soon"} {
		var stderr bytes.Buffer
		if _, err := parseFlags([]string{"-np", "2", "-tcp-timeout", bad, "prog"}, &stderr); err != errUsage {
			t.Errorf("-tcp-timeout %s: error %v, want errUsage", bad, err)
		}
		if msg := stderr.String(); !strings.Contains(msg, "positive duration") {
			t.Errorf("-tcp-timeout %s: stderr %q does not say what is wanted", bad, msg)
		}
	}
}

// -tcp-sndbuf takes a byte count, 0 included, forwarded as
// MARTINI_TCP_SNDBUF; unset, nothing is forwarded.
func TestParseTCPSendBufferFlag(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want int
	}{{"512k", 512 << 10}, {"0", 0}} {
		o, err := parseFlags([]string{"-np", "2", "-tcp-sndbuf", c.arg, "prog"}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if o.settings.TCPSendBuffer != c.want || !slices.Contains(o.settings.Env(), launch.EnvTCPSendBuffer+"="+strconv.Itoa(c.want)) {
			t.Errorf("-tcp-sndbuf %s: settings %+v, environment %q", c.arg, o.settings, o.settings.Env())
		}
	}
	o, err := parseFlags([]string{"-np", "2", "prog"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range o.settings.Env() {
		if strings.HasPrefix(kv, launch.EnvTCPSendBuffer+"=") {
			t.Errorf("without -tcp-sndbuf, the environment has %s", kv)
		}
	}
	var stderr bytes.Buffer
	if _, err := parseFlags([]string{"-np", "2", "-tcp-sndbuf", "-1", "prog"}, &stderr); err != errUsage || !strings.Contains(stderr.String(), "non-negative number of bytes") {
		t.Errorf("-tcp-sndbuf -1: error %v, stderr %q", err, stderr.String())
	}
}

// MPIEXEC_TIMEOUT gives the job's time limit in seconds where -timeout
// does not, as Hydra's mpiexec reads it; a value that is no number of
// seconds is a usage error naming it.
func TestTimeoutFromEnv(t *testing.T) {
	t.Setenv(EnvTimeout, "10")
	o, err := parseFlags([]string{"-np", "2", "prog"}, io.Discard)
	if err != nil || o.timeout != 10*time.Second || o.timeoutBy != EnvTimeout {
		t.Fatalf("%s=10: timeout %v set by %q, %v", EnvTimeout, o.timeout, o.timeoutBy, err)
	}
	o, err = parseFlags([]string{"-np", "2", "-timeout", "3s", "prog"}, io.Discard)
	if err != nil || o.timeout != 3*time.Second {
		t.Fatalf("%s=10 -timeout 3s: timeout %v, %v", EnvTimeout, o.timeout, err)
	}
	t.Setenv(EnvTimeout, "soon")
	var stderr bytes.Buffer
	if _, err := parseFlags([]string{"-np", "2", "prog"}, &stderr); err != errUsage || !strings.Contains(stderr.String(), EnvTimeout+`="soon"`) {
		t.Errorf("%s=soon: %v, stderr %q", EnvTimeout, err, stderr.String())
	}
}
