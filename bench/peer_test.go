package bench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePeerOutput(t *testing.T) {
	const out = `ROW PingPong 0 1000 0.5 0 0 0 0 0.5,0.6,0.4 -
some launcher chatter
ROW PingPong 1024 500 2 0 0 0 512 2,2.5,1.5 0.05,0.2,0.06

ROW Allreduce 8 2000 1.25 1 1.25 1.125 0 1.25,1.5,1e-3 -
`
	got, err := parsePeerOutput(strings.NewReader(out), 2, []string{"PingPong", "Allreduce", "Barrier"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Series{
		{Benchmark: "PingPong", Variant: PeerVariant, Source: SourcePeer, NP: 2, Rows: []Row{
			{Bytes: 0, Reps: 1000, Samples: []float64{0.5, 0.6, 0.4}, T: 0.5},
			{Bytes: 1024, Reps: 500, Samples: []float64{2, 2.5, 1.5}, T: 2, MBps: 512, SampleFloors: []float64{0.05, 0.2, 0.06}},
		}},
		{Benchmark: "Allreduce", Variant: PeerVariant, Source: SourcePeer, NP: 2, Rows: []Row{
			{Bytes: 8, Reps: 2000, Samples: []float64{1.25, 1.5, 0.001}, T: 1.25, TMin: 1, TMax: 1.25, TAvg: 1.125},
		}},
		{Benchmark: "Barrier", Variant: PeerVariant, Source: SourcePeer, NP: 2, Rows: []Row{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsePeerOutput:\n got %+v\nwant %+v", got, want)
	}

	for _, bad := range []string{
		"ROW PingPong 8 100 1 0 0 0 8 1,2\n",             // too few fields
		"ROW PingPong 8 100 1 0 0 0 8 1,2 - extra\n",     // too many fields
		"ROW PingPong x 100 1 0 0 0 8 1,2,3 -\n",         // bad size
		"ROW PingPong 8 0 1 0 0 0 8 1,2,3 -\n",           // no repetitions
		"ROW PingPong 8 100 fast 0 0 0 8 1,2,3 -\n",      // bad time
		"ROW PingPong 8 100 nan 0 0 0 8 1,2,3 -\n",       // not a number
		"ROW PingPong 8 100 1 0 0 0 8 1,,3 -\n",          // empty sample
		"ROW PingPong 8 100 1 0 0 0 8 1,2,3 0.1,0.1\n",   // a floor missing
		"ROW PingPong 8 100 1 0 0 0 8 1,2,3 0.1,0,0.1\n", // a floor of 0
		"ROW Alltoall 8 100 1 1 1 1 0 1,1,1 -\n",         // not asked for
		"ROW PingPong 8 100 1 0 0 0 8 1,2,3 -\nROW oops", // truncated
	} {
		if _, err := parsePeerOutput(strings.NewReader(bad), 2, []string{"PingPong", "Allreduce"}); err == nil {
			t.Errorf("parsePeerOutput(%q): no error", bad)
		}
	}
}

func TestParsePeerVersion(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n", "mpirun (Open MPI) 4.1.4"},
		{"HYDRA build details:\n    Version:                                 4.0.2\n    Release Date: ...\n", "MPICH Hydra 4.0.2"},
		{"", ""},
	} {
		if got := parsePeerVersion(c.out); got != c.want {
			t.Errorf("parsePeerVersion(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

func TestPeerOpenMPI(t *testing.T) {
	for _, c := range []struct {
		version string
		want    bool
	}{
		{"mpirun (Open MPI) 4.1.4", true},
		{"mpirun.openmpi (OpenRTE) 4.1.4", true},
		{"MPICH Hydra 4.0.2", false},
		{"", false},
	} {
		if got := (&Peer{Version: c.version}).openMPI(); got != c.want {
			t.Errorf("openMPI() of %q = %v, want %v", c.version, got, c.want)
		}
	}
}

func TestPeerSource(t *testing.T) {
	if len(peerSource) == 0 || !bytes.Contains(peerSource, []byte("MPI_Init")) {
		t.Fatalf("embedded peer/imb.c (%d bytes) is not an MPI program", len(peerSource))
	}
}

func TestPeerMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindPeer()
	if !errors.Is(err, ErrNoPeer) {
		t.Fatalf("FindPeer with an empty PATH: error %v, want ErrNoPeer", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "mpicc") || strings.Contains(msg, "\n") {
		t.Errorf("FindPeer error %q: want one line naming mpicc", msg)
	}
}

func TestPeerRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the system MPI")
	}
	p, err := FindPeer()
	if err != nil {
		t.Skip(err)
	}
	t.Logf("system MPI: %s", p.Version)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bin, err := p.Build(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(ctx, filepath.Join(dir, "no-such-program"), PeerJob{NP: 2, Benchmarks: []string{"Barrier"}, Sizes: []int{0}, Budget: 0.01, Samples: 1}); err == nil {
		t.Error("Run of a missing program: no error")
	} else {
		t.Logf("Run of a missing program: %v", err)
	}
	// Barrier and Ibarrier have no size: each is measured once, as 0
	// bytes, although 0 is not among the sizes.
	benchmarks := []string{"PingPong", "Allreduce", "Barrier", "Ibarrier", "Iallreduce", "Ialltoall"}
	series, err := p.Run(ctx, bin, PeerJob{NP: 2, Benchmarks: benchmarks, Sizes: []int{8, 1024}, Budget: 0.02, Samples: 3, SampleFloors: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != len(benchmarks) {
		t.Fatalf("%d series, want %d", len(series), len(benchmarks))
	}
	for i, s := range series {
		if s.Benchmark != benchmarks[i] || s.Source != SourcePeer || s.Variant != PeerVariant || s.NP != 2 {
			t.Errorf("series %d: %s %q %s np=%d", i, s.Benchmark, s.Variant, s.Source, s.NP)
		}
		wantRows := 2
		if SizeLess(s.Benchmark) {
			wantRows = 1
		}
		if len(s.Rows) != wantRows {
			t.Errorf("%s: %d rows, want %d", s.Benchmark, len(s.Rows), wantRows)
		}
		for _, r := range s.Rows {
			t.Logf("%s %d B: t=%.3g µs (%d reps, samples %v) %.4g MB/s", s.Benchmark, r.Bytes, r.T, r.Reps, r.Samples, r.MBps)
			if r.T <= 0 || len(r.Samples) != 3 {
				t.Errorf("%s %d B: t %g, %d samples", s.Benchmark, r.Bytes, r.T, len(r.Samples))
			}
			if runtime.NumCPU() >= 2 && (len(r.SampleFloors) != 3 || slices.Min(r.SampleFloors) <= 0) {
				t.Errorf("%s %d B: the job's floors %v, want 3 measured", s.Benchmark, r.Bytes, r.SampleFloors)
			}
			if SizeLess(s.Benchmark) && r.Bytes != 0 {
				t.Errorf("%s measured at %d bytes", s.Benchmark, r.Bytes)
			}
			if s.Benchmark == "PingPong" && r.Bytes == 1024 && r.MBps <= 0 {
				t.Errorf("PingPong 1024 B: %g MB/s", r.MBps)
			}
			if s.Collective() && (r.TMin <= 0 || r.TMin > r.TMax || r.MBps != 0) {
				t.Errorf("%s %d B: tmin %g tmax %g MB/s %g", s.Benchmark, r.Bytes, r.TMin, r.TMax, r.MBps)
			}
		}
	}
}

// FindPeer takes the compiler and the launcher of one MPI: with
// mpirun.openmpi on PATH but mpicc.openmpi not, it takes mpicc with
// mpirun, not mpicc with Open MPI's launcher.
func TestPeerPairs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"mpirun.openmpi", "mpicc", "mpirun"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	p, err := FindPeer()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p.MPICC) != "mpicc" || filepath.Base(p.MPIRun) != "mpirun" {
		t.Errorf("FindPeer took %s with %s, want mpicc with mpirun", p.MPICC, p.MPIRun)
	}
	if err := os.WriteFile(filepath.Join(dir, "mpicc.openmpi"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err = FindPeer(); err != nil || filepath.Base(p.MPICC) != "mpicc.openmpi" || filepath.Base(p.MPIRun) != "mpirun.openmpi" {
		t.Errorf("FindPeer with both Open MPI names: %+v, %v; want mpicc.openmpi with mpirun.openmpi", p, err)
	}
}

// FindPeerNamed takes the named MPI's pair alone, and names what is
// missing otherwise.
func TestPeerNamed(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"mpicc.mpich", "mpiexec.hydra", "mpicc", "mpirun"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	p, err := FindPeerNamed(PeerMPICH)
	if err != nil || filepath.Base(p.MPICC) != "mpicc.mpich" || filepath.Base(p.MPIRun) != "mpiexec.hydra" {
		t.Errorf("FindPeerNamed(mpich): %+v, %v; want mpicc.mpich with mpiexec.hydra", p, err)
	}
	_, err = FindPeerNamed(PeerOpenMPI)
	if !errors.Is(err, ErrNoPeer) || !strings.Contains(err.Error(), "mpicc.openmpi") || !strings.Contains(err.Error(), "mpirun.openmpi") {
		t.Errorf("FindPeerNamed(openmpi) without it: %v; want ErrNoPeer naming mpicc.openmpi and mpirun.openmpi", err)
	}
	if _, err := FindPeerNamed("lam"); err == nil || errors.Is(err, ErrNoPeer) {
		t.Errorf("FindPeerNamed(lam): %v; want an error about the name", err)
	}
}

// FindPeers finds one MPI of each family: both Debian pairs, and the
// generic pair only where its launcher is another MPI, as on a machine
// whose PATH puts a wrapper directory of MPICH's mpicc and mpirun before
// Debian's Open MPI.
func TestPeersEvery(t *testing.T) {
	const (
		openMPI = "#!/bin/sh\necho 'mpirun (Open MPI) 4.1.4'\n"
		hydra   = "#!/bin/sh\nprintf 'HYDRA build details:\\n    Version:  4.0.2\\n'\n"
		cc      = "#!/bin/sh\nexit 1\n"
	)
	write := func(dir, name, script string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	families := func() []string {
		t.Helper()
		peers, err := FindPeers()
		if err != nil {
			t.Fatal(err)
		}
		var f []string
		for _, p := range peers {
			f = append(f, p.Family()+" "+filepath.Base(p.MPIRun))
		}
		return f
	}
	wrappers, system := t.TempDir(), t.TempDir()
	t.Setenv("PATH", wrappers+string(os.PathListSeparator)+system)
	if _, err := FindPeers(); !errors.Is(err, ErrNoPeer) {
		t.Fatalf("FindPeers with no MPI: %v, want ErrNoPeer", err)
	}
	write(system, "mpicc.openmpi", cc)
	write(system, "mpirun.openmpi", openMPI)
	if got := families(); !slices.Equal(got, []string{"Open MPI mpirun.openmpi"}) {
		t.Errorf("Open MPI alone: %q", got)
	}
	write(wrappers, "mpicc", cc)
	write(wrappers, "mpirun", hydra)
	if got := families(); !slices.Equal(got, []string{"Open MPI mpirun.openmpi", "MPICH mpirun"}) {
		t.Errorf("MPICH's wrappers first on PATH: %q, want Open MPI's pair and the wrappers'", got)
	}
	write(system, "mpicc.mpich", cc)
	write(system, "mpiexec.hydra", hydra)
	if got := families(); !slices.Equal(got, []string{"Open MPI mpirun.openmpi", "MPICH mpiexec.hydra"}) {
		t.Errorf("both Debian pairs: %q, want them alone (the wrappers are MPICH again)", got)
	}
	if err := os.Remove(filepath.Join(wrappers, "mpirun")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(system, "mpirun.openmpi"), filepath.Join(wrappers, "mpirun")); err != nil {
		t.Fatal(err)
	}
	if got := families(); !slices.Equal(got, []string{"Open MPI mpirun.openmpi", "MPICH mpiexec.hydra"}) {
		t.Errorf("mpirun a link to mpirun.openmpi: %q, want the Debian pairs alone", got)
	}
}
