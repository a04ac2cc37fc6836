package launch

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/llc/datastore"
	"golang.org/x/sys/unix"
)

// The rank states of a host of a PMI job.
//
// A PMI launcher tells a process nothing of the others' ends, and some
// (srun without -K) leave a job running when one of its processes dies:
// its peers on other hosts see their TCP connections break, but those of
// its host would wait for it in shared memory forever. So the processes
// of a host share a small memory file of their RankStates (SetState
// stores each process's own), and each watches the others' pids: one that
// ends before it finalized ends the job, through the launcher's abort.

// hostProc is a process of this process's host in a PMI job.
type hostProc struct {
	rank int // its rank in the job
	pid  int // its pid
}

// abortExit is the exit status of a process that ends the job because
// another of its host left it (watchHost).
const abortExit = 1

// lostGrace is how long a process that saw another of its host end
// before it finalized leaves the launcher to end the job itself (Hydra
// does, and reports the death and the process's last output in its own
// words) before it asks for the end.
const lostGrace = time.Second

// hostState is the shared memory file of a host's rank states, one word
// a process by LocalRank. The mapping stays until the process exits, as
// the watcher may read it until then.
type hostState struct {
	file  *os.File
	words []uint32
}

// newHostState makes the rank states of n processes.
func newHostState(n int) (*hostState, error) {
	fd, err := unix.MemfdCreate("martini-host-states", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("launch: the host's rank states: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "martini-host-states")
	if err := f.Truncate(int64(4 * n)); err != nil {
		f.Close()
		return nil, fmt.Errorf("launch: the host's rank states: %w", err)
	}
	return mapHostState(f, n)
}

// mapHostState maps the rank states of n processes from f, which it then
// owns (and closes on failure).
func mapHostState(f *os.File, n int) (*hostState, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Size != int64(4*n) {
		f.Close()
		return nil, fmt.Errorf("launch: the host's rank states: %d bytes for %d processes (%v)", st.Size, n, err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, 4*n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("launch: map the host's rank states: %w", err)
	}
	return &hostState{file: f, words: unsafe.Slice((*uint32)(unsafe.Pointer(&mem[0])), n)}, nil
}

func (h *hostState) set(local int, s RankState) { atomic.StoreUint32(&h.words[local], uint32(s)) }

func (h *hostState) get(local int) RankState { return RankState(atomic.LoadUint32(&h.words[local])) }

// close closes the file; the mapping stays.
func (h *hostState) close() error { return h.file.Close() }

// watchHost starts watching the other processes of this host (see
// hostState).
func (j *Job) watchHost() error {
	var fds []unix.PollFd
	var locals []int
	for i, p := range j.hostProcs {
		if i == j.LocalRank {
			continue
		}
		fd, err := unix.PidfdOpen(p.pid, 0)
		if errors.Is(err, unix.ESRCH) {
			fd, err = -1, nil // gone already: polled as ended
		}
		if err != nil {
			closePidfds(fds)
			return fmt.Errorf("launch: watch rank %d (pid %d): %w", p.rank, p.pid, err)
		}
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		locals = append(locals, i)
	}
	go j.watch(j.Store, j.states, fds, locals)
	return nil
}

// watch waits until a process of fds (those of LocalRanks locals) ends
// before it finalized, and ends the job then through store; it returns
// once every one has ended, or this process has finalized.
func (j *Job) watch(store datastore.Store, states *hostState, fds []unix.PollFd, locals []int) {
	defer func() { closePidfds(fds) }()
	for len(fds) > 0 {
		if !slices.ContainsFunc(fds, func(p unix.PollFd) bool { return p.Fd < 0 }) {
			if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
		}
		if states.get(j.LocalRank) == RankFinalized {
			return
		}
		for i := len(fds) - 1; i >= 0; i-- {
			if fds[i].Fd >= 0 && fds[i].Revents == 0 {
				continue
			}
			if states.get(locals[i]) != RankFinalized {
				j.lost(store, j.hostProcs[locals[i]])
			}
			if fds[i].Fd >= 0 {
				unix.Close(int(fds[i].Fd))
			}
			fds, locals = slices.Delete(fds, i, i+1), slices.Delete(locals, i, i+1)
		}
	}
}

// lost ends the job, which process p left before it finalized.
func (j *Job) lost(store datastore.Store, p hostProc) {
	msg := fmt.Sprintf("rank %d (pid %d on host %s) ended without finalizing; rank %d ends the job", p.rank, p.pid, j.hostLabel(), j.Rank)
	fmt.Fprintln(os.Stderr, "mpi:", msg)
	time.Sleep(lostGrace)
	store.Abort(abortExit, msg)
	os.Exit(abortExit)
}

func closePidfds(fds []unix.PollFd) {
	for _, p := range fds {
		if p.Fd >= 0 {
			unix.Close(int(p.Fd))
		}
	}
}
