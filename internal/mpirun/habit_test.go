package mpirun

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

// TestHabitFlags parses the flags of Open MPI's mpirun and MPICH's
// mpiexec into what mpirun's own flags would give.
func TestHabitFlags(t *testing.T) {
	t.Setenv("HABIT_FROM_MPIRUN", "mine")
	wd := t.TempDir()
	type want struct {
		np        int
		hosts     int // hosts of a job across hosts, 0 on this host
		exports   []string
		wdir      string
		stdinRank int
		bind      string
		args      []string
	}
	for _, c := range []struct {
		args []string
		want want
	}{
		{[]string{"-n", "3", "prog"}, want{np: 3}},
		{[]string{"--n", "3", "prog"}, want{np: 3}},
		{[]string{"--np", "2", "prog", "-n", "5"}, want{np: 2, args: []string{"-n", "5"}}},
		{[]string{"-H", "a:2,b:2", "prog"}, want{np: 4, hosts: 2}},
		{[]string{"--host", "a,b", "-n", "1", "prog"}, want{np: 1, hosts: 1}},
		{[]string{"-H", "localhost:3", "prog"}, want{np: 3}},
		{[]string{"-hosts", "127.0.0.1:2,localhost:1", "prog"}, want{np: 3}},
		{[]string{"-n", "2", "-x", "FOO=1", "-x", "HABIT_FROM_MPIRUN", "-x", "HABIT_UNSET", "prog"},
			want{np: 2, exports: []string{"FOO=1", "HABIT_FROM_MPIRUN=mine"}}},
		{[]string{"-n", "2", "-genv", "FOO", "1 2", "-env", "BAR", "x=y", "prog", "-genv", "A", "B"},
			want{np: 2, exports: []string{"FOO=1 2", "BAR=x=y"}, args: []string{"-genv", "A", "B"}}},
		{[]string{"-n", "2", "-genvlist", "HABIT_FROM_MPIRUN,HABIT_UNSET", "-genvall", "prog"},
			want{np: 2, exports: []string{"HABIT_FROM_MPIRUN=mine"}}},
		{[]string{"-n", "1", "-wdir", wd, "prog"}, want{np: 1, wdir: wd}},
		{[]string{"-n", "1", "-wd", wd, "prog"}, want{np: 1, wdir: wd}},
		{[]string{"-n", "2", "--stdin", "1", "prog"}, want{np: 2, stdinRank: 1}},
		{[]string{"-n", "2", "--stdin", "none", "prog"}, want{np: 2, stdinRank: -1}},
		{[]string{"-n", "2", "--oversubscribe", "--map-by", "core", "--bind-to", "hwthread", "prog"}, want{np: 2, bind: launch.BindCore}},
		{[]string{"-n", "2", "--bind-to", "none", "--map-by", "slot", "prog"}, want{np: 2, bind: launch.BindNone}},
		{[]string{"-n", "5", "-H", "a:2,b:1", "--oversubscribe", "prog"}, want{np: 5, hosts: 2}},
		{[]string{"-n", "8", "-H", "localhost:2", "--oversubscribe", "prog"}, want{np: 8}},
	} {
		o, err := parseFlags(c.args, io.Discard)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		got := want{np: o.np, hosts: len(o.hosts), exports: o.exports, wdir: o.wdir, stdinRank: o.stdinRank, bind: o.settings.Bind, args: o.args}
		if c.want.bind == "" {
			c.want.bind = launch.DefaultSettings().Bind
		}
		if got.np != c.want.np || got.hosts != c.want.hosts || !slices.Equal(got.exports, c.want.exports) || got.wdir != c.want.wdir ||
			got.stdinRank != c.want.stdinRank || got.bind != c.want.bind || !slices.Equal(got.args, c.want.args) || o.program != "prog" {
			t.Errorf("%q: got %+v (program %q), want %+v", c.args, got, o.program, c.want)
		}
	}
}

// TestHabitFlagErrors checks that a bad flag is named in one line,
// followed by the usage's first line, with exit status 2.
func TestHabitFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{"-bogus", "-n", "2", "prog"}, "flag provided but not defined: -bogus"},
		{[]string{"--npernode", "2", "prog"}, "flag provided but not defined: -npernode"},
		{[]string{"-n", "2", "--map-by", "node", "prog"}, `invalid value "node" for flag -map-by: want slot, core or hwthread`},
		{[]string{"-n", "2", "--bind-to", "socket", "prog"}, `invalid value "socket" for flag -bind-to: want none, core or hwthread`},
		{[]string{"-n", "2", "--stdin", "all", "prog"}, `invalid value "all" for flag -stdin`},
		{[]string{"-n", "2", "--stdin", "2", "prog"}, "-stdin 2: no such rank in a job of 2"},
		{[]string{"-n", "2", "-genv", "FOO"}, `invalid value "FOO" for flag -genv: want NAME VALUE`},
		{[]string{"-n", "2", "-x", "=1", "prog"}, `invalid value "=1" for flag -x`},
		{[]string{"-n", "2", "-x", "MARTINI_RNDV=fast", "prog"}, "the ranks' environment: "},
		{[]string{"-n", "2", "-wdir", "/no/such/dir", "prog"}, "-wdir: stat /no/such/dir"},
		{[]string{"-hosts", "a:1", "-f", "hosts", "prog"}, "-hosts and -hostfile: give one of them"},
		{[]string{"-H", "a:2", "-n", "3", "prog"}, "-np 3: more ranks than the 2 slots of the hosts (-oversubscribe places them)"},
	} {
		var stdout, stderr strings.Builder
		code := run(c.args, nil, &stdout, &stderr, nil)
		l := lines(stderr.String())
		if code != 2 || len(l) != 2 || !strings.HasPrefix(l[0], "mpirun: "+c.why) || l[1] != usageShort || stdout.Len() != 0 {
			t.Errorf("mpirun %q: exit %d, stderr:\n%s\nwant 2 and %q, then %q", c.args, code, stderr.String(), c.why, usageShort)
		}
	}
}

func TestVersion(t *testing.T) {
	if mpiVersion != mpi.Version || mpiSubversion != mpi.Subversion {
		t.Errorf("-version says MPI %d.%d, package mpi %d.%d", mpiVersion, mpiSubversion, mpi.Version, mpi.Subversion)
	}
	for _, arg := range []string{"--version", "-V"} {
		var stdout, stderr strings.Builder
		code := run([]string{arg}, nil, &stdout, &stderr, nil)
		want := fmt.Sprintf("mpirun (%s) ", modulePath)
		if code != 0 || !strings.HasPrefix(stdout.String(), want) || !strings.HasSuffix(stdout.String(), ", MPI 3.1\n") || stderr.Len() != 0 {
			t.Errorf("mpirun %s: exit %d, stdout %q, stderr %q", arg, code, stdout.String(), stderr.String())
		}
	}
}

func TestVCSRevision(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123"}
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, ""},
		{[]debug.BuildSetting{rev, {Key: "vcs.modified", Value: "false"}}, " commit 0123456789ab"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, rev}, " commit 0123456789ab+modified"},
	} {
		if got := vcsRevision(c.settings); got != c.want {
			t.Errorf("vcsRevision(%v) = %q, want %q", c.settings, got, c.want)
		}
	}
}

// TestHabitJob runs a job as users of other launchers start one: -n, -x,
// -genv, -wdir, standard input to rank 0.
func TestHabitJob(t *testing.T) {
	t.Parallel()
	wd := t.TempDir()
	r := mpirunWith(t, strings.NewReader("5\nsix\n"), nil, "-n", "3", "-x", "FOO=1", "-genv", "BAR", "b c", "-wdir", wd, helper("habit"))
	want := []string{
		fmt.Sprintf(`rank 0 foo=1 bar=b c host= wd=%s stdin="5\nsix\n"`, wd),
		fmt.Sprintf(`rank 1 foo=1 bar=b c host= wd=%s stdin=""`, wd),
		fmt.Sprintf(`rank 2 foo=1 bar=b c host= wd=%s stdin=""`, wd),
	}
	if got := sortedLines(r.stdout); r.code != 0 || !slices.Equal(got, want) {
		t.Errorf("exit %d, output %q, want %q", r.code, got, want)
	}
}

// TestStdinRank gives standard input to the rank of -stdin, or to none.
func TestStdinRank(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flag string
		want []string
	}{
		{"1", []string{`rank 0 stdin=""`, `rank 1 stdin="in"`}},
		{"none", []string{`rank 0 stdin=""`, `rank 1 stdin=""`}},
	} {
		r := mpirunWith(t, strings.NewReader("in"), nil, "-n", "2", "-stdin", c.flag, helper("habit"))
		got := sortedLines(stripHabit.ReplaceAllString(r.stdout, ""))
		if r.code != 0 || !slices.Equal(got, c.want) {
			t.Errorf("-stdin %s: exit %d, output %q, want %q", c.flag, r.code, got, c.want)
		}
	}
}

// stripHabit removes the fields of habit's output that TestStdinRank
// does not check.
var stripHabit = regexp.MustCompile(` foo=.* wd=\S*`)

// TestStdinUnread checks that a job whose rank 0 never reads its
// standard input ends, the input left open, and that an interrupt ends
// one whose rank 0 is blocked reading it, on this host and across hosts.
func TestStdinUnread(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe() // never written to, never closed until the end
	defer pw.Close()
	r := mpirunWith(t, pr, nil, "-n", "2", helper("printrank"))
	if r.code != 0 || len(lines(r.stdout)) != 4 {
		t.Errorf("exit %d, output %q", r.code, r.stdout)
	}
	launch, marker := fakeLaunch(t)
	defer checkNothingLeft(t, marker)
	for _, hosts := range [][]string{{"-n", "2"}, {"-hosts", "a,b", "-launch", launch}} {
		sigs := make(chan os.Signal, 1)
		go func() {
			time.Sleep(300 * time.Millisecond)
			sigs <- os.Interrupt
		}()
		r := mpirunWith(t, pr, sigs, append(hosts, helper("habit"))...)
		if r.code != 130 || r.elapsed > 5*time.Second {
			t.Errorf("%q, rank 0 reading: exit %d after %v, want 130 at once", hosts, r.code, r.elapsed)
		}
	}
}

// TestHabitAcrossHosts runs a job on hosts given as -H, one of them
// localhost, whose agent mpirun starts directly (without the launch
// command): -x and -wdir reach the ranks on both, and standard input the
// rank of -stdin on the other host.
func TestHabitAcrossHosts(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	defer checkNothingLeft(t, marker)
	wd := t.TempDir()
	r := mpirunWith(t, strings.NewReader("to rank 2\n"), nil, "-H", "localhost:2,b:2", "-launch", launch, "-x", "FOO=1", "-wd", wd,
		"-stdin", "2", helper("habit"))
	var want []string
	for rank, host := range []string{"", "", "b", "b"} {
		in := ""
		if rank == 2 {
			in = `to rank 2\n`
		}
		want = append(want, fmt.Sprintf(`rank %d foo=1 bar= host=%s wd=%s stdin="%s"`, rank, host, wd, in))
	}
	if got := sortedLines(r.stdout); r.code != 0 || !slices.Equal(got, want) {
		t.Errorf("exit %d, output %q, want %q", r.code, got, want)
	}
}

// TestDocListsFlags checks that the package doc (go doc ./cmd/mpirun)
// names every flag that -h lists.
func TestDocListsFlags(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "cmd", "mpirun", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	doc, _, ok := strings.Cut(string(src), "\npackage main")
	if !ok {
		t.Fatal("cmd/mpirun/main.go: no package clause")
	}
	o := &options{}
	fs := flag.NewFlagSet("mpirun", flag.ContinueOnError)
	o.defineFlags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		re := regexp.MustCompile(`(?m)^//\t(.*[\s,])?-` + regexp.QuoteMeta(f.Name) + `([\s,]|$)`)
		if !re.MatchString(doc) {
			t.Errorf("the package doc's flag list does not name -%s", f.Name)
		}
	})
}

// TestOutputFilename writes each rank's output to the files Open MPI
// names, on this host and across hosts, and also to the terminal unless
// :nocopy.
func TestOutputFilename(t *testing.T) {
	t.Parallel()
	launch, marker := fakeLaunch(t)
	defer checkNothingLeft(t, marker)
	for _, c := range []struct {
		args     []string
		terminal bool
	}{
		{[]string{"-n", "2"}, true},
		{[]string{"-hosts", "a,b", "-launch", launch}, true},
		{[]string{"-n", "2"}, false},
	} {
		dir := t.TempDir()
		arg := dir
		if !c.terminal {
			arg += ":nocopy"
		}
		r := mpirun(t, append(c.args, "-output-filename", arg, helper("printrank"))...)
		if r.code != 0 || (len(lines(r.stdout)) == 4) != c.terminal {
			t.Errorf("%q: exit %d, stdout %q", c.args, r.code, r.stdout)
		}
		for rank := range 2 {
			out, err := os.ReadFile(filepath.Join(dir, "1", fmt.Sprintf("rank.%d", rank), "stdout"))
			want := fmt.Sprintf("rank %d of 2 args= ", rank)
			if err != nil || !strings.HasPrefix(string(out), want) || !strings.HasSuffix(string(out), "\nno newline at the end\n") {
				t.Errorf("%q: rank %d's stdout file: %q, %v", c.args, rank, out, err)
			}
			errs, err := os.ReadFile(filepath.Join(dir, "1", fmt.Sprintf("rank.%d", rank), "stderr"))
			if err != nil || string(errs) != fmt.Sprintf("stderr of rank %d\n", rank) {
				t.Errorf("%q: rank %d's stderr file: %q, %v", c.args, rank, errs, err)
			}
		}
	}
	var stderr strings.Builder
	if code := run([]string{"-n", "1", "-output-filename", "d:copy", "prog"}, nil, io.Discard, &stderr, nil); code != 2 ||
		!strings.Contains(stderr.String(), "unknown directive copy") {
		t.Errorf("-output-filename d:copy: exit %d, stderr %q", code, stderr.String())
	}
}
