package mpi

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/datastore"
)

// ErrDeadlock is wrapped by the error of a blocking call that can never
// complete in virtual time (mpirun -clock virtual): every process of the
// job waits and nothing is in flight towards any of them. The error names
// the call's pending operation; every process reports its own.
var ErrDeadlock = errors.New("mpi: deadlock: every process waits and nothing is in flight")

// ErrNeverComplete is wrapped by the error of a blocking receive or probe
// (or any other wait, once every other process is in Finalize) that can
// never complete: every process its message could come from is in
// Finalize, with nothing in flight towards this one.
var ErrNeverComplete = errors.New("can never complete")

// stallQuiet is how long a wait must have had nothing to do, and the
// processes it waits for must have been known to be in Finalize, before it
// is reported as one that can never complete: what they sent before they
// entered Finalize has arrived by then (a TCP stream's data is in flight
// while the notice travels through the data store).
const stallQuiet = time.Second

// finalizePrefix begins the data-store keys by which the processes that
// enter Finalize make it known (finalizeKey).
const finalizePrefix = "finalize/"

func finalizeKey(rank int) string { return finalizePrefix + strconv.Itoa(rank) }

// finalWatch is what a process knows of the others' Finalize: for each
// process, when this one learned that it is in Finalize (unix ns; 0: not
// known), and whether a watcher asks the data store about it.
type finalWatch struct {
	since   []atomic.Int64
	watched []atomic.Bool
}

func newFinalWatch(size int) *finalWatch {
	return &finalWatch{since: make([]atomic.Int64, size), watched: make([]atomic.Bool, size)}
}

// announceFinalize makes it known to the other processes that this one is
// in Finalize, with nothing more to send (Finalize calls it once the
// sends the program started have been issued). A failure is not this
// process's: it only leaves the others' unmatched receives unreported.
func (s *runtimeState) announceFinalize() {
	s.finalizing.Store(true)
	if s.job.Size > 1 && s.storeWaits() {
		s.store.Put(finalizeKey(s.job.Rank), "1")
	}
}

// storeWaits reports whether the data store is mpirun's, whose Get waits
// at the server until the key is put. A PMI server's (Hydra's, Slurm's) is
// asked again and again until it has the key, and shows it only after a
// fence: the watchers would load it for nothing, so that a process there
// does not watch the others' Finalize.
func (s *runtimeState) storeWaits() bool {
	_, ok := s.store.(*datastore.Client)
	return ok
}

// watch starts, once for rank, a goroutine that waits in the data store
// until rank is in Finalize, records it and wakes the process's waiters.
// It ends then, or when the store fails (closed at Finalize, or the job
// broken).
func (s *runtimeState) watch(rank int) {
	if !s.storeWaits() || s.finals.watched[rank].Swap(true) {
		return
	}
	go func() {
		for {
			_, err := s.store.Get(finalizeKey(rank))
			if err == nil {
				s.finals.since[rank].Store(time.Now().UnixNano())
				s.net.Wake()
				return
			}
			if !errors.Is(err, datastore.ErrTimeout) {
				return
			}
		}
	}()
}

// finalizedFor reports whether rank has been known to be in Finalize for
// stallQuiet by now (unix ns), starting its watcher if it is not yet
// watched.
func (s *runtimeState) finalizedFor(rank int, now int64) bool {
	s.watch(rank)
	t := s.finals.since[rank].Load()
	return t != 0 && now-t >= int64(stallQuiet)
}

// stalled is the endpoint's Stalled: a wait that has had nothing to do for
// stallQuiet fails if it can never complete. In virtual time, when every
// process waits with nothing in flight (ErrDeadlock); and, in any time,
// a receive or probe whose possible senders are all in Finalize, or any
// other wait once every other process is (ErrNeverComplete). The error is
// also written on standard error, as Finalize's for a stranded message.
func (s *runtimeState) stalled(st llc.Stall) error {
	if st.Quiet < stallQuiet || s.finalizing.Load() {
		return nil
	}
	err := s.deadlocked(st)
	if err == nil {
		err = s.unmatchable(st)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpi: %s\n", strings.TrimPrefix(err.Error(), "mpi: "))
	}
	return err
}

// deadlocked returns ErrDeadlock, naming what the wait is for, where the
// job runs in virtual time and every process waits with nothing in flight.
func (s *runtimeState) deadlocked(st llc.Stall) error {
	c, ok := s.ep.Clock().(interface{ Deadlocked() bool })
	if !ok || !c.Deadlocked() {
		return nil
	}
	own := fmt.Sprintf("rank %d waits in %s", s.job.Rank, describeStall(st))
	return fmt.Errorf("%w: %s", ErrDeadlock, s.gatherDeadlock(own))
}

// deadlockPrefix begins the data-store keys by which the processes of a
// deadlocked job publish what they wait for (gatherDeadlock).
const deadlockPrefix = "deadlock/"

// deadlockWait bounds how long a process that found the job deadlocked
// waits for the others to say what they wait for: each finds it within a
// sleep (500 ms) of the first, as none of them can act meanwhile.
const deadlockWait = 5 * time.Second

// gatherDeadlock publishes own, what this process waits for, collects what
// every other process of the deadlocked job published, for deadlockWait at
// most, and returns them all, in rank order; own alone where the store
// does not wait for keys (storeWaits).
func (s *runtimeState) gatherDeadlock(own string) string {
	size := s.job.Size
	if size == 1 || !s.storeWaits() {
		return own
	}
	s.store.Put(deadlockPrefix+strconv.Itoa(s.job.Rank), own)
	type answer struct {
		rank int
		what string
	}
	answers := make(chan answer, size) // a late answer does not block its goroutine
	for r := range size {
		if r != s.job.Rank {
			go func() {
				v, err := s.store.Get(deadlockPrefix + strconv.Itoa(r))
				if err != nil {
					v = fmt.Sprintf("rank %d: unknown (%v)", r, err)
				}
				answers <- answer{r, v}
			}()
		}
	}
	all := make([]string, size)
	all[s.job.Rank] = own
	timeout := time.NewTimer(deadlockWait)
	defer timeout.Stop()
	for n := 1; n < size; n++ {
		select {
		case a := <-answers:
			all[a.rank] = a.what
		case <-timeout.C:
			n = size
		}
	}
	for r, what := range all {
		if what == "" {
			all[r] = fmt.Sprintf("rank %d did not say what it waits for", r)
		}
	}
	return strings.Join(all, "; ")
}

// unmatchable returns ErrNeverComplete, naming what the wait is for,
// where every process that could end the wait is in Finalize: the one a
// receive or probe waits for, every other one for any source or any other
// wait.
func (s *runtimeState) unmatchable(st llc.Stall) error {
	now := time.Now().UnixNano()
	if (st.Kind == llc.StallRecv || st.Kind == llc.StallProbe) && st.Peer != AnySource && st.Peer != s.job.Rank {
		if !s.finalizedFor(st.Peer, now) {
			return nil
		}
		return fmt.Errorf("rank %d: %s %w: rank %d is in Finalize", s.job.Rank, describeStall(st), ErrNeverComplete, st.Peer)
	}
	if s.job.Size < 2 {
		return nil
	}
	for r := range s.job.Size {
		if r != s.job.Rank && !s.finalizedFor(r, now) {
			return nil
		}
	}
	return fmt.Errorf("rank %d: %s %w: every other process is in Finalize", s.job.Rank, describeStall(st), ErrNeverComplete)
}

// describeStall names what a stalled wait waits for; its processes are
// world ranks.
func describeStall(st llc.Stall) string {
	var what string
	switch st.Kind {
	case llc.StallRecv:
		what = "a receive"
	case llc.StallProbe:
		what = "a probe"
	case llc.StallSend:
		what = fmt.Sprintf("a send to rank %d", st.Peer)
	default:
		return "a wait"
	}
	if st.Kind != llc.StallSend {
		if st.Peer == AnySource {
			what += " from any source"
		} else {
			what += fmt.Sprintf(" from rank %d", st.Peer)
		}
	}
	if st.Tag == AnyTag {
		what += " with any tag"
	} else {
		what += fmt.Sprintf(" with tag %d", st.Tag)
	}
	if id := st.Ctx / 2; id == worldID {
		return what + " of MPI_COMM_WORLD"
	}
	return what + fmt.Sprintf(" of the communicator of context %d (ranks of MPI_COMM_WORLD)", st.Ctx/2)
}
