package mpirun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/internal/netif"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/martini"
	"github.com/rhinet-go/martini/tuning"
)

// options are the parsed command line.
type options struct {
	np        int
	tagOutput bool
	timeout   time.Duration
	// timeoutBy names what set timeout, for the error that reports it:
	// "-timeout", or EnvTimeout.
	timeoutBy string
	verbose   bool
	profile   string          // the NIC's timing profile (martini.Profiles)
	clock     string          // the profile's clock (martini.Clocks): "" is real time
	hostSpeed float64         // in virtual time, the modelled host's seconds per CPU second here
	compute   string          // in virtual time, how computing counts (martini.Computes): "" is cpu
	opRate    float64         // under -compute declared, the modelled host's Mop/s
	settings  launch.Settings // forwarded to the ranks as MARTINI_* variables
	exports   []string        // -x, -genv: NAME=value for the ranks' environment
	wdir      string          // -wdir: the ranks' working directory, "" for mpirun's
	stdinRank int             // -stdin: the rank that reads mpirun's standard input, -1 for none
	version   bool            // -version: print the version and exit
	// oversubscribe lets -np exceed the slots of -hosts (-oversubscribe).
	oversubscribe bool
	// outputFiles are the ranks' output files of -output-filename, or nil.
	outputFiles *rankFiles
	libmpich    string // -libmpich: the directory of this runtime's libmpich.so.12
	program     string
	args        []string

	// hosts places the ranks of a job across hosts (-hosts, -hostfile);
	// nil for a job on this host.
	hosts  []placement
	launch string     // -launch: how to start an agent on a host
	ifSpec string     // -if, "" if not given
	ifAddr netip.Addr // the head's address chosen by -if

	// agentTimeout bounds the wait for every agent's hello (-agent-timeout;
	// 0: no bound).
	agentTimeout time.Duration
}

// errUsage reports a command line that parseFlags rejected, after printing
// the reason and the usage.
var errUsage = errors.New("usage error")

// errVersion reports that -version was given: mpirun prints its version.
var errVersion = errors.New("version asked for")

// usageShort follows the reason for a usage error.
const usageShort = "usage: mpirun -n N [flags] PROGRAM [args...] (mpirun -h lists the flags)"

const usageHead = `usage: mpirun -np N [flags] PROGRAM [args...]
       mpirun -hosts HOST:SLOTS,... | -hostfile FILE [-np N] [flags] PROGRAM [args...]

Runs N copies of PROGRAM as the ranks of one Martini MPI job, each a process
of its own, and forwards their output. PROGRAM is an executable (searched in
PATH when it has no slash) or a Go package (a directory, a .go file or an
import path), which is built first. With -hosts or -hostfile the ranks run
on those hosts, through an agent that mpirun starts on each with -launch;
PROGRAM and mpirun itself must be at the same paths on every host.

A PROGRAM linked against MPICH's libmpich.so.12 (a C or Fortran MPI program
built with mpicc.mpich or mpif90.mpich) runs on this runtime's library of
that name (package libmpich): mpirun puts the directory of -libmpich, or of
mpirun's own executable when the library is there, or else a build of it
from this module, first in the ranks' LD_LIBRARY_PATH (on this host).

Rank 0 (or the rank of -stdin) reads mpirun's standard input; the others
read /dev/null. Hosts named localhost, by a loopback address or by this
host's name need no -launch.

Flags take one dash or two (-np or --np). The flags of Open MPI's mpirun
and MPICH's mpiexec that mean something here are accepted: -n, -H and
--host, -f and -machinefile, -x, -genv and -env, -wdir and -wd, --map-by,
--bind-to, --output-filename, --oversubscribe, --stdin and --version.

Flags:
`

// parseFlags parses the command line (without the command name). It returns
// flag.ErrHelp when help was asked for (having written the usage to
// stderr), errVersion for -version, and errUsage for a bad command line
// (having written why and the usage's first line to stderr).
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{settings: launch.DefaultSettings(), hostSpeed: 1, timeoutBy: "-timeout"}
	fs := flag.NewFlagSet("mpirun", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseFlags says what went wrong, in two lines
	fs.Usage = func() {}
	hosts := o.defineFlags(fs)
	if err := fs.Parse(rewriteEnvFlags(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stderr, fs)
			return nil, err
		}
		return nil, usageError(stderr, "%v", err)
	}
	if o.version {
		return nil, errVersion
	}
	if err := o.timeoutFromEnv(fs); err != nil {
		return nil, usageError(stderr, "%v", err)
	}
	perHost, err := o.placeRanks(fs, hosts.list, hosts.file)
	if err != nil {
		return nil, usageError(stderr, "%v", err)
	}
	if err := o.check(fs); err != nil {
		return nil, usageError(stderr, "%v", err)
	}
	if err := checkRanks(perHost, rankLimits()); err != nil {
		return nil, usageError(stderr, "%v", err)
	}
	if err := checkSettingsEnv(append(settingsEnv(o.settings), o.exports...)); err != nil {
		return nil, usageError(stderr, "%v", err)
	}
	o.program = fs.Arg(0)
	o.args = fs.Args()[1:]
	return o, nil
}

// printUsage writes the usage and every flag to w.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usageHead)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// usageError writes why the command line is wrong and the usage's first
// line to stderr, and returns errUsage.
func usageError(stderr io.Writer, format string, a ...any) error {
	fmt.Fprintf(stderr, "mpirun: "+format+"\n", a...)
	fmt.Fprintln(stderr, usageShort)
	return errUsage
}

// EnvTimeout is the job's time limit in seconds where -timeout is not
// given, as Hydra's mpiexec reads it (MPICH's test harness sets it for
// every test).
const EnvTimeout = "MPIEXEC_TIMEOUT"

// timeoutFromEnv sets the job's time limit from EnvTimeout unless -timeout
// was given.
func (o *options) timeoutFromEnv(fs *flag.FlagSet) error {
	v := os.Getenv(EnvTimeout)
	if v == "" || isSet(fs, "timeout") {
		return nil
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || s < 0 || s > 1e9 {
		return fmt.Errorf("%s=%q: want a number of seconds (0: no limit)", EnvTimeout, v)
	}
	o.timeout, o.timeoutBy = time.Duration(s*float64(time.Second)), EnvTimeout
	return nil
}

// check checks the flags that depend on each other.
func (o *options) check(fs *flag.FlagSet) error {
	switch {
	case o.timeout < 0:
		return fmt.Errorf("-timeout %v: must not be negative", o.timeout)
	case fs.NArg() == 0:
		return errors.New("missing PROGRAM")
	case o.stdinRank >= o.np:
		return fmt.Errorf("-stdin %d: no such rank in a job of %d", o.stdinRank, o.np)
	case o.clock == "virtual" && (o.profile == "" || o.profile == "native"):
		return errors.New("-clock virtual: needs a timing profile, -profile martini, dimmnet2 or cenju4 (virtual time runs the NIC's timing model)")
	case o.clock == "virtual" && o.hosts != nil:
		return errors.New("-clock virtual: a job on one host only (each host has its own NIC segment, and TCP has no timing model)")
	case o.clock == "virtual" && o.settings.Transport == launch.TransportTCP:
		return errors.New("-clock virtual: needs the martini network, not -transport tcp")
	case isSet(fs, "host-speed") && o.clock != "virtual":
		return errors.New("-host-speed: only with -clock virtual")
	case o.compute != "" && o.clock != "virtual":
		return errors.New("-compute: only with -clock virtual")
	case o.compute == "declared" && o.opRate == 0:
		return errors.New("-compute declared: needs -op-rate (the modelled host's Mop/s)")
	case o.compute == "declared" && isSet(fs, "host-speed"):
		return errors.New("-host-speed: only with -compute cpu (declared computing counts no CPU time)")
	case isSet(fs, "op-rate") && o.compute != "declared":
		return errors.New("-op-rate: only with -compute declared")
	case o.settings.PMRMA && o.settings.Eager != launch.EagerPM:
		return errors.New("-pm-rma: only with -eager pm (PM/RHiNET's remote memory access)")
	case o.settings.VPQueue > 0 && o.settings.Eager != launch.EagerVP:
		return errors.New("-vp-queue: only with -eager vp (PM/RHiNET-VP's receive queue)")
	case o.settings.PMRing > 0 && o.settings.Eager != launch.EagerPM:
		return errors.New("-pm-ring: only with -eager pm (PM/RHiNET's rings)")
	}
	return o.checkWdir()
}

// defineFlags defines every flag of mpirun on fs, to be parsed into o.
func (o *options) defineFlags(fs *flag.FlagSet) *hostFlags {
	fs.IntVar(&o.np, "np", 0, "number of ranks to start, at least 1 (required without -hosts or -hostfile, whose slots it defaults to)")
	fs.BoolVar(&o.tagOutput, "tag-output", false, `prefix every line of output with "[rank] "`)
	fs.DurationVar(&o.timeout, "timeout", 0, "stop the build and the job if they have not ended after this `duration` (0: no limit; unset, MPIEXEC_TIMEOUT's seconds if set, as Hydra reads it)")
	fs.BoolVar(&o.verbose, "v", false, "report what mpirun does on stderr")
	fs.StringVar(&o.libmpich, "libmpich", "", "the `directory` of this runtime's libmpich.so.12 (go build -buildmode=c-shared -o DIR/libmpich.so.12 ./libmpich), for a PROGRAM linked against MPICH's")
	o.defineProtocolFlags(fs)
	o.defineTimingFlags(fs)
	hosts := o.defineHostFlags(fs)
	o.defineHabitFlags(fs, hosts)
	return hosts
}

// defineProtocolFlags defines the flags forwarded to the ranks as
// MARTINI_* settings.
func (o *options) defineProtocolFlags(fs *flag.FlagSet) {
	o.defineMessageFlags(fs)
	o.defineTransportFlags(fs)
	o.defineEagerFlags(fs)
	o.defineBindFlag(fs)
	fs.BoolVar(&o.settings.NoCMA, "no-cma", false, "do not use cross-memory attach; copy through bounce buffers")
	fs.BoolVar(&o.settings.NoHugePages, "no-hugepages", false, "do not collapse the memory that cross-memory copies use most into transparent huge pages")
	fs.BoolVar(&o.settings.NoSharedLines, "no-shared-lines", false, "send every small message through the rings, none through the shared line of each pair of processes")
	fs.BoolVar(&o.settings.Stats, "stats", false, "print per-rank statistics at Finalize")
	o.defineCollectiveFlags(fs)
}

// defineMessageFlags defines the settings of how a message travels
// between two ranks: the eager limit, the rendezvous protocol above it
// and the path of small messages.
func (o *options) defineMessageFlags(fs *flag.FlagSet) {
	fs.Func("eager-limit", "send messages of up to `bytes` eagerly (suffixes k, m: KiB, MiB)", func(s string) error {
		n, err := parseBytes(s)
		if err != nil {
			return err
		}
		o.settings.EagerLimit = n
		return nil
	})
	fs.Func("rndv", "rendezvous protocol, `pull|push|split`", func(s string) error {
		if s != launch.RndvPull && s != launch.RndvPush && s != launch.RndvSplit {
			return fmt.Errorf("want %s, %s or %s", launch.RndvPull, launch.RndvPush, launch.RndvSplit)
		}
		o.settings.Rndv = s
		return nil
	})
	fs.Func("send-path", "how small messages travel, `botf|push|aotf` (default botf)", func(s string) error {
		if s != launch.SendBOTF && s != launch.SendPush && s != launch.SendAOTF {
			return fmt.Errorf("want %s, %s or %s", launch.SendBOTF, launch.SendPush, launch.SendAOTF)
		}
		o.settings.SendPath = s
		return nil
	})
}

// defineTransportFlags defines the settings of the network between the
// ranks: which one, and how its TCP connections behave.
func (o *options) defineTransportFlags(fs *flag.FlagSet) {
	fs.Func("transport", "the network between the ranks, `auto|martini|tcp`: martini (the emulated NIC in shared memory) between ranks on one host, tcp between hosts (auto, the default), or one of them for every pair", func(s string) error {
		if s != launch.TransportAuto && s != launch.TransportMartini && s != launch.TransportTCP {
			return fmt.Errorf("want %s, %s or %s", launch.TransportAuto, launch.TransportMartini, launch.TransportTCP)
		}
		o.settings.Transport = s
		return nil
	})
	fs.Func("tcp-timeout", "how long a TCP connection between ranks may stall, its peer's host acknowledging nothing (a link down), before the job fails naming the peer, a `duration` (default 20s)", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return errors.New("want a positive duration, such as 20s")
		}
		o.settings.TCPTimeout = d
		return nil
	})
	fs.Func("tcp-sndbuf", "the send buffer of each TCP connection between ranks, `bytes` (suffixes k, m; the kernel doubles it): 0 leaves it to the kernel's autotuning; the default, half the host's L2 cache, keeps a large message's bytes in flight within the caches when both ends share a machine, and suits links whose round trip carries less than that", func(s string) error {
		n, err := parseBytes(s)
		o.settings.TCPSendBuffer = n
		return err
	})
}

// defineEagerFlags defines the settings of the eager transport: rings, or
// the PM/RHiNET and PM/RHiNET-VP layers of the thesis and their sizes.
func (o *options) defineEagerFlags(fs *flag.FlagSet) {
	fs.Func("eager", "eager transport for small messages and control records, `rings|pm|vp`: a ring per sender connected on first use (the default), PM/RHiNET (rings all connected at start, 2 KB-aligned records) or PM/RHiNET-VP (one VPUSH receive queue for all senders); pm and vp send every message eagerly, one larger than a PM message as several without a handshake, as MPICH-SCore does without remote memory access", func(s string) error {
		if s != launch.EagerRings && s != launch.EagerPM && s != launch.EagerVP {
			return fmt.Errorf("want %s, %s or %s", launch.EagerRings, launch.EagerPM, launch.EagerVP)
		}
		o.settings.Eager = s
		return nil
	})
	fs.BoolVar(&o.settings.PMRMA, "pm-rma", false, "with -eager pm: PM/RHiNET's remote memory access on, as the thesis's \"Zerocopy\" (Fig 8.9): a message above 16 KB goes by a rendezvous whose data one PUSH moves into the receiver's buffer, with no copy")
	fs.Func("vp-queue", "with -eager vp: the record space of each process's PM/RHiNET-VP receive queue, `bytes` (a power of two; suffixes k, m; default 256k): the thesis gives no size, so it is the model's parameter to vary", powerOfTwo(&o.settings.VPQueue))
	fs.Func("pm-ring", "with -eager pm: the record space of each of PM/RHiNET's rings, `bytes` (a power of two; suffixes k, m; default 256k; the thesis's testbed had 128k)", powerOfTwo(&o.settings.PMRing))
}

// defineBindFlag defines -bind-to, how the ranks are pinned to CPUs
// (Open MPI's hwthread accepted, meaning core here).
func (o *options) defineBindFlag(fs *flag.FlagSet) {
	fs.Func("bind-to", "CPU binding of the ranks, `none|core|hwthread`: core (or hwthread, the same here) pins rank r to the r-th CPU (modulo the CPUs allowed; a CPU of each core before a second hardware thread of any; CPUs that other programs are pinned to come last), which keeps two busy ranks off one CPU when ranks sleep and wake; the default is core when a host runs two ranks or more that fill at least half of its CPUs, none otherwise", func(s string) error {
		switch s {
		case launch.BindNone, launch.BindCore:
			o.settings.Bind = s
		case "hwthread": // a CPU of the ranks' affinity mask, which core pins to
			o.settings.Bind = launch.BindCore
		default:
			return fmt.Errorf("want %s, %s or hwthread", launch.BindNone, launch.BindCore)
		}
		return nil
	})
}

// defineCollectiveFlags defines the settings of the collectives: forced
// algorithms, the host class of their thresholds, running ahead, the
// argument check and the NIC's offload.
func (o *options) defineCollectiveFlags(fs *flag.FlagSet) {
	fs.Func("coll", "force collective algorithms, `coll=alg,...` (e.g. allreduce=ring,bcast=binomial)", func(s string) error {
		if _, err := collectives.ParseSelection(s); err != nil {
			return err
		}
		o.settings.Coll = s
		return nil
	})
	fs.Func("tune", "take the thresholds of host class `vendor[:cpus]` (intel, amd or generic; e.g. intel:8) instead of this host's", func(s string) error {
		if _, err := tuning.ParseHost(s, tuning.Host{}); err != nil {
			return err
		}
		o.settings.Tune = s
		return nil
	})
	fs.Func("run-ahead", "let broadcasts, scatters and data-word reductions and gathers to a root return before their argument check settles, `on|off` (default: on where ranks outnumber cores)", func(s string) error {
		if s != launch.RunAheadOn && s != launch.RunAheadOff {
			return fmt.Errorf("want %s or %s", launch.RunAheadOn, launch.RunAheadOff)
		}
		o.settings.RunAhead = s
		return nil
	})
	fs.BoolVar(&o.settings.NoCollCheck, "no-coll-check", false, "do not compare the ranks' collective arguments before moving data")
	fs.BoolVar(&o.settings.NoOffload, "no-offload", false, "run collectives without the NIC's barrier network and multicast")
}

// defineTimingFlags defines the flags of the NIC's timing model.
func (o *options) defineTimingFlags(fs *flag.FlagSet) {
	fs.Func("profile", "NIC timing `profile`: native (memory speed, the default) or martini (RHiNET-2's Martini NIC)", func(s string) error {
		if err := martini.CheckProfile(s); err != nil {
			return fmt.Errorf("want %s", strings.Join(martini.Profiles(), " or "))
		}
		o.profile = s
		return nil
	})
	fs.Func("clock", "the timing profile's `clock`: real (the default: requests take the modelled time on this machine's clock) or virtual (every rank has a virtual clock that only the model and its own computing move; needs a timing profile: martini, dimmnet2 or cenju4)", func(s string) error {
		if s != "real" && s != "virtual" {
			return fmt.Errorf("want %s", strings.Join(martini.Clocks(), " or "))
		}
		o.clock = s
		return nil
	})
	fs.Func("host-speed", "in virtual time, the modelled host's seconds per second of this machine's CPU time while a rank computes: a `number` (1, the default: as fast as this machine; 0: computing takes no time) or p3-933 (the thesis's Pentium III 933 MHz hosts)", func(s string) error {
		f, err := martini.ParseHostSpeed(s)
		if err != nil {
			return errors.New("want a number of at least 0 or p3-933")
		}
		o.hostSpeed = f
		return nil
	})
	fs.Func("compute", "in virtual time, what counts as a rank's `computing`: cpu (the default: its thread's CPU time times -host-speed) or declared (only the operations the program declares with mpi.Compute, at -op-rate; no load moves it)", func(s string) error {
		if s != "cpu" && s != "declared" {
			return fmt.Errorf("want %s", strings.Join(martini.Computes(), " or "))
		}
		o.compute = s
		return nil
	})
	fs.Func("op-rate", "under -compute declared, the modelled host's operations per microsecond (`Mop/s`) at which mpi.Compute's operations are charged", func(s string) error {
		f, err := martini.ParseOpRate(s)
		if err != nil {
			return errors.New("want a number of Mop/s above 0")
		}
		o.opRate = f
		return nil
	})
}

// isSet reports whether the command line set the flag name.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// powerOfTwo is a flag's parser of a power of two of bytes into n.
func powerOfTwo(n *int) func(string) error {
	return func(s string) error {
		v, err := parseBytes(s)
		if err == nil && (v == 0 || v&(v-1) != 0) {
			err = errors.New("want a power of two of bytes")
		}
		*n = v
		return err
	}
}

// parseBytes parses a non-negative byte count with an optional k or m
// (binary) suffix.
func parseBytes(s string) (int, error) {
	mult := 1
	num := s
	switch {
	case strings.HasSuffix(s, "k") || strings.HasSuffix(s, "K"):
		mult, num = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "m") || strings.HasSuffix(s, "M"):
		mult, num = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > (1<<31-1)/mult {
		return 0, errors.New("want a non-negative number of bytes")
	}
	return n * mult, nil
}

// hostFlags are the arguments of -hosts and -hostfile.
type hostFlags struct{ list, file string }

// defineHostFlags defines the flags of a job across hosts.
func (o *options) defineHostFlags(fs *flag.FlagSet) *hostFlags {
	h := &hostFlags{}
	fs.StringVar(&h.list, "hosts", "", "run the ranks on these `hosts`, host:slots,... (1 slot when not given), the first host's slots taking ranks 0, 1, ..., then the next host's")
	fs.StringVar(&h.file, "hostfile", "", "run the ranks on the hosts of `file`, in Open MPI's format (a host a line, slots=N)")
	fs.StringVar(&o.launch, "launch", "ssh {host}", "with -hosts or -hostfile, the `command` that starts mpirun's agent on a host, {host} replaced by its name (split at blanks, no quoting)")
	fs.DurationVar(&o.agentTimeout, "agent-timeout", defaultAgentTimeout, "with -hosts or -hostfile, fail the job when an agent has not answered this `duration` after its launch command started (0: wait for ever)")
	fs.StringVar(&o.ifSpec, "if", "", "with -hosts or -hostfile, the network that joins the hosts, a `CIDR or interface name`: mpirun serves the job on its address there, and each host's ranks listen on theirs (default: the address that routes to the first other host)")
	return h
}

// placeRanks checks -np and places the ranks on the hosts of -hosts or
// -hostfile, if one is given (and then -np defaults to their slots). It
// returns the most ranks a host runs, which the limits of this host are
// checked against (the other hosts are taken to be alike).
func (o *options) placeRanks(fs *flag.FlagSet, hostList, hostfile string) (int, error) {
	var hosts []hostSlots
	var err error
	switch {
	case hostList != "" && hostfile != "":
		return 0, errors.New("-hosts and -hostfile: give one of them")
	case hostList != "":
		hosts, err = parseHostList(hostList)
		err = wrapIf(err, "-hosts")
	case hostfile != "":
		hosts, err = readHostfile(hostfile)
		err = wrapIf(err, "-hostfile")
	case isSet(fs, "launch") || isSet(fs, "if") || isSet(fs, "agent-timeout"):
		return 0, errors.New("-launch, -if and -agent-timeout are for jobs across hosts: give -hosts or -hostfile")
	}
	if err != nil {
		return 0, err
	}
	if hosts != nil && !npSet(fs) {
		o.np = totalSlots(hosts)
	}
	switch {
	case o.np == 0 && !npSet(fs):
		return 0, errors.New("-np is required")
	case o.np < 1:
		return 0, fmt.Errorf("-np %d: need at least 1 rank", o.np)
	case hosts == nil:
		return o.np, nil
	}
	if o.oversubscribe {
		hosts = oversubscribe(hosts, o.np)
	}
	if o.hosts, err = place(hosts, o.np); err != nil {
		return 0, err
	}
	if allLocal(o.hosts) {
		o.hosts = nil // every host is this one: a job on this host
		return o.np, nil
	}
	if err := checkTemplate(o.launch); err != nil {
		return 0, err
	}
	if o.agentTimeout < 0 {
		return 0, fmt.Errorf("-agent-timeout %v: must not be negative", o.agentTimeout)
	}
	if err := o.resolveIf(); err != nil {
		return 0, err
	}
	most := 0
	for _, p := range o.hosts {
		most = max(most, p.count)
	}
	return most, nil
}

// resolveIf chooses mpirun's address on the network of -if, if given.
func (o *options) resolveIf() error {
	if o.ifSpec == "" {
		return nil
	}
	if err := checkIfSpec(o.ifSpec); err != nil {
		return err
	}
	addrs, err := netif.Addrs()
	if err != nil {
		return err
	}
	o.ifAddr, err = selectAddr(o.ifSpec, addrs)
	return err
}

func wrapIf(err error, flag string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}
