package bench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// peerSource is the C benchmark the system MPI runs: the same benchmarks,
// measured the same way as the Go side.
//
//go:embed peer/imb.c
var peerSource []byte

// PeerVariant is the Variant of the Series the system MPI measured.
const PeerVariant = "system MPI"

// ErrNoPeer is wrapped by FindPeer's error when the system has no usable
// C MPI, so that the suite can skip the system MPI column.
var ErrNoPeer = errors.New("bench: peer: no system MPI")

// Peer is the system's C MPI (Open MPI, MPICH, ...), which runs the
// suite's benchmarks from the C program in bench/peer for comparison.
type Peer struct {
	MPICC, MPIRun string // paths of the compiler wrapper and the launcher
	// Version describes the MPI, from mpirun --version ("mpirun (Open
	// MPI) 4.1.4"); "" when unknown.
	Version string
}

// peerMissingError says what of the system MPI is missing; it unwraps to
// ErrNoPeer.
type peerMissingError struct{ msg string }

func (e *peerMissingError) Error() string { return e.msg }
func (e *peerMissingError) Unwrap() error { return ErrNoPeer }

// FindPeer looks for the system MPI on PATH: Open MPI named as Debian
// installs it beside MPICH (mpicc.openmpi with mpirun.openmpi), else
// whatever mpicc and mpirun are. The compiler and the launcher come as a
// pair of the same MPI: a program that one MPI built and another one's
// launcher starts runs as processes that do not know each other. When
// none is found it returns an error wrapping ErrNoPeer that says in one
// line what is missing, fit for a Record's Notes.
func FindPeer() (*Peer, error) { return FindPeerNamed("") }

// Names of the MPIs FindPeerNamed looks for by name.
const (
	PeerOpenMPI = "openmpi"
	PeerMPICH   = "mpich"
)

// FindPeerNamed is FindPeer for one MPI by its Debian names: PeerOpenMPI
// (mpicc.openmpi with mpirun.openmpi) or PeerMPICH (mpicc.mpich with
// mpiexec.hydra or mpirun.mpich); "" is FindPeer's choice.
func FindPeerNamed(name string) (*Peer, error) {
	pairs, ok := peerNames[name]
	if !ok {
		return nil, fmt.Errorf("bench: system MPI %q: want %q, %q or none", name, PeerOpenMPI, PeerMPICH)
	}
	return findPair(pairs)
}

// findPair returns the MPI of the first of pairs (compiler, launcher)
// whose two programs are both on PATH, with its version; else an error
// wrapping ErrNoPeer that names what of the last pair is missing.
func findPair(pairs [][2]string) (*Peer, error) {
	for _, pair := range pairs {
		cc, ccErr := exec.LookPath(pair[0])
		run, runErr := exec.LookPath(pair[1])
		if ccErr == nil && runErr == nil {
			p := &Peer{MPICC: cc, MPIRun: run}
			p.Version = p.version()
			return p, nil
		}
	}
	var missing []string // of the last pair, which is not whole either
	for _, n := range pairs[len(pairs)-1] {
		if _, err := exec.LookPath(n); err != nil {
			missing = append(missing, n)
		}
	}
	return nil, &peerMissingError{fmt.Sprintf("system MPI: %s not found on PATH; the system MPI column is skipped",
		strings.Join(missing, " and "))}
}

// FindPeers looks for every system MPI on PATH, one of each family: Open
// MPI and MPICH by their Debian names (FindPeerNamed), then whatever
// mpicc and mpirun are, unless their launcher is of a family already
// found (on Debian they are one of the two; where a module or a wrapper
// directory puts another MPI first on PATH, they are that one). When
// none is found it returns FindPeer's error.
func FindPeers() ([]*Peer, error) {
	var peers []*Peer
	for _, name := range []string{PeerOpenMPI, PeerMPICH} {
		if p, err := FindPeerNamed(name); err == nil {
			peers = append(peers, p)
		}
	}
	p, err := findPair([][2]string{genericPair})
	if err != nil {
		if len(peers) > 0 {
			return peers, nil
		}
		return nil, err
	}
	if !slices.ContainsFunc(peers, p.sameMPI) {
		peers = append(peers, p)
	}
	return peers, nil
}

// sameMPI reports whether q is p's MPI: its launcher the same program, or
// of the same family.
func (p *Peer) sameMPI(q *Peer) bool {
	a, errA := filepath.EvalSymlinks(p.MPIRun)
	b, errB := filepath.EvalSymlinks(q.MPIRun)
	return errA == nil && errB == nil && a == b || p.Family() == q.Family()
}

// genericPair is the compiler and launcher of whichever MPI PATH finds
// first under the generic names.
var genericPair = [2]string{"mpicc", "mpirun"}

// peerNames are the compiler and launcher pairs FindPeerNamed looks for,
// in order, by name.
var peerNames = map[string][][2]string{
	"":          {{"mpicc.openmpi", "mpirun.openmpi"}, genericPair},
	PeerOpenMPI: {{"mpicc.openmpi", "mpirun.openmpi"}},
	PeerMPICH:   {{"mpicc.mpich", "mpiexec.hydra"}, {"mpicc.mpich", "mpirun.mpich"}},
}

// version reads the MPI's version from mpirun --version, best effort.
func (p *Peer) version() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.MPIRun, "--version")
	cmd.Env = peerEnv()
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return ""
	}
	return parsePeerVersion(string(out))
}

// parsePeerVersion picks the version out of mpirun --version's output: its
// first line, except for MPICH's Hydra, whose first line is a heading.
func parsePeerVersion(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	first := strings.TrimSpace(lines[0])
	if strings.HasPrefix(first, "HYDRA build details") {
		for _, l := range lines[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Version:"); ok {
				return "MPICH Hydra " + strings.TrimSpace(v)
			}
		}
	}
	return first
}

// Family names the MPI in a column of its own when a run measures more
// than one: "Open MPI", "MPICH", or the first word of its version.
func (p *Peer) Family() string {
	if f := familyOf(p.Version); f != "" {
		return f
	}
	return filepath.Base(p.MPIRun)
}

// familyOf names an MPI's family from its version ("mpirun (Open MPI)
// 4.1.4", "MPICH Hydra 4.0.2"): "Open MPI", "MPICH", else the version's
// first word; "" for no version.
func familyOf(version string) string {
	switch {
	case strings.Contains(version, "Open MPI") || strings.Contains(version, "OpenRTE"):
		return "Open MPI"
	case strings.Contains(version, "MPICH") || strings.Contains(version, "Hydra"):
		return "MPICH"
	case strings.TrimSpace(version) != "":
		return strings.Fields(version)[0]
	}
	return ""
}

// openMPI reports whether the peer is Open MPI, whose launcher names
// itself Open MPI or, in the 4.x series, OpenRTE ("mpirun.openmpi
// (OpenRTE) 4.1.4").
func (p *Peer) openMPI() bool { return familyOf(p.Version) == "Open MPI" }

// Build writes the C benchmark into dir and compiles it there with
// mpicc, returning the path of the program.
func (p *Peer) Build(ctx context.Context, dir string) (string, error) {
	src := filepath.Join(dir, "imb.c")
	if err := os.WriteFile(src, peerSource, 0o644); err != nil {
		return "", fmt.Errorf("bench: peer: %w", err)
	}
	bin := filepath.Join(dir, "peer-imb")
	cmd := exec.CommandContext(ctx, p.MPICC, "-O2", "-o", bin, src)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("bench: peer: %s: %w\n%s", strings.Join(cmd.Args, " "), err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// PeerJob says what Peer.Run measures: the benchmarks (names as in
// AllBenchmarks) at the sizes in bytes on NP ranks, each size allowed
// Budget seconds for Samples timed samples, with buffers rotated through
// more than OffCache bytes when OffCache > 0.
type PeerJob struct {
	NP         int
	Benchmarks []string
	Sizes      []int
	Budget     float64
	Samples    int
	OffCache   int
	// SampleFloors: ranks 0 and 1 measure the job's cross-core floor
	// after each sample (Row.SampleFloors), as SampleFloor does.
	SampleFloors bool
}

// Run runs the program Build made under mpirun for job and returns one
// Series per benchmark, in the order given.
func (p *Peer) Run(ctx context.Context, bin string, job PeerJob) ([]Series, error) {
	if err := job.check(); err != nil {
		return nil, err
	}
	args := []string{"-np", strconv.Itoa(job.NP)}
	if p.openMPI() {
		// More ranks than cores is what a laptop benchmark often wants.
		args = append(args, "--oversubscribe")
	}
	sz := make([]string, len(job.Sizes))
	for i, s := range job.Sizes {
		sz[i] = strconv.Itoa(s)
	}
	args = append(args, bin,
		"-bench", strings.Join(job.Benchmarks, ","),
		"-sizes", strings.Join(sz, ","),
		"-budget", strconv.FormatFloat(job.Budget, 'g', -1, 64),
		"-samples", strconv.Itoa(job.Samples),
		"-offcache", strconv.Itoa(job.OffCache))
	if job.SampleFloors {
		args = append(args, "-samplefloors", "1")
	}

	cmd := exec.CommandContext(ctx, p.MPIRun, args...)
	cmd.Env = peerEnv()
	// On cancellation let mpirun take its ranks down with it; kill it
	// only if it does not.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := fmt.Sprintf("bench: peer: %s", strings.Join(cmd.Args, " "))
		if tail := peerTail(stderr.String(), 20); tail != "" {
			return nil, fmt.Errorf("%s: %w\n%s", msg, err, tail)
		}
		return nil, fmt.Errorf("%s: %w", msg, err)
	}
	return parsePeerOutput(&stdout, job.NP, job.Benchmarks)
}

// check checks Run's job.
func (j PeerJob) check() error {
	switch {
	case j.NP < 1:
		return fmt.Errorf("bench: peer: %d ranks", j.NP)
	case len(j.Benchmarks) == 0:
		return errors.New("bench: peer: no benchmark")
	case len(j.Sizes) == 0:
		return errors.New("bench: peer: no message size")
	case !(j.Budget > 0) || math.IsInf(j.Budget, 0):
		return fmt.Errorf("bench: peer: budget %g s, want > 0", j.Budget)
	case j.Samples < 1:
		return fmt.Errorf("bench: peer: %d samples, want 1 or more", j.Samples)
	case j.OffCache < 0:
		return fmt.Errorf("bench: peer: off-cache size %d", j.OffCache)
	}
	for _, b := range j.Benchmarks {
		if !slices.Contains(AllBenchmarks(), b) {
			return fmt.Errorf("bench: peer: unknown benchmark %q", b)
		}
		if !IsCollective(b) && j.NP < 2 {
			return fmt.Errorf("bench: peer: %s needs at least 2 ranks, have %d", b, j.NP)
		}
	}
	for _, s := range j.Sizes {
		if s < 0 || s > math.MaxInt32 {
			return fmt.Errorf("bench: peer: message size %d out of range", s)
		}
	}
	return nil
}

// peerEnv is the environment of mpirun: as root, Open MPI refuses to run
// without these variables, which other MPIs ignore.
func peerEnv() []string {
	env := os.Environ()
	if os.Geteuid() == 0 {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	return env
}

// peerTail returns the last n lines of s.
func peerTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// parsePeerOutput reads the ROW lines the C benchmark printed, run on np
// ranks, into one Series per benchmark, in the order of benchmarks. Other
// lines (the launcher's chatter) are ignored; a malformed ROW line, or
// one of a benchmark not asked for, is an error.
func parsePeerOutput(r io.Reader, np int, benchmarks []string) ([]Series, error) {
	series := make([]Series, len(benchmarks))
	index := make(map[string]int, len(benchmarks))
	for i, b := range benchmarks {
		series[i] = Series{Benchmark: b, Variant: PeerVariant, Source: SourcePeer, NP: np, Rows: []Row{}}
		index[b] = i
	}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "ROW" {
			continue
		}
		b, row, err := parsePeerRow(f)
		if err != nil {
			return nil, fmt.Errorf("bench: peer: output line %d %q: %w", line, sc.Text(), err)
		}
		i, ok := index[b]
		if !ok {
			return nil, fmt.Errorf("bench: peer: output line %d: benchmark %q was not asked for", line, b)
		}
		series[i].Rows = append(series[i].Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: peer: read output: %w", err)
	}
	return series, nil
}

// parsePeerRow reads the fields of one line
//
//	ROW <benchmark> <bytes> <reps> <T> <TMin> <TMax> <TAvg> <MBps> <s1>,<s2>,... <f1>,<f2>,...
//
// where the f are the job's floor after each sample, or "-" where it was
// not measured.
func parsePeerRow(f []string) (string, Row, error) {
	var row Row
	if len(f) != 11 {
		return "", row, fmt.Errorf("%d fields, want 11", len(f))
	}
	var err error
	if row.Bytes, err = strconv.Atoi(f[2]); err != nil || row.Bytes < 0 {
		return "", row, fmt.Errorf("bad size %q", f[2])
	}
	if row.Reps, err = strconv.Atoi(f[3]); err != nil || row.Reps < 1 {
		return "", row, fmt.Errorf("bad repetitions %q", f[3])
	}
	for i, p := range []*float64{&row.T, &row.TMin, &row.TMax, &row.TAvg, &row.MBps} {
		if *p, err = parsePeerFloat(f[4+i]); err != nil {
			return "", row, err
		}
	}
	for s := range strings.SplitSeq(f[9], ",") {
		v, err := parsePeerFloat(s)
		if err != nil {
			return "", row, err
		}
		row.Samples = append(row.Samples, v)
	}
	if f[10] == "-" {
		return f[1], row, nil
	}
	for s := range strings.SplitSeq(f[10], ",") {
		v, err := parsePeerFloat(s)
		if err != nil || v == 0 {
			return "", row, fmt.Errorf("bad floor %q", s)
		}
		row.SampleFloors = append(row.SampleFloors, v)
	}
	if len(row.SampleFloors) != len(row.Samples) {
		return "", row, fmt.Errorf("%d floors for %d samples", len(row.SampleFloors), len(row.Samples))
	}
	return f[1], row, nil
}

// parsePeerFloat reads a finite, non-negative number.
func parsePeerFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}
