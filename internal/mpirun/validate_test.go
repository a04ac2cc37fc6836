package mpirun

import (
	"io"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/nicemu"
)

// TestImpossibleRankCount: a process count no job can have here is a
// usage error, reported before anything is built (the program does not
// even compile) and naming the limit.
func TestImpossibleRankCount(t *testing.T) {
	t.Parallel()
	r := mpirun(t, "-np", "100000", "./testdata/broken")
	if r.code != 2 {
		t.Errorf("exit %d, want 2", r.code)
	}
	if !strings.Contains(r.stderr, "mpirun: -np 100000: more ranks than can run here: at most ") {
		t.Errorf("stderr does not name the limit:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "mpirun: build") {
		t.Errorf("mpirun built the program before checking -np:\n%s", r.stderr)
	}
}

func TestCheckRanks(t *testing.T) {
	limits := []rankLimit{{32768, "of the NIC"}, {6656, "of descriptors"}, {32467, "of PIDs"}}
	if err := checkRanks(6656, limits); err != nil {
		t.Errorf("6656 ranks: %v", err)
	}
	err := checkRanks(6657, limits)
	if err == nil || !strings.Contains(err.Error(), "at most 6656, because of descriptors") {
		t.Errorf("6657 ranks: %v, want the descriptor limit", err)
	}
	// The tightest limit exceeded is named.
	err = checkRanks(100000, limits)
	if err == nil || !strings.Contains(err.Error(), "-np 100000") || !strings.Contains(err.Error(), "at most 6656") {
		t.Errorf("100000 ranks: %v, want the tightest limit", err)
	}
	if err := checkRanks(1<<20, nil); err != nil {
		t.Errorf("no limits: %v", err)
	}
}

// TestNICLimit: the NIC's process table is among the rank limits, and it
// is the bound CreateSegment enforces.
func TestNICLimit(t *testing.T) {
	small := nicemu.JobConfig{NProcs: nicemu.MaxProcs, PGID: 1, HeapSize: nicemu.PageSize, BounceSize: nicemu.PageSize}
	seg, err := nicemu.CreateSegment(small)
	if err != nil {
		t.Fatalf("a segment of %d processes: %v", nicemu.MaxProcs, err)
	}
	seg.Close()
	small.NProcs++
	if seg, err := nicemu.CreateSegment(small); err == nil {
		seg.Close()
		t.Fatalf("a segment of %d processes was created: nicemu.MaxProcs is out of date", small.NProcs)
	}
	found := false
	for _, l := range rankLimits() {
		found = found || l.n == nicemu.MaxProcs && strings.Contains(l.why, "NIC's process table")
	}
	if !found {
		t.Errorf("rankLimits %v lacks the NIC's", rankLimits())
	}
}

func TestCheckSettingsEnv(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string // "" for no error
	}{
		{[]string{"PATH=/bin"}, ""},
		{[]string{"MARTINI_SPIN=-1"}, `MARTINI_SPIN="-1"`},
		{[]string{"MARTINI_YIELD=abc"}, `MARTINI_YIELD="abc"`},
		{[]string{"MARTINI_COLL=allreduce=fastest"}, "MARTINI_COLL"},
		// A flag, forwarded after mpirun's environment, wins over it.
		{[]string{"MARTINI_RNDV=fast", "MARTINI_RNDV=push"}, ""},
		{[]string{"MARTINI_RNDV=push", "MARTINI_RNDV=fast"}, `MARTINI_RNDV="fast"`},
	} {
		err := checkSettingsEnv(tc.env)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.env, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want one naming %s", tc.env, err, tc.want)
		}
	}
}

// TestBadSettingInEnvironment: a bad MARTINI_* setting exported to mpirun
// would fail every rank's Init; mpirun rejects it first, before building.
func TestBadSettingInEnvironment(t *testing.T) {
	t.Setenv(launch.EnvSpin, "-1")
	r := mpirun(t, "-np", "2", "./testdata/broken")
	if r.code != 2 || !strings.Contains(r.stderr, `mpirun: the ranks' environment: launch: MARTINI_SPIN="-1"`) {
		t.Errorf("exit %d, stderr:\n%s\nwant 2 and the variable named", r.code, r.stderr)
	}
	// The command line overrides the environment.
	t.Setenv(launch.EnvRndv, "fast")
	t.Setenv(launch.EnvSpin, "")
	if _, err := parseFlags([]string{"-np", "2", "-rndv", "pull", "prog"}, io.Discard); err != nil {
		t.Errorf("%s=fast with -rndv pull: %v", launch.EnvRndv, err)
	}
	if _, err := parseFlags([]string{"-np", "2", "prog"}, io.Discard); err == nil {
		t.Errorf("%s=fast accepted", launch.EnvRndv)
	}
}
