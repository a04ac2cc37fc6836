package pmi

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"golang.org/x/sys/unix"
)

// Names of the environment variables that PMI launchers set for the
// processes they start, and of the one that chooses the protocol.
const (
	EnvFD    = "PMI_FD"    // the descriptor of the connection to the server
	EnvRank  = "PMI_RANK"  // the process's rank
	EnvSize  = "PMI_SIZE"  // the number of processes
	EnvJobID = "PMI_JOBID" // the job (Slurm's mpi/pmi2 sets it, Hydra does not)
	// EnvPort and EnvID replace PMI_FD, PMI_RANK and PMI_SIZE when the
	// launcher's server listens on a TCP port (mpiexec.hydra -pmi-port):
	// "host:port" to connect to, and the id the process introduces
	// itself with.
	EnvPort = "PMI_PORT"
	EnvID   = "PMI_ID"
	// EnvVersion, "1" or "2", forces PMI-1 or PMI-2 instead of the choice
	// FromEnv makes.
	EnvVersion = "MARTINI_PMI"
	// EnvInitTimeout bounds the wait in the first fence, in MPI's Init,
	// for the job's other processes (Options.InitTimeout): a duration
	// such as "90s" or "10m", or "0" for no bound. Unset, it is
	// DefaultInitTimeout.
	EnvInitTimeout = "MARTINI_PMI_INIT_TIMEOUT"
)

// Job is what a process learns from its PMI launcher.
type Job struct {
	Rank    int // the process's rank
	Size    int // the number of processes
	Version int // the protocol: 1 or 2
	// Store is the connection to the launcher's PMI server, which the
	// Job owns.
	Store *Client
}

// owned holds the descriptors that clients made by FromEnv own, until
// they are closed.
var owned struct {
	sync.Mutex
	fds map[int]bool
}

// own marks fd as owned; false if it already is.
func own(fd int) bool {
	owned.Lock()
	defer owned.Unlock()
	if owned.fds[fd] {
		return false
	}
	if owned.fds == nil {
		owned.fds = make(map[int]bool)
	}
	owned.fds[fd] = true
	return true
}

func disown(fd int) {
	owned.Lock()
	delete(owned.fds, fd)
	owned.Unlock()
}

// FromEnv connects to the PMI server of the launcher that started this
// process, through the descriptor named by PMI_FD, with the rank and size
// of PMI_RANK and PMI_SIZE, and returns the job once the server has
// answered the initialization. The Job's Store owns the descriptor: a
// second FromEnv fails while that Store is open. Errors name the
// offending variable.
//
// The protocol is MARTINI_PMI's when set. Otherwise it is PMI-2 when
// PMI_JOBID is set and PMI-1 when not: Slurm's mpi/pmi2 plugin sets
// PMI_JOBID (and its PMI-2 fullinit requires the job id) while Hydra sets
// none; Hydra speaks both protocols, and PMI-1 is the protocol every
// PMI_FD launcher speaks (RFC 13: Hydra, Flux, Slurm's plugin too).
//
// Without PMI_FD, it connects to PMI_PORT instead ("host:port", the host
// a name of /etc/hosts, this host's name or an IP address), introduces the
// process as PMI_ID and takes the rank and size from the server.
func FromEnv(getenv func(string) string) (*Job, error) {
	if getenv(EnvFD) == "" && getenv(EnvPort) != "" {
		return fromPort(getenv)
	}
	fd, opts, err := parseEnv(getenv)
	if err != nil {
		return nil, err
	}
	if !own(fd) {
		return nil, fmt.Errorf("pmi: %s=%d: already taken over by an earlier FromEnv, whose Store is open", EnvFD, fd)
	}
	f, err := fdConn(fd)
	if err != nil {
		disown(fd)
		return nil, err
	}
	c, err := Open(f, opts)
	if err != nil {
		disown(fd)
		return nil, fmt.Errorf("pmi: %s=%d: %w", EnvFD, fd, err)
	}
	c.onClose = func() { disown(fd) }
	return &Job{Rank: c.Rank(), Size: c.Size(), Version: c.Version(), Store: c}, nil
}

// fromPort is FromEnv for a server that listens on PMI_PORT.
func fromPort(getenv func(string) string) (*Job, error) {
	addr, opts, err := parsePortEnv(getenv)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = datastore.DefaultTimeout
	}
	f, err := dialPort(addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("pmi: %s=%s: %w", EnvPort, addr, err)
	}
	c, err := Open(f, opts)
	if err != nil {
		return nil, fmt.Errorf("pmi: %s=%s %s=%d: %w", EnvPort, addr, EnvID, opts.ID, err)
	}
	return &Job{Rank: c.Rank(), Size: c.Size(), Version: c.Version(), Store: c}, nil
}

// parsePortEnv reads and checks the variables of a server that listens on
// PMI_PORT.
func parsePortEnv(getenv func(string) string) (addr string, opts Options, err error) {
	addr = getenv(EnvPort)
	host, port, ok := splitHostPort(addr)
	if n, err := strconv.Atoi(port); !ok || host == "" || err != nil || n < 1 || n > 65535 {
		return "", Options{}, fmt.Errorf("pmi: %s=%q: want host:port", EnvPort, addr)
	}
	if opts.ID, err = intEnv(getenv, EnvID); err != nil {
		return "", Options{}, fmt.Errorf("%w (%s is set)", err, EnvPort)
	}
	if opts.ID < 0 {
		return "", Options{}, fmt.Errorf("pmi: %s=%d: negative", EnvID, opts.ID)
	}
	opts.Port = true
	if opts.InitTimeout, err = initTimeout(getenv); err != nil {
		return "", Options{}, err
	}
	opts.JobID = getenv(EnvJobID)
	if opts.Version, err = version(getenv, opts.JobID); err != nil {
		return "", Options{}, err
	}
	return addr, opts, nil
}

// initTimeout returns the Options' InitTimeout that MARTINI_PMI_INIT_TIMEOUT
// asks for: 0 (the default) when unset, negative (no bound) for "0".
func initTimeout(getenv func(string) string) (time.Duration, error) {
	s := getenv(EnvInitTimeout)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("pmi: %s=%q: want a duration such as 90s or 10m, or 0 for no bound", EnvInitTimeout, s)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

// version returns the protocol that MARTINI_PMI, else the job id, chooses.
func version(getenv func(string) string, jobID string) (int, error) {
	switch v := getenv(EnvVersion); v {
	case "1", "2":
		return int(v[0] - '0'), nil
	case "":
		if jobID != "" {
			return 2, nil
		}
		return 1, nil
	default:
		return 0, fmt.Errorf("pmi: %s=%q: want 1 (PMI-1) or 2 (PMI-2)", EnvVersion, v)
	}
}

// parseEnv reads and checks the launcher's variables.
func parseEnv(getenv func(string) string) (fd int, opts Options, err error) {
	if fd, err = intEnv(getenv, EnvFD); err != nil {
		return 0, Options{}, err
	}
	if fd <= 2 {
		return 0, Options{}, fmt.Errorf("pmi: %s=%d: a standard stream, not a connection to a PMI server", EnvFD, fd)
	}
	if opts.Size, err = intEnv(getenv, EnvSize); err != nil {
		return 0, Options{}, err
	}
	if opts.Size < 1 {
		return 0, Options{}, fmt.Errorf("pmi: %s=%d: need at least 1 process", EnvSize, opts.Size)
	}
	if opts.Rank, err = intEnv(getenv, EnvRank); err != nil {
		return 0, Options{}, err
	}
	if opts.Rank < 0 || opts.Rank >= opts.Size {
		return 0, Options{}, fmt.Errorf("pmi: %s=%d: out of range for %s=%d", EnvRank, opts.Rank, EnvSize, opts.Size)
	}
	if opts.InitTimeout, err = initTimeout(getenv); err != nil {
		return 0, Options{}, err
	}
	opts.JobID = getenv(EnvJobID)
	if opts.Version, err = version(getenv, opts.JobID); err != nil {
		return 0, Options{}, err
	}
	return fd, opts, nil
}

func intEnv(getenv func(string) string, name string) (int, error) {
	s := getenv(name)
	if s == "" {
		return 0, fmt.Errorf("pmi: %s is not set", name)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("pmi: %s=%q: not an integer", name, s)
	}
	return n, nil
}

// fdConn takes over the inherited descriptor fd, which must be an open
// stream socket. It goes through os rather than net (net.FileConn), so
// that a program that imports the package links no cgo.
func fdConn(fd int) (*os.File, error) {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return nil, fmt.Errorf("pmi: %s=%d: %w", EnvFD, fd, err)
	}
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || typ != unix.SOCK_STREAM {
		if err == nil {
			err = fmt.Errorf("socket type %d", typ)
		}
		return nil, fmt.Errorf("pmi: %s=%d: not a stream socket: %w", EnvFD, fd, err)
	}
	// Not for programs this one may start; non-blocking, so that the
	// runtime's poller serves it (deadlines, a Close that ends a Read).
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		return nil, fmt.Errorf("pmi: %s=%d: %w", EnvFD, fd, err)
	}
	return os.NewFile(uintptr(fd), "pmi"), nil
}

// Variables by which launchers that this package cannot serve show
// themselves: PMIx servers (Open MPI's mpirun and prterun, srun
// --mpi=pmix) set the first ones; the others are PMI's, meaningless
// without PMI_FD or PMI_PORT.
var foreign = []struct{ name, what string }{
	{"PMIX_RANK", "a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix)"},
	{"PMIX_NAMESPACE", "a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix)"},
	{"PMIX_VERSION", "a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix)"},
	{"PRTE_LAUNCHED", "a PMIx launcher (prterun)"},
	{EnvRank, "a PMI launcher, but neither " + EnvFD + " nor " + EnvPort + " says how to reach its server"},
	{EnvSize, "a PMI launcher, but neither " + EnvFD + " nor " + EnvPort + " says how to reach its server"},
	{EnvID, "a PMI launcher, but neither " + EnvFD + " nor " + EnvPort + " says how to reach its server"},
}

// Launched reports whether a PMI launcher that FromEnv serves started
// this process: PMI_FD or PMI_PORT is set. Without them, it fails, naming
// the variable, where the environment shows a launcher that the package
// cannot serve: PMIx's variables, or PMI's rank, size or id without a way
// to the server. Such a process must not run as a job of its own, as
// each of the job's processes would. With none of them, no launcher
// started the process.
func Launched(getenv func(string) string) (bool, error) {
	if getenv(EnvFD) != "" || getenv(EnvPort) != "" {
		return true, nil
	}
	for _, v := range foreign {
		if s := getenv(v.name); s != "" {
			return false, fmt.Errorf("pmi: %s=%s: started by %s; this runtime speaks PMI-1 and PMI-2 over %s or %s (mpiexec.hydra, srun --mpi=pmi2) and its own mpirun", v.name, s, v.what, EnvFD, EnvPort)
		}
	}
	return false, nil
}
