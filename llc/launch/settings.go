package launch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Names of the environment variables through which mpirun forwards its
// tuning flags.
const (
	EnvEagerLimit = "MARTINI_EAGER_LIMIT" // -eager-limit: bytes
	EnvRndv       = "MARTINI_RNDV"        // -rndv: "pull", "push" or "split"
	EnvNoCMA      = "MARTINI_NO_CMA"      // -no-cma: "1" forces the bounce-buffer path
	EnvStats      = "MARTINI_STATS"       // -stats: "1" prints per-rank stats at Finalize
	// EnvNoHugePages, -no-hugepages: "1" keeps the memory of cross-memory
	// copies on the pages it has (no collapse into transparent huge
	// pages; see package nicemu).
	EnvNoHugePages = "MARTINI_NO_HUGEPAGES"
	// EnvNoSharedLines, -no-shared-lines: "1" sends every small record
	// through the rings, none through the pairs' shared lines (see
	// package llc).
	EnvNoSharedLines = "MARTINI_NO_SHARED_LINES"
	// EnvColl forces collective algorithms, -coll: "allreduce=ring,bcast=binomial"
	// (the mpi package checks the names).
	EnvColl = "MARTINI_COLL"
	// EnvNoCollCheck, -no-coll-check: "1" skips the comparison of the
	// processes' arguments before a collective moves data.
	EnvNoCollCheck = "MARTINI_NO_COLL_CHECK"
	// EnvNoOffload, -no-offload: "1" runs collectives without the NIC's
	// synchronisation network and multicast.
	EnvNoOffload = "MARTINI_NO_OFFLOAD"
	// EnvSendPath, -send-path: how small messages travel, "botf" (the
	// default), "push" or "aotf".
	EnvSendPath = "MARTINI_SEND_PATH"
	// EnvEager, -eager: how eager messages and control records travel,
	// "rings" (the default), "pm" or "vp".
	EnvEager = "MARTINI_EAGER"
	// EnvPMRMA, -pm-rma: "1" turns PM/RHiNET's remote memory access on
	// (with EnvEager "pm"): messages above PMRMALimit go by a rendezvous
	// whose data PM's RMA moves, as MPICH-SCore does with it on.
	EnvPMRMA = "MARTINI_PM_RMA"
	// EnvVPQueue, -vp-queue: the record space in bytes of PM/RHiNET-VP's
	// receive queue (with EnvEager "vp"), a power of two; the thesis
	// gives no size, so it is a parameter of the model to vary.
	EnvVPQueue = "MARTINI_VP_QUEUE"
	// EnvPMRing, -pm-ring: the record space in bytes of each of
	// PM/RHiNET's rings (with EnvEager "pm"), a power of two; the
	// thesis's testbed had 128 KB (8.3.2).
	EnvPMRing = "MARTINI_PM_RING"
	// EnvBind, -bind-to: "core" pins each rank to one CPU, rank modulo
	// the CPUs the job may use, as Open MPI's --bind-to core does, but
	// with the CPUs other programs are pinned to last (PlaceRanks); "none"
	// never pins. Unset, mpirun's ranks pin themselves when their host
	// runs two ranks or more that fill half its CPUs or more (Job.bindsToCore).
	EnvBind = "MARTINI_BIND"
	// EnvSpin: how many polls a waiting process spins before it starts
	// yielding its CPU, a non-negative number.
	EnvSpin = "MARTINI_SPIN"
	// EnvYield: how many polls a waiting process yields its CPU at
	// before it sleeps on its doorbell, a non-negative number.
	EnvYield = "MARTINI_YIELD"
	// EnvTransport, -transport: the network between the ranks, "auto"
	// (the default), "martini" or "tcp".
	EnvTransport = "MARTINI_TRANSPORT"
	// EnvTCPTimeout, -tcp-timeout: how long a TCP connection between
	// ranks may stall (its peer's host acknowledging nothing) before the
	// job fails, a positive duration ("20s"; see package llc/tcp).
	EnvTCPTimeout = "MARTINI_TCP_TIMEOUT"
	// EnvTCPSendBuffer, -tcp-sndbuf: the send buffer each TCP connection
	// between ranks asks for (SO_SNDBUF, which the kernel doubles), a
	// non-negative number of bytes; 0 leaves it to the kernel's
	// autotuning. Unset, half the host's L2 cache (see package llc/tcp).
	EnvTCPSendBuffer = "MARTINI_TCP_SNDBUF"
	// EnvTune, -tune: the host class whose thresholds the job takes,
	// "intel", "amd" or "generic", optionally followed by ":CPUS"
	// ("intel:8"); unset, the host's own (see package tuning).
	EnvTune = "MARTINI_TUNE"
	// EnvRunAhead, -run-ahead: "on" lets broadcasts, scatters and
	// data-word reductions and gathers to a root return before their
	// argument check settles, "off" never; unset, package tuning decides
	// by the processes per CPU.
	EnvRunAhead = "MARTINI_RUN_AHEAD"
)

// Networks, the values of Settings.Transport.
const (
	// TransportAuto: martini between ranks that share a segment, tcp
	// between the others.
	TransportAuto = "auto"
	// TransportMartini: the emulated Martini NIC in shared memory.
	TransportMartini = "martini"
	// TransportTCP: TCP sockets between every pair of ranks.
	TransportTCP = "tcp"
)

// Send paths, the values of Settings.SendPath.
const (
	SendBOTF = "botf"
	SendPush = "push"
	SendAOTF = "aotf"
)

// Bindings, the values of Settings.Bind.
const (
	BindNone = "none" // the scheduler places the ranks
	BindCore = "core" // each rank on one CPU
)

// Eager transports, the values of Settings.Eager.
const (
	// EagerRings: a ring per sender, connected on first contact (the
	// default).
	EagerRings = "rings"
	// EagerPM: PM/RHiNET: a ring per sender, all connected at start,
	// records 2 KB aligned.
	EagerPM = "pm"
	// EagerVP: PM/RHiNET-VP: one receive queue per process (VPUSH) for
	// all senders.
	EagerVP = "vp"
)

// PMRMALimit is the eager limit of PM/RHiNET with its remote memory access
// on (Settings.PMRMA): MPICH-SCore switches from eager to a rendezvous
// above 16 KB (thesis 8.5, Fig 8.9's "Zerocopy").
const PMRMALimit = 16 << 10

// Rendezvous protocols, the values of Settings.Rndv.
const (
	RndvPull  = "pull"
	RndvPush  = "push"
	RndvSplit = "split"
)

// Settings are the tuning settings of a job. The zero value of each field
// other than EagerLimit, Spin and Yield means "not set: use the library
// default"; those three are negative when not set. Use DefaultSettings for
// a Settings with nothing set.
type Settings struct {
	// EagerLimit is the largest message sent eagerly, in bytes; negative
	// when not set.
	EagerLimit int
	// Rndv is the rendezvous protocol, RndvPull, RndvPush or RndvSplit; "" when not set.
	Rndv string
	// NoCMA forces the bounce-buffer path instead of cross-memory attach.
	NoCMA bool
	// NoHugePages keeps the memory of cross-memory copies from being
	// collapsed into transparent huge pages.
	NoHugePages bool
	// NoSharedLines sends every small record through the rings, none
	// through the pairs' shared lines.
	NoSharedLines bool
	// Stats asks every rank to print its statistics at Finalize.
	Stats bool
	// Coll forces collective algorithms ("allreduce=ring,bcast=binomial");
	// "" when not set.
	Coll string
	// NoCollCheck skips the argument comparison of collectives.
	NoCollCheck bool
	// NoOffload runs collectives in software only.
	NoOffload bool
	// SendPath is how small messages travel, SendBOTF, SendPush or
	// SendAOTF; "" when not set.
	SendPath string
	// Eager is the eager transport, EagerRings, EagerPM or EagerVP; ""
	// when not set.
	Eager string
	// PMRMA turns PM/RHiNET's remote memory access on (Eager EagerPM
	// only; EnvPMRMA).
	PMRMA bool
	// VPQueue is the record space of PM/RHiNET-VP's receive queue in
	// bytes (Eager EagerVP only; EnvVPQueue); 0 when not set.
	VPQueue int
	// PMRing is the record space of each of PM/RHiNET's rings in bytes
	// (Eager EagerPM only; EnvPMRing); 0 when not set.
	PMRing int
	// Bind is how ranks are placed on CPUs, BindNone or BindCore; "" when
	// not set (then core when a host's ranks outnumber its CPUs).
	Bind string
	// Spin is how many polls a waiting process spins before it yields;
	// negative when not set.
	Spin int
	// Yield is how many polls a waiting process yields before it sleeps;
	// negative when not set.
	Yield int
	// Transport is the network, TransportAuto, TransportMartini or
	// TransportTCP; "" when not set.
	Transport string
	// TCPTimeout bounds a stall of a TCP connection between ranks; 0
	// when not set.
	TCPTimeout time.Duration
	// TCPSendBuffer is the send buffer of a TCP connection between
	// ranks, in bytes (0: the kernel's autotuning); negative when not set.
	TCPSendBuffer int
	// Tune names the host class whose thresholds the job takes
	// ("intel", "amd:4"; package tuning checks it); "" when not set.
	Tune string
	// RunAhead is RunAheadOn or RunAheadOff; "" when not set.
	RunAhead string
}

// Values of Settings.RunAhead.
const (
	RunAheadOn  = "on"
	RunAheadOff = "off"
)

// DefaultSettings returns Settings with nothing set.
func DefaultSettings() Settings {
	return Settings{EagerLimit: -1, Spin: -1, Yield: -1, TCPSendBuffer: -1}
}

// ParseSettings reads the settings from the environment through getenv
// (os.Getenv, usually). Unset or empty variables leave the default.
func ParseSettings(getenv func(string) string) (Settings, error) {
	s := DefaultSettings()
	if err := s.parseMessaging(getenv); err != nil {
		return s, err
	}
	if err := s.parseCollectives(getenv); err != nil {
		return s, err
	}
	if err := s.parseEager(getenv); err != nil {
		return s, err
	}
	if err := s.parseNetwork(getenv); err != nil {
		return s, err
	}
	if err := s.parseCPUSharing(getenv); err != nil {
		return s, err
	}
	return s, nil
}

// parseMessaging reads the settings of point-to-point messages and of
// their waits: eager limit, spin and yield counts, rendezvous, copy
// paths, and the statistics printed at Finalize.
func (s *Settings) parseMessaging(getenv func(string) string) error {
	var err error
	if s.EagerLimit, err = countVar(getenv, EnvEagerLimit, "bytes"); err != nil {
		return err
	}
	if s.Spin, err = countVar(getenv, EnvSpin, "polls"); err != nil {
		return err
	}
	if s.Yield, err = countVar(getenv, EnvYield, "polls"); err != nil {
		return err
	}
	if s.Rndv, err = choiceVar(getenv, EnvRndv, RndvPull, RndvPush, RndvSplit); err != nil {
		return err
	}
	if s.NoCMA, err = boolVar(getenv, EnvNoCMA); err != nil {
		return err
	}
	if s.NoHugePages, err = boolVar(getenv, EnvNoHugePages); err != nil {
		return err
	}
	if s.NoSharedLines, err = boolVar(getenv, EnvNoSharedLines); err != nil {
		return err
	}
	s.Stats, err = boolVar(getenv, EnvStats)
	return err
}

// parseCollectives reads the collectives' settings (forced algorithms,
// argument check, offload) and the host class whose thresholds the job
// takes, which package tuning checks.
func (s *Settings) parseCollectives(getenv func(string) string) error {
	s.Coll = getenv(EnvColl)
	s.Tune = getenv(EnvTune)
	var err error
	if s.NoCollCheck, err = boolVar(getenv, EnvNoCollCheck); err != nil {
		return err
	}
	s.NoOffload, err = boolVar(getenv, EnvNoOffload)
	return err
}

// parseEager reads how small and eager messages travel, and the options
// of the PM layers, which only their own eager transport accepts.
func (s *Settings) parseEager(getenv func(string) string) error {
	var err error
	if s.SendPath, err = choiceVar(getenv, EnvSendPath, SendBOTF, SendPush, SendAOTF); err != nil {
		return err
	}
	if s.Eager, err = choiceVar(getenv, EnvEager, EagerRings, EagerPM, EagerVP); err != nil {
		return err
	}
	if s.PMRMA, err = boolVar(getenv, EnvPMRMA); err != nil {
		return err
	}
	if s.PMRMA && s.Eager != EagerPM {
		return fmt.Errorf("launch: %s=1: needs %s=%s (PM/RHiNET's remote memory access)", EnvPMRMA, EnvEager, EagerPM)
	}
	if s.VPQueue, err = bufferVar(getenv, EnvVPQueue, s.Eager, EagerVP, "PM/RHiNET-VP's receive queue"); err != nil {
		return err
	}
	s.PMRing, err = bufferVar(getenv, EnvPMRing, s.Eager, EagerPM, "PM/RHiNET's rings")
	return err
}

// parseNetwork reads the network between the ranks and the options of
// its TCP connections.
func (s *Settings) parseNetwork(getenv func(string) string) error {
	var err error
	if s.Transport, err = choiceVar(getenv, EnvTransport, TransportAuto, TransportMartini, TransportTCP); err != nil {
		return err
	}
	if v := getenv(EnvTCPTimeout); v != "" {
		if s.TCPTimeout, err = time.ParseDuration(v); err != nil || s.TCPTimeout <= 0 {
			return fmt.Errorf("launch: %s=%q: want a positive duration, such as 20s", EnvTCPTimeout, v)
		}
	}
	s.TCPSendBuffer, err = countVar(getenv, EnvTCPSendBuffer, "bytes")
	return err
}

// parseCPUSharing reads the settings that decide how the ranks share
// their CPUs: whether collectives run ahead of their checks, and whether
// each rank is pinned to a CPU.
func (s *Settings) parseCPUSharing(getenv func(string) string) error {
	var err error
	if s.RunAhead, err = choiceVar(getenv, EnvRunAhead, RunAheadOn, RunAheadOff); err != nil {
		return err
	}
	s.Bind, err = choiceVar(getenv, EnvBind, BindNone, BindCore)
	return err
}

// choiceVar parses a variable that holds one of values; it returns ""
// when the variable is unset or empty. The error lists the values, so
// that a misspelt one is easy to correct.
func choiceVar(getenv func(string) string, name string, values ...string) (string, error) {
	v := getenv(name)
	if v == "" || slices.Contains(values, v) {
		return v, nil
	}
	quoted := make([]string, len(values))
	for i, w := range values {
		quoted[i] = fmt.Sprintf("%q", w)
	}
	last := len(quoted) - 1
	return "", fmt.Errorf("launch: %s=%q: want %s or %s", name, v, strings.Join(quoted[:last], ", "), quoted[last])
}

// countVar parses a variable that holds a non-negative count of unit; it
// returns -1 when the variable is unset or empty.
func countVar(getenv func(string) string, name, unit string) (int, error) {
	v := getenv(name)
	if v == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return -1, fmt.Errorf("launch: %s=%q: want a non-negative number of %s", name, v, unit)
	}
	return n, nil
}

// bufferVar reads the size of a PM layer's receive buffers, name: a
// power of two of bytes, only with the eager transport layer (what names
// the buffers in the error); 0 when unset.
func bufferVar(getenv func(string) string, name, eager, layer, what string) (int, error) {
	n, err := countVar(getenv, name, "bytes")
	switch {
	case err != nil || n < 0:
		return 0, err
	case n == 0 || n&(n-1) != 0:
		return 0, fmt.Errorf("launch: %s=%d: want a power of two of bytes", name, n)
	case eager != layer:
		return 0, fmt.Errorf("launch: %s=%d: needs %s=%s (%s)", name, n, EnvEager, layer, what)
	}
	return n, nil
}

// boolVar reads the switch name (1 or 0, as strconv.ParseBool takes
// them); unset is false.
func boolVar(getenv func(string) string, name string) (bool, error) {
	v := getenv(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("launch: %s=%q: want 1 or 0", name, v)
	}
	return b, nil
}

// Env returns the settings that are set as environment entries
// ("NAME=value"), the form in which mpirun forwards them.
func (s Settings) Env() []string {
	var env []string
	for _, v := range s.envVars() {
		if v.set {
			env = append(env, v.name+"="+v.value)
		}
	}
	return env
}

// envVar is one setting as an environment entry: its variable, its value
// there, and whether it is set (a setting not set is not forwarded, so
// that the rank takes the library default).
type envVar struct {
	name, value string
	set         bool
}

// envVars lists every setting as an environment entry, in the order in
// which Env forwards them.
func (s Settings) envVars() []envVar {
	return []envVar{
		{EnvEagerLimit, strconv.Itoa(s.EagerLimit), s.EagerLimit >= 0},
		{EnvRndv, s.Rndv, s.Rndv != ""},
		{EnvNoCMA, "1", s.NoCMA},
		{EnvNoHugePages, "1", s.NoHugePages},
		{EnvNoSharedLines, "1", s.NoSharedLines},
		{EnvStats, "1", s.Stats},
		{EnvColl, s.Coll, s.Coll != ""},
		{EnvTune, s.Tune, s.Tune != ""},
		{EnvNoCollCheck, "1", s.NoCollCheck},
		{EnvNoOffload, "1", s.NoOffload},
		{EnvSendPath, s.SendPath, s.SendPath != ""},
		{EnvEager, s.Eager, s.Eager != ""},
		{EnvPMRMA, "1", s.PMRMA},
		{EnvVPQueue, strconv.Itoa(s.VPQueue), s.VPQueue > 0},
		{EnvPMRing, strconv.Itoa(s.PMRing), s.PMRing > 0},
		{EnvBind, s.Bind, s.Bind != ""},
		{EnvSpin, strconv.Itoa(s.Spin), s.Spin >= 0},
		{EnvYield, strconv.Itoa(s.Yield), s.Yield >= 0},
		{EnvTransport, s.Transport, s.Transport != ""},
		{EnvTCPTimeout, s.TCPTimeout.String(), s.TCPTimeout > 0},
		{EnvTCPSendBuffer, strconv.Itoa(s.TCPSendBuffer), s.TCPSendBuffer >= 0},
		{EnvRunAhead, s.RunAhead, s.RunAhead != ""},
	}
}
