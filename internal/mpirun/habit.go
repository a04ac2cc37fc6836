package mpirun

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// The MPI standard level the runtime implements (mpi.Version and
// mpi.Subversion; a test checks that they agree), printed by -version.
const mpiVersion, mpiSubversion = 3, 1

// modulePath is the module mpirun belongs to, named by -version.
const modulePath = "github.com/rhinet-go/martini"

// defineHabitFlags defines the flags that users of Open MPI's mpirun and
// MPICH's mpiexec (Hydra) type from habit: other names of mpirun's own
// flags, and the environment, working directory, standard input and
// mapping flags of those launchers.
func (o *options) defineHabitFlags(fs *flag.FlagSet, h *hostFlags) {
	fs.IntVar(&o.np, "n", 0, "the same as -np `N`")
	fs.StringVar(&h.list, "H", "", "the same as -hosts `host:slots,...`")
	fs.StringVar(&h.list, "host", "", "the same as -hosts `host:slots,...`")
	fs.StringVar(&h.file, "f", "", "the same as -hostfile `file`")
	fs.StringVar(&h.file, "machinefile", "", "the same as -hostfile `file`")
	fs.Func("x", "export `NAME[=value]` to the ranks: NAME=value sets it, NAME alone passes on mpirun's (repeatable)", o.export)
	fs.Func("genv", "`NAME VALUE`: set NAME to VALUE in the ranks' environment (as -x NAME=VALUE)", o.exportPair)
	fs.Func("env", "the same as -genv `NAME VALUE`", o.exportPair)
	fs.Func("genvlist", "export mpirun's values of these `names`, NAME,... (as -x NAME for each)", o.exportList)
	fs.Func("envlist", "the same as -genvlist `names`", o.exportList)
	fs.Bool("genvall", true, "accepted: the ranks on this host get all of mpirun's environment (ranks on other hosts get the agent's, with -x)")
	fs.StringVar(&o.wdir, "wdir", "", "run the ranks in `directory` (the same path on every host)")
	fs.StringVar(&o.wdir, "wd", "", "the same as -wdir `directory`")
	fs.Func("stdin", "which rank reads mpirun's standard input, `rank|none` (default 0; the others read /dev/null)", o.setStdin)
	fs.Func("map-by", "how ranks are placed, `slot|core|hwthread`: all mean the same here, each host's slots filled in order, rank r of a host on its r-th CPU under -bind-to core", checkMapBy)
	fs.Func("output-filename", "also write rank N's output to `DIR`/1/rank.N/stdout and stderr, as Open MPI does (DIR:nocopy: to the files only)", func(s string) error {
		f, err := parseOutputFilename(s)
		o.outputFiles = f
		return err
	})
	fs.BoolVar(&o.oversubscribe, "oversubscribe", false, "let -np exceed the slots of -hosts or -hostfile: the ranks beyond go round the hosts again, each taking its slots in turn, a host's ranks kept consecutive (a host may always run more ranks than it has CPUs)")
	fs.BoolVar(&o.version, "version", false, "print mpirun's version and the MPI standard level, and exit")
	fs.BoolVar(&o.version, "V", false, "the same as -version")
}

// export is -x: NAME=value, or NAME for mpirun's own value (nothing when
// mpirun's environment has none, as Open MPI does).
func (o *options) export(s string) error {
	name, _, hasValue := strings.Cut(s, "=")
	if err := checkEnvName(name); err != nil {
		return err
	}
	if hasValue {
		o.exports = append(o.exports, s)
	} else if v, ok := os.LookupEnv(name); ok {
		o.exports = append(o.exports, name+"="+v)
	}
	return nil
}

// exportPair is -genv NAME VALUE, which rewriteEnvFlags has made NAME=VALUE.
func (o *options) exportPair(s string) error {
	if !strings.Contains(s, "=") {
		return errors.New("want NAME VALUE")
	}
	return o.export(s)
}

// exportList is -genvlist NAME,...
func (o *options) exportList(s string) error {
	for _, name := range strings.Split(s, ",") {
		if strings.Contains(name, "=") {
			return fmt.Errorf("%q: want names, NAME,...", name)
		}
		if err := o.export(name); err != nil {
			return err
		}
	}
	return nil
}

// checkEnvName rejects what cannot name an environment variable.
func checkEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "\x00 \t\n") {
		return fmt.Errorf("%q: not the name of an environment variable", name)
	}
	return nil
}

func (o *options) setStdin(s string) error {
	if s == "none" {
		o.stdinRank = -1
		return nil
	}
	r, err := strconv.Atoi(s)
	if err != nil || r < 0 {
		return errors.New("want a rank or none (all is not supported: one rank reads it)")
	}
	o.stdinRank = r
	return nil
}

// checkMapBy accepts the --map-by values that describe what mpirun does.
func checkMapBy(s string) error {
	switch s {
	case "slot", "core", "hwthread":
		return nil
	}
	return errors.New("want slot, core or hwthread (mpirun fills each host's slots in order; node, socket and the others are not supported)")
}

// npSet reports whether -np or -n was given.
func npSet(fs *flag.FlagSet) bool { return isSet(fs, "np") || isSet(fs, "n") }

// rewriteEnvFlags returns args with Hydra's two-argument flags "-genv NAME
// VALUE" and "-env NAME VALUE" made "-genv NAME=VALUE", which the flag
// package can parse. It rewrites flags only, up to PROGRAM (the first
// argument that is neither a flag nor a flag's value) or "--".
func rewriteEnvFlags(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return append(out, args[i:]...)
		}
		out = append(out, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		switch {
		case (name == "genv" || name == "env") && i+2 < len(args):
			out = append(out, args[i+1]+"="+args[i+2])
			i += 2
		case takesValue(fs, name) && i+1 < len(args):
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// takesValue reports whether flag name of fs takes a value (is defined,
// and not a boolean flag).
func takesValue(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// checkWdir checks -wdir on this host, for a job on this host only (an
// agent reports a directory its host lacks when it starts the ranks).
func (o *options) checkWdir() error {
	if o.wdir == "" || o.hosts != nil {
		return nil
	}
	st, err := os.Stat(o.wdir)
	switch {
	case err != nil:
		return fmt.Errorf("-wdir: %w", err)
	case !st.IsDir():
		return fmt.Errorf("-wdir %s: not a directory", o.wdir)
	}
	return nil
}

// allLocal reports whether every host of ps is this one, whose ranks
// mpirun runs itself as a job on this host.
func allLocal(ps []placement) bool {
	for _, p := range ps {
		if !isLocalHost(p.host) {
			return false
		}
	}
	return true
}

// isLocalHost reports whether name is this host: localhost, a loopback
// address, or this host's name (in full or up to its first dot).
func isLocalHost(name string) bool {
	if name == "localhost" || strings.HasPrefix(name, "localhost.") {
		return true
	}
	if a, err := netip.ParseAddr(name); err == nil {
		return a.IsLoopback()
	}
	self, err := os.Hostname()
	if err != nil || self == "" {
		return false
	}
	short, _, _ := strings.Cut(self, ".")
	return name == self || name == short
}

// versionLine is what -version prints: the module's version (from the
// build information; for a build from a checkout, its commit) and the MPI
// standard level.
func versionLine() string {
	v := "(unknown)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		v = info.Main.Version
		if v == "(devel)" {
			v += vcsRevision(info.Settings)
		}
	}
	return fmt.Sprintf("mpirun (%s) %s, MPI %d.%d", modulePath, v, mpiVersion, mpiSubversion)
}

// vcsRevision returns " commit REV" (with "+modified" when the checkout
// had changes) from the build settings, or "" when they have none.
func vcsRevision(settings []debug.BuildSetting) string {
	rev, modified := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return ""
	case modified:
		return " commit " + rev + "+modified"
	}
	return " commit " + rev
}
