// Package launch is the rank side of the contract between mpirun and the
// processes it starts: it reads the job description that mpirun leaves in
// the environment and in inherited file descriptors, takes over the job's
// shared segment (which the network's translator maps) and opens the data
// store.
//
// mpirun sets, for every rank:
//
//	MARTINI_RANK        the rank, 0 <= rank < size
//	MARTINI_SIZE        the number of ranks
//	MARTINI_PGID        the job key, in hexadecimal
//	MARTINI_SEGMENT_FD  the descriptor of the segment memfd (3)
//	MARTINI_STORE_FD    the descriptor of the data-store socket (4)
//
// For a job whose ranks open no NIC (mpirun -transport tcp) mpirun makes
// no segment: MARTINI_SEGMENT_FD is unset and the data-store socket is
// descriptor 3.
//
// and forwards its tuning flags as the settings MARTINI_EAGER_LIMIT,
// MARTINI_RNDV, MARTINI_NO_CMA, MARTINI_STATS and the others of Settings,
// which also holds MARTINI_SPIN and MARTINI_YIELD (set in the environment
// only). A bad value of any of them is an error of FromEnv naming it.
//
// A rank of an mpirun job records how far it got with MPI in the data
// store (Job.SetState, RankState), where mpirun reads it once the rank has
// exited, whatever network the rank used.
//
// For a job across hosts (mpirun -hosts or -hostfile), mpirun's agent on
// each host sets MARTINI_STORE_ADDR and MARTINI_JOB_KEY instead of
// MARTINI_STORE_FD: the rank dials the data store over TCP and proves the
// job's key (see DialStore). It also sets MARTINI_LOCAL_RANK,
// MARTINI_LOCAL_SIZE, MARTINI_HOST and MARTINI_TCP_ADDR (see Job).
//
// A program started by a PMI launcher instead (MARTINI_RANK unset, PMI_FD
// or PMI_PORT set: MPICH's mpiexec.hydra, with -pmi-port too, Slurm's srun
// --mpi=pmi2) takes its rank, size and data store from the launcher's PMI
// server (pmi.go); no segment is passed: the processes learn which of
// them share a host through the data store, and the first of each host
// makes its segment (pmihosts.go). A program that finds the
// variables of a launcher it cannot serve (PMIx's, or PMI's without
// PMI_FD or PMI_PORT) fails, naming the variable. A program started by
// none becomes a singleton job of one rank with a data store of its own,
// like MPI singleton initialization; its network makes a segment of its
// own.
package launch

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/pmi"
	"golang.org/x/sys/unix"
)

// Names of the environment variables that mpirun sets for its ranks.
const (
	EnvRank      = "MARTINI_RANK"
	EnvSize      = "MARTINI_SIZE"
	EnvPGID      = "MARTINI_PGID"
	EnvSegmentFD = "MARTINI_SEGMENT_FD"
	EnvStoreFD   = "MARTINI_STORE_FD"
)

// The descriptors at which mpirun passes the segment and the data-store
// socket (the first two of exec.Cmd.ExtraFiles).
const (
	SegmentFD = 3
	StoreFD   = 4
)

// Job is the job a process takes part in, as a rank.
type Job struct {
	Rank int    // this process's rank
	Size int    // number of ranks
	PGID uint64 // job key

	// Segment is the job's shared segment as mpirun passes it, or as the
	// host's first process of a PMI job made it (ShareSegment): a memfd,
	// not yet mapped, close-on-exec, for the network's translator to map
	// and own; nil for a singleton, and for a job that opens no NIC.
	Segment *os.File
	// Store is the job's management data store.
	Store datastore.Store
	// Singleton is true when the process was started without mpirun.
	Singleton bool
	// Launcher is what started the process: LauncherMpirun,
	// LauncherPMI1, LauncherPMI2 or LauncherSingleton.
	Launcher string
	// Settings are the tuning settings forwarded by mpirun.
	Settings Settings

	// Host is the name of the process's host as mpirun was given it
	// (-hosts, -hostfile); "" for a job on one host.
	Host string
	// LocalRank is the process's index among the ranks of its host, and
	// in its host's segment; Rank for a job on one host.
	LocalRank int
	// LocalSize is the number of ranks on the process's host, the
	// processes of its segment; Size for a job on one host.
	LocalSize int
	// TCPAddr is the IP address on which the process's TCP network
	// listens: its host's address on the network that joins the hosts
	// (mpirun -if); "127.0.0.1" for a job on one host.
	TCPAddr string

	// hostProcs are the processes of this process's host, by LocalRank,
	// in a PMI job of several processes (placeOnHosts); nil otherwise.
	hostProcs []hostProc
	// hostFirst is the rank of the first process of this process's host
	// in a PMI job of several processes.
	hostFirst int
	// states are the rank states of this process's host in a PMI job
	// whose processes share their host's segment (ShareSegment); nil
	// otherwise.
	states *hostState
}

// inherited is set once FromEnv has taken over the inherited descriptors.
var inherited atomic.Bool

// FromEnv returns the job described by the environment set by mpirun,
// attaching to the inherited segment and data-store socket, which the Job
// then owns. Without MARTINI_RANK it returns a singleton job (rank 0 of 1)
// with a segment of its own and a datastore.Local. Errors name the offending
// variable.
//
// Outside singleton mode FromEnv can succeed only once per process: the
// inherited descriptors are consumed by the first call.
//
// It pins the process to a CPU where mpirun asks (bindsToCore): the one
// its local rank takes in the order mpirun chose (EnvCPUs), which
// Job.SettleBinding completes later for threads still starting; and,
// unless the GOMAXPROCS environment variable is set, lowers GOMAXPROCS to
// the process's share of its CPUs among its host's ranks
// (shareProcessors).
func FromEnv() (*Job, error) {
	if os.Getenv(EnvRank) != "" && !inherited.CompareAndSwap(false, true) {
		return nil, errors.New("launch: the inherited segment and data store were already taken by an earlier FromEnv")
	}
	j, err := fromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	if j.bindsToCore(allowedCPUs()) {
		order, err := parseCPUs(os.Getenv(EnvCPUs))
		if err == nil {
			err = bindToCore(j.LocalRank, order)
		}
		if err != nil {
			j.Close()
			return nil, err
		}
	}
	shareProcessors(j.LocalSize, os.Getenv)
	return j, nil
}

// bindsToCore reports whether the process of an mpirun job pins itself to
// one CPU, given how many the process may use: when -bind-to core asks,
// and by default when its host runs two ranks or more that fill at least
// half of its CPUs. With fewer ranks than CPUs but more than half, the
// scheduler, left alone, still wakes a rank onto a CPU another one runs
// on, and whole runs of small collectives took ten times as long and more
// as bound ones (docs/decisions.md, bindsToCore). With more ranks than
// CPUs, the scheduler, left alone, sometimes stacks three ranks
// of four on one of two CPUs while the ranks sleep and wake, and every
// exchange waits for them to take turns: unbound, some runs of NPB and
// of small collectives took twice as long as bound ones or more
// (docs/decisions.md, bindsToCore). With as
// many, it stacks two ranks on one CPU as well (a rank that slept, on its
// doorbell or in the start-up's exchanges, is woken onto a CPU another
// rank runs on) until its balancing moves one away, which may take many
// calls: each wait of one of the two for the other then lasts the
// waiter's whole spin before it yields: tens of times a call's time, for
// as long as the two stay stacked. Pinned by default with more ranks than
// CPUs, a process unpins itself when other programs crowd it off its CPU
// (UnpinsWhenCrowded).
func (j *Job) bindsToCore(cpus int) bool {
	if j.Singleton || j.Launcher != LauncherMpirun {
		return false
	}
	return pinsRanks(j.Settings.Bind, j.LocalSize, cpus)
}

// UnpinsWhenCrowded reports whether the process, which FromEnv pinned to
// a CPU, may unpin itself (Unpin) once other programs crowd it off that
// CPU (llc's crowd.go): where it was pinned by default (not by -bind-to
// core) and its host's ranks outnumber the CPUs they may use, so that
// they yield the CPU to each other. Where each has a CPU, a waiter spins
// rather than yields and keeps its share of the CPU beside such a
// program, and left unpinned did worse than pinned (docs/decisions.md,
// crowded processes).
func (j *Job) UnpinsWhenCrowded() bool {
	return j.Settings.Bind == "" && boundCPU.Load() >= 0 && j.LocalSize > allowedBefore.Count()
}

// fromEnv returns the job that the environment, read through getenv,
// describes: an mpirun rank's where MARTINI_RANK is set, else a PMI
// launcher's or a singleton's.
func fromEnv(getenv func(string) string) (*Job, error) {
	settings, err := ParseSettings(getenv)
	if err != nil {
		return nil, err
	}
	if getenv(EnvRank) == "" {
		return unmanagedJob(getenv, settings)
	}
	return mpirunJob(getenv, settings)
}

// unmanagedJob returns the job of a process that mpirun did not start:
// a PMI launcher's job where its variables say one started it, else a
// singleton, which warns when a launcher that speaks no PMI started
// others beside it (warnAlone).
func unmanagedJob(getenv func(string) string, settings Settings) (*Job, error) {
	launched, err := pmi.Launched(getenv)
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	if launched {
		return pmiJob(getenv, settings)
	}
	j, err := Singleton()
	if err != nil {
		return nil, err
	}
	j.Settings = settings
	warnAlone(getenv)
	return j, nil
}

// mpirunJob returns the job of a rank that mpirun started, taking over the
// segment and data-store socket it inherited. A failure to open the data
// store closes the segment, so that nothing inherited leaks.
func mpirunJob(getenv func(string) string, settings Settings) (*Job, error) {
	rank, size, pgid, err := rankVars(getenv)
	if err != nil {
		return nil, err
	}
	segFD := -1 // none: the ranks open no NIC (mpirun -transport tcp)
	if getenv(EnvSegmentFD) != "" {
		if segFD, err = fdVar(getenv, EnvSegmentFD); err != nil {
			return nil, err
		}
	}
	where, err := placementVars(getenv, rank, size)
	if err != nil {
		return nil, err
	}
	var seg *os.File
	if segFD >= 0 {
		seg = segmentFile(segFD)
	}
	conn, err := openStore(getenv, segFD, rank)
	if err != nil {
		if seg != nil {
			seg.Close()
		}
		return nil, err
	}
	return &Job{
		Rank:      rank,
		Size:      size,
		PGID:      pgid,
		Segment:   seg,
		Store:     datastore.NewClient(conn),
		Launcher:  LauncherMpirun,
		Settings:  settings,
		Host:      where.host,
		LocalRank: where.localRank,
		LocalSize: where.local,
		TCPAddr:   where.tcpAddr,
	}, nil
}

// rankVars reads who the rank is in its mpirun job: the job's size, the
// rank, and the job key, checking that the rank lies within the job.
func rankVars(getenv func(string) string) (rank, size int, pgid uint64, err error) {
	if size, err = intVar(getenv, EnvSize); err != nil {
		return 0, 0, 0, err
	}
	if size < 1 {
		return 0, 0, 0, fmt.Errorf("launch: %s=%d: need at least 1 rank", EnvSize, size)
	}
	if rank, err = intVar(getenv, EnvRank); err != nil {
		return 0, 0, 0, err
	}
	if rank < 0 || rank >= size {
		return 0, 0, 0, fmt.Errorf("launch: %s=%d: out of range for %s=%d", EnvRank, rank, EnvSize, size)
	}
	if pgid, err = pgidVar(getenv); err != nil {
		return 0, 0, 0, err
	}
	return rank, size, pgid, nil
}

// openStore opens the rank's connection to the data store: the socket it
// inherited, or with MARTINI_STORE_ADDR a connection over TCP.
func openStore(getenv func(string) string, segFD, rank int) (*os.File, error) {
	if getenv(EnvStoreAddr) != "" {
		return dialStoreEnv(getenv, rank)
	}
	storeFD, err := fdVar(getenv, EnvStoreFD)
	if err != nil {
		return nil, err
	}
	if segFD == storeFD {
		return nil, fmt.Errorf("launch: %s and %s are both %d", EnvSegmentFD, EnvStoreFD, segFD)
	}
	return storeConn(storeFD)
}

// Singleton returns a job of one rank that is not managed by mpirun: it has
// a random job key, no segment and a datastore.Local. Its Settings are the
// defaults.
func Singleton() (*Job, error) {
	return &Job{
		Rank:      0,
		Size:      1,
		PGID:      RandomPGID(),
		Store:     datastore.NewLocal(),
		Singleton: true,
		Launcher:  LauncherSingleton,
		Settings:  DefaultSettings(),
		LocalSize: 1,
		TCPAddr:   LoopbackAddr,
	}, nil
}

// RandomPGID returns a random, non-zero job key.
func RandomPGID() uint64 {
	var b [8]byte
	for {
		rand.Read(b[:])
		if k := binary.LittleEndian.Uint64(b[:]); k != 0 {
			return k
		}
	}
}

// FormatPGID formats a job key as mpirun passes it in MARTINI_PGID.
func FormatPGID(pgid uint64) string { return fmt.Sprintf("%016x", pgid) }

// Close releases the job's data store and segment.
func (j *Job) Close() error {
	var errs []error
	if j.Store != nil {
		if err := j.Store.Close(); err != nil {
			errs = append(errs, err)
		}
		j.Store = nil
	}
	if j.Segment != nil {
		if err := j.Segment.Close(); err != nil {
			errs = append(errs, err)
		}
		j.Segment = nil
	}
	if j.states != nil {
		if err := j.states.close(); err != nil {
			errs = append(errs, err)
		}
		j.states = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("launch: close job: %w", err)
	}
	return nil
}

func intVar(getenv func(string) string, name string) (int, error) {
	s := getenv(name)
	if s == "" {
		return 0, fmt.Errorf("launch: %s is not set although %s is", name, EnvRank)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("launch: %s=%q: not an integer", name, s)
	}
	return n, nil
}

func pgidVar(getenv func(string) string) (uint64, error) {
	s := getenv(EnvPGID)
	if s == "" {
		return 0, fmt.Errorf("launch: %s is not set although %s is", EnvPGID, EnvRank)
	}
	pgid, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("launch: %s=%q: not a 64-bit hexadecimal number", EnvPGID, s)
	}
	return pgid, nil
}

// fdVar parses a descriptor variable and checks that the descriptor is open.
func fdVar(getenv func(string) string, name string) (int, error) {
	fd, err := intVar(getenv, name)
	if err != nil {
		return 0, err
	}
	if fd <= 2 {
		return 0, fmt.Errorf("launch: %s=%d: not a descriptor mpirun passes (0-2 are the standard streams)", name, fd)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return 0, fmt.Errorf("launch: %s=%d: %w", name, fd, err)
	}
	return fd, nil
}

// segmentFile takes over the inherited segment descriptor, which programs
// this one may start do not inherit.
func segmentFile(fd int) *os.File {
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "martini-segment")
}

// storeConn takes over the inherited data-store socket. It goes through
// os rather than net (net.FileConn), so that a rank's program links no
// cgo: a static program starts in half the time.
func storeConn(fd int) (*os.File, error) {
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || typ != unix.SOCK_STREAM {
		if err == nil {
			err = fmt.Errorf("socket type %d", typ)
		}
		unix.Close(fd)
		return nil, fmt.Errorf("launch: %s=%d: not a data-store socket: %w", EnvStoreFD, fd, err)
	}
	// Not for programs this one may start; non-blocking, so that the
	// runtime's poller serves it (deadlines, a Close that ends a Read).
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("launch: %s=%d: %w", EnvStoreFD, fd, err)
	}
	return os.NewFile(uintptr(fd), "martini-store"), nil
}

// HostName returns the name of the process's host: the one mpirun -hosts
// gave, else the machine's.
func (j *Job) HostName() (string, error) {
	if j.Host != "" {
		return j.Host, nil
	}
	h, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("launch: the host's name: %w", err)
	}
	return h, nil
}
