package pmi

import (
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// envWith is base with the keys and values kv (key, value, key, value...)
// set, in a new map.
func envWith(base map[string]string, kv ...string) map[string]string {
	env := maps.Clone(base)
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

func TestParseEnv(t *testing.T) {
	base := map[string]string{EnvFD: "5", EnvRank: "1", EnvSize: "3"}
	with := func(kv ...string) map[string]string { return envWith(base, kv...) }
	for _, c := range []struct {
		env     map[string]string
		version int
	}{
		{with(), 1},                   // Hydra
		{with(EnvJobID, "1234.0"), 2}, // Slurm's mpi/pmi2
		{with(EnvJobID, "1234.0", EnvVersion, "1"), 1},
		{with(EnvVersion, "2"), 2},
	} {
		fd, opts, err := parseEnv(mapEnv(c.env))
		if err != nil || fd != 5 || opts.Version != c.version || opts.Rank != 1 || opts.Size != 3 || opts.JobID != c.env[EnvJobID] {
			t.Errorf("%v: fd %d, %+v, %v; want version %d", c.env, fd, opts, err, c.version)
		}
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{with(EnvVersion, "3"), `MARTINI_PMI="3"`},
		{with(EnvFD, ""), "PMI_FD is not set"},
		{with(EnvFD, "x"), `PMI_FD="x": not an integer`},
		{with(EnvFD, "1"), "PMI_FD=1: a standard stream"},
		{with(EnvSize, "0"), "PMI_SIZE=0"},
		{with(EnvRank, "3"), "PMI_RANK=3: out of range for PMI_SIZE=3"},
		{with(EnvRank, ""), "PMI_RANK is not set"},
		{with(EnvInitTimeout, "5"), `MARTINI_PMI_INIT_TIMEOUT="5": want a duration`},
		{with(EnvInitTimeout, "-1s"), `MARTINI_PMI_INIT_TIMEOUT="-1s": want a duration`},
	} {
		if _, _, err := parseEnv(mapEnv(c.env)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.env, err, c.want)
		}
	}
}

// MARTINI_PMI_INIT_TIMEOUT sets the bound on the first fence; 0 lifts it.
func TestParseEnvInitTimeout(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 0, "90s": 90 * time.Second, "10m": 10 * time.Minute, "0": -1, "0s": -1} {
		env := map[string]string{EnvFD: "5", EnvRank: "1", EnvSize: "3", EnvInitTimeout: v}
		if _, opts, err := parseEnv(mapEnv(env)); err != nil || opts.InitTimeout != want {
			t.Errorf("%s=%q: %v, %v; want %v", EnvInitTimeout, v, opts.InitTimeout, err, want)
		}
		env = map[string]string{EnvPort: "h:1", EnvID: "0", EnvInitTimeout: v}
		if _, opts, err := parsePortEnv(mapEnv(env)); err != nil || opts.InitTimeout != want {
			t.Errorf("PMI_PORT, %s=%q: %v, %v; want %v", EnvInitTimeout, v, opts.InitTimeout, err, want)
		}
	}
}

func TestFDConn(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := fdConn(p[0]); err == nil || !strings.Contains(err.Error(), "PMI_FD="+strconv.Itoa(p[0])+": not a stream socket") {
		t.Errorf("a pipe: %v", err)
	}
	if _, err := fdConn(1 << 20); err == nil || !strings.Contains(err.Error(), "PMI_FD=1048576") {
		t.Errorf("a descriptor that is not open: %v", err)
	}
}

// FromEnv takes over the descriptor PMI_FD names and initializes the
// protocol it chooses.
func TestFromEnv(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fds[1], true); err != nil {
		t.Fatal(err)
	}
	s := newFake(t, 2, 1)
	s.attach([]*os.File{os.NewFile(uintptr(fds[1]), "server")})
	env := mapEnv(map[string]string{EnvFD: strconv.Itoa(fds[0]), EnvRank: "0", EnvSize: "1", EnvJobID: "7.0"})
	job, err := FromEnv(env)
	if err != nil {
		unix.Close(fds[0])
		t.Fatal(err)
	}
	if job.Rank != 0 || job.Size != 1 || job.Version != 2 || job.Store.JobID() != "kvs_42_0" {
		t.Errorf("job %+v, job id %q", job, job.Store.JobID())
	}
	if reqs := s.requests(0); len(reqs) < 2 || reqs[1] != "fullinit pmijobid=7.0 pmirank=0 threaded=FALSE" {
		t.Errorf("requests %q: want a fullinit with PMI_JOBID", reqs)
	}
	if _, err := FromEnv(env); err == nil || !strings.Contains(err.Error(), "already taken") {
		t.Errorf("second FromEnv: %v", err)
	}
	if err := job.Store.Close(); err != nil {
		t.Error(err)
	}
	if !own(fds[0]) {
		t.Error("the descriptor is still owned after Close")
	}
	disown(fds[0])
}
