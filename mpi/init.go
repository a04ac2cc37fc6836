package mpi

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/internal/bootstrap"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/network"
	"github.com/rhinet-go/martini/tuning"
)

// Defaults of the point-to-point protocols. The eager limit and the
// rendezvous variant come from package tuning's table, unless mpirun
// -eager-limit and -rndv (MARTINI_EAGER_LIMIT, MARTINI_RNDV) say
// otherwise.
const (
	// DefaultRingSize is the record space of each eager ring.
	DefaultRingSize = tuning.DefaultRingSize
	// DefaultQueueSize is the record space of the receive queue of the
	// vp eager transport (mpirun -eager vp): 128 records of the largest
	// size.
	DefaultQueueSize = tuning.DefaultQueueSize
)

// runtimeState is the state of an initialized MPI process.
type runtimeState struct {
	job *launch.Job
	// queued counts the nonblocking collectives in the communicators'
	// queues (collqueue.go), not yet run; queueNonblocking lets them
	// queue, queueRooted the broadcasts, scatters, reductions and gathers
	// to a root alone (tuning.Waiting's QueueNonblocking and QueueRooted).
	queued           atomic.Int64
	queueNonblocking bool
	queueRooted      bool
	// gcFloor is the collector's floor (see gcfloor.go), nil where the
	// collector is tuned; dropped at Finalize.
	gcFloor []byte
	// net is the network the engine drives; offload is the networks'
	// synchronisation network when it reaches every process (the
	// collectives' barriers and multicast), else nil.
	net     network.Network
	offload network.Offload
	// closeNet closes the networks.
	closeNet func() error
	ep       *llc.Endpoint
	world    *Comm
	stats    bool
	// store is job.Store, kept here because job.Close clears that field
	// while Abort, which must not wait for stateMu, may still use it.
	store datastore.Store

	// Collective settings: compare arguments, forced algorithms, no NIC
	// offload; and what the collectives ran.
	collCheck bool
	// overlapLimit bounds the collectives that overlap their argument
	// check with their data (Runner.OverlapLimit, tuning.Waiting).
	overlapLimit int
	// modelled says the job runs under a timing profile (the Martini
	// model), whose recorded results the collectives' selection keeps.
	modelled bool
	// runAhead lets the user's broadcasts and scatters, and reductions
	// to a root of a data word, return before their argument check is
	// settled (collectives.RunAhead): where processes outnumber cores,
	// not under the timing model (docs/tuning.md, "Waiting").
	runAhead bool
	// wordBcastAhead lets the user's broadcasts of a data word alone
	// run ahead (tuning.Waiting.WordBcastAhead).
	wordBcastAhead bool
	// exchangeWhole marks the receives of the collectives' exchanges
	// llc.RecvOp.Whole: where processes outnumber cores, not under the
	// timing model (see commNet.Exchange).
	exchangeWhole bool
	// processors identifies, by world rank, the processor each process is
	// pinned to (readPlacement); nil when no two share one.
	processors []int
	// consume marks the reductions' receives llc.RecvOp.Consume
	// (tuning.Plan.ConsumeReads).
	consume bool
	// singleCopyMin is the smallest message of a collective's exchange
	// sent by rendezvous (tuning.Plan.SingleCopyMin); 0: none.
	singleCopyMin int
	// distinctSingleCopyMin is singleCopyMin for an exchange whose sends'
	// buffers differ (tuning.Plan.DistinctSingleCopyMin); 0:
	// singleCopyMin alone.
	distinctSingleCopyMin int
	// collEager is the largest message of a collective that asks for the
	// eager path (tuning.Plan.CollectiveEagerLimit) above the engine's
	// eager limit, eagerLimit; 0: none.
	collEager, eagerLimit int
	collForce             collectives.Selection
	softForce             collectives.Selection // collForce without the NIC algorithms
	noOffload             bool
	collStats             collectives.Stats

	// collTuning is what the host class decides in the collectives'
	// selection (tuning.Plan.Collectives).
	collTuning collectives.Tuning

	ctxMu   sync.Mutex
	ctxFree [numContextIDs / 64]uint64 // context ids not in use, as set bits
	// freedBusy are the communicators freed while something of theirs
	// was in flight, whose context ids go back once they are idle
	// (releaseIdle).
	freedBusy []*Comm

	// aheadMu guards ahead: the communicators whose calls may leave
	// their checks for later (see keepAhead) and that are not freed,
	// which Finalize settles.
	aheadMu sync.Mutex
	ahead   map[*Comm]struct{}

	// finals is what the process knows of the others' Finalize, and
	// finalizing says it is in Finalize itself (see stalled).
	finals     *finalWatch
	finalizing atomic.Bool
}

var (
	stateMu   sync.Mutex
	rt        *runtimeState // nil before Init and after Finalize
	finalized bool
	// current mirrors rt for lock-free checks on the message path.
	current atomic.Pointer[runtimeState]
	epoch   = time.Now()
)

// Init initializes MPI: it joins the job started by mpirun or a PMI
// launcher (or a job of one process when started without one), opens the
// networks the program registered (package llc/network; a program with
// none fails, naming the import to add), registers its bootstrap area and
// exchanges the bootstrap regions of all processes through the
// management data store.
func Init() error {
	stateMu.Lock()
	defer stateMu.Unlock()
	if rt != nil {
		return errors.New("mpi: Init called twice")
	}
	if finalized {
		return errors.New("mpi: Init called after Finalize")
	}
	s, err := initRuntime()
	if err != nil {
		return err
	}
	s.gcFloor = gcFloor(os.Getenv, s.job.LocalSize)
	rt = s
	current.Store(s)
	return nil
}

// initRuntime joins the job, opens its networks, starts the protocol
// engine on them and records the rank initialized. A failure closes the
// networks it opened and the job (abandonInit).
func initRuntime() (*runtimeState, error) {
	job, err := launch.FromEnv()
	if err != nil {
		return nil, fmt.Errorf("mpi: Init: %w", err)
	}
	var nets *network.Nets
	fail := func(err error) (*runtimeState, error) {
		return nil, abandonInit(job, nets, err)
	}
	force, err := collectives.ParseSelection(job.Settings.Coll)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", launch.EnvColl, err))
	}
	if err := job.SetState(launch.RankStarted); err != nil {
		return fail(err)
	}
	if nets, err = network.Open(job); err != nil {
		return fail(err)
	}
	clock := nets.VirtualClock()
	if clock != nil {
		// Virtual time: the process takes part in the ordering of
		// requests before the bootstrap's fence, so that every process
		// does before any issues a request.
		clock.Run()
	}
	s, err := startRuntime(job, nets, clock, force)
	if err != nil {
		return fail(err)
	}
	if err := s.completeInit(clock); err != nil {
		return fail(err)
	}
	return s, nil
}

// abandonInit ends an Init that failed with err after joining job: it
// closes the networks (nets, nil if none was opened) and the job, so that
// nothing of the failed Init stays open, and returns Init's error.
func abandonInit(job *launch.Job, nets *network.Nets, err error) error {
	err = fmt.Errorf("mpi: Init: %w", err)
	if job.Launcher == launch.LauncherPMI1 || job.Launcher == launch.LauncherPMI2 {
		// Hydra ends the job, killing every process, once one closes
		// its PMI connection (below) without finalizing: say why
		// first, or the caller may never get to.
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", job.Rank, err)
	}
	if nets != nil {
		nets.Close()
	}
	job.Close()
	return err
}

// startRuntime exchanges the processes' bootstrap regions over the opened
// networks, plans the protocols for the job and its host (package
// tuning), starts the engine, and returns the runtime's state around it.
func startRuntime(job *launch.Job, nets *network.Nets, clock llc.Clock, force collectives.Selection) (*runtimeState, error) {
	res, err := bootstrap.Exchange(job, nets)
	if err != nil {
		return nil, err
	}
	boot, worldOffload, processors := res.Boot, res.WorldBarrier, res.Processors
	tr := nets.Network()
	plan, err := tuning.For(tuning.Job{Rank: job.Rank, Size: job.Size, Boot: boot, Caps: nets.Caps(), QueuePeers: nets.QueuePeers(),
		Memory: nets.MemorySize() - llc.BootSize(job.Size), Settings: job.Settings, Host: tuning.Detected()})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", launch.EnvTune, err)
	}
	cfg := plan.Engine
	ep, err := startEndpoint(job, tr, cfg, clock)
	if err != nil {
		return nil, err
	}
	s := &runtimeState{job: job, net: tr, closeNet: nets.Close, ep: ep, stats: job.Settings.Stats, store: job.Store,
		collCheck: !job.Settings.NoCollCheck, noOffload: job.Settings.NoOffload, collForce: force,
		singleCopyMin: plan.SingleCopyMin, distinctSingleCopyMin: plan.DistinctSingleCopyMin,
		collEager: plan.CollectiveEagerLimit, eagerLimit: cfg.EagerLimit, collTuning: plan.Collectives,
		modelled: nets.Modelled(), consume: plan.ConsumeReads, processors: processors,
		offload: nets.Offload()}
	s.prepareCalls(plan.Waiting, force, worldOffload)
	return s, nil
}

// startEndpoint starts an engine for cfg on the network tr and returns its
// endpoint, once the engine's start-up commands are issued and, with the
// vp eager transport, every process has its receive queue.
func startEndpoint(job *launch.Job, tr network.Network, cfg llc.Config, clock llc.Clock) (*llc.Endpoint, error) {
	eng, err := llc.NewEngine(cfg)
	if err != nil {
		return nil, err
	}
	ep := llc.NewEndpoint(eng, tr)
	if cfg.Eager != llc.EagerRings || cfg.QueuePeers != nil {
		// Issue the engine's start-up commands: the receive queue (vp,
		// or for the processes of other hosts) or the connections to
		// every process (pm).
		if err := ep.Start(); err != nil {
			return nil, err
		}
	}
	if cfg.Eager == llc.EagerQueue && job.Size > 1 {
		// A record enqueued to a process that has no queue yet is refused:
		// start sending once every process has its queue.
		fence := job.Store.Fence
		if clock != nil {
			fence = func() error { return clock.Fence(job.Store.Fence) }
		}
		if err := fence(); err != nil {
			return nil, err
		}
	}
	return ep, nil
}

// prepareCalls sets up what the program's calls rely on: how they wait
// (the host's plan), the communicators' context ids, the forced
// algorithms that need no NIC, the watch on the others' Finalize, and
// World, with the networks' barrier controller for it (worldOffload).
func (s *runtimeState) prepareCalls(wait tuning.Waiting, force collectives.Selection, worldOffload int) {
	s.overlapLimit, s.runAhead, s.exchangeWhole = wait.OverlapLimit, wait.RunAhead, wait.RunAhead
	s.wordBcastAhead, s.queueNonblocking, s.queueRooted = wait.WordBcastAhead, wait.QueueNonblocking, wait.QueueRooted
	s.initContexts()
	s.softForce = collectives.Selection{}
	for coll, alg := range force {
		if alg != collectives.AlgNIC {
			s.softForce[coll] = alg
		}
	}
	s.ep.Spin, s.ep.Yield, s.ep.SpinFor, s.ep.YieldFor = wait.Spin, wait.Yield, wait.SpinFor, wait.YieldFor
	s.ep.SpinBusy, s.ep.YieldBusyFor = wait.BusySpin, wait.BusyYieldFor
	s.finals = newFinalWatch(s.job.Size)
	s.ep.Stalled = s.stalled
	if s.job.UnpinsWhenCrowded() {
		s.ep.Unpin = launch.Unpin
	}
	s.world = newComm(s, worldID, s.job.Rank, nil)
	s.world.setOffload(worldOffload)
}

// completeInit ends the process's Init: it completes its binding to a CPU,
// records the rank initialized for mpirun, and in virtual time binds the
// clock to the caller's thread and starts every process from the same
// time.
func (s *runtimeState) completeInit(clock llc.Clock) error {
	job := s.job
	if err := job.SettleBinding(); err != nil {
		return err
	}
	if err := job.SetState(launch.RankInitialized); err != nil {
		return err
	}
	if clock != nil {
		// Virtual time: the caller's thread is the one whose CPU time
		// counts as computing between its calls; every process starts
		// from the same time.
		clock.Bind()
		if err := clock.Fence(job.Store.Fence); err != nil {
			return err
		}
		clock.Leave() // the fence was not computing
	}
	return nil
}

// singleCopy reports whether a collective's message of n bytes, whose
// receive is posted or whose receiver combines it at once, goes by
// rendezvous (singleCopyMin).
func (s *runtimeState) singleCopy(n int) bool { return s.singleCopyMin > 0 && n >= s.singleCopyMin }

// distinctSingleCopy reports whether a send of n bytes of an exchange
// whose sends' buffers differ goes by rendezvous though singleCopy says
// not (distinctSingleCopyMin).
func (s *runtimeState) distinctSingleCopy(n int) bool {
	return s.distinctSingleCopyMin > 0 && n >= s.distinctSingleCopyMin
}

// Finalize completes the process's part of the job: it drives progress
// until the protocol engine has nothing in flight, synchronises with every
// other process (serving the network meanwhile), fails operations other
// goroutines still wait for with ErrFinalized, and closes the networks
// and the data store. A segment stays mapped until the process exits. MPI calls after Finalize return ErrNotInitialized.
func Finalize() error {
	stateMu.Lock()
	defer stateMu.Unlock()
	if rt == nil {
		if finalized {
			return errors.New("mpi: Finalize called twice")
		}
		return ErrNotInitialized
	}
	s := rt
	// A window in an epoch others may wait on: fail, not hang.
	if err := s.busyWindows(); err != nil {
		return fmt.Errorf("mpi: Finalize: %w", err)
	}
	if c := s.ep.Clock(); c != nil {
		// Virtual time: the others' requests no longer wait for this
		// process's clock (it is about to wait in fences).
		c.Stop()
	}
	// The broadcasts and scatters that ran ahead of their argument checks
	// are settled: a difference their calls did not see is reported here.
	serr := s.settleAhead()
	// Every process in Finalize, this one with nothing in flight; then
	// every process with nothing in flight. The NIC is served throughout,
	// so that a peer still finishing a transfer from this process is not
	// stranded.
	// Unreceived messages leave this process unfinalized (its sender
	// could never complete); a lost process ends Finalize with its error.
	var stranded *strandedError
	// A receive of another process that only this one could match now
	// fails instead of hanging (see stalled).
	s.announceFinalize()
	ferr := s.fenceServing(true)
	if ferr == nil {
		ferr = s.fenceServing(false)
	}
	if errors.As(ferr, &stranded) {
		return fmt.Errorf("mpi: Finalize: %w", ferr)
	}
	if s.stats {
		printStats(os.Stderr, s.world.rank, s.snapshot())
	}
	// Operations other goroutines still wait for can never complete now:
	// fail them, so that their calls return ErrFinalized. The segment
	// stays mapped until the process exits, so that a goroutine still
	// inside a call touches valid memory.
	rt, finalized = nil, true
	current.Store(nil)
	s.gcFloor = nil // a Comm kept after Finalize keeps s
	s.ep.Shutdown(ErrFinalized)
	s.ep.Exclusive(func() { s.closeNet() })
	rerr := s.job.SetState(launch.RankFinalized)
	if err := errors.Join(serr, ferr, rerr, s.job.Store.Close()); err != nil {
		return fmt.Errorf("mpi: Finalize: %w", err)
	}
	return nil
}

// fenceServing waits for every process to reach a data-store fence, and
// with idle also for this process to have nothing in flight, serving the
// NIC meanwhile. Finalize calls it with idle, then without. Once every process is in Finalize, a rendezvous message
// in this process's unexpected queue can never be received, and its
// sender never completes: fenceServing then fails with a strandedError
// naming it (MPI calls the program erroneous; without this the job would
// hang without a word).
func (s *runtimeState) fenceServing(idle bool) error {
	fence := make(chan error, 1)
	go func() {
		fence <- s.job.Store.Fence()
		s.net.Wake() // a waiter asleep on the doorbell sees the fence at once
	}()
	var (
		ferr     error
		all      bool // every process has reached the fence
		stranded []llc.Unreceived
	)
	s.ep.WaitState(func(st llc.State) bool {
		if !all {
			select {
			case ferr = <-fence:
				all = true
			default:
			}
		}
		if ferr != nil {
			return true
		}
		// Every process is in Finalize once the first fence is over (the
		// second one is called only then).
		if all || !idle {
			if len(st.Unreceived) > 0 {
				stranded = append([]llc.Unreceived(nil), st.Unreceived...)
				return true
			}
		}
		return all && (!idle || st.Idle || st.Err != nil)
	})
	if ferr == nil && len(stranded) > 0 {
		ferr = &strandedError{rank: s.job.Rank, msgs: stranded}
		fmt.Fprintf(os.Stderr, "mpi: rank %d: %v\n", s.job.Rank, ferr)
	}
	return ferr
}

// strandedError reports rendezvous messages that no receive matched
// before every process called Finalize.
type strandedError struct {
	rank int
	msgs []llc.Unreceived
}

func (e *strandedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d message(s) sent to rank %d were never received, so their senders cannot complete (every process is in Finalize):", len(e.msgs), e.rank)
	for _, m := range e.msgs {
		fmt.Fprintf(&b, " %d bytes from rank %d of World with tag %d;", m.Length, m.Source, m.Tag)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// ErrFinalized is the error of operations that were still pending when
// Finalize was called.
var ErrFinalized = errors.New("mpi: Finalize was called while the operation was pending")

// Initialized reports whether Init has completed and Finalize has not.
func Initialized() bool {
	stateMu.Lock()
	defer stateMu.Unlock()
	return rt != nil
}

// Finalized reports whether Finalize has completed.
func Finalized() bool {
	stateMu.Lock()
	defer stateMu.Unlock()
	return finalized
}

// World returns the communicator of all processes of the job, or nil
// before Init.
func World() *Comm {
	stateMu.Lock()
	defer stateMu.Unlock()
	if rt == nil {
		return nil
	}
	return rt.world
}

// Wtime returns elapsed wall-clock time in seconds since an arbitrary
// point in the past, with nanosecond resolution. In virtual time (mpirun
// -clock virtual) it returns the process's virtual time instead: what the
// modelled network took and the process computed since the job started.
func Wtime() float64 {
	if s := current.Load(); s != nil {
		if c := s.ep.Clock(); c != nil {
			c.Enter() // the computing up to now counts
			t := c.Now()
			c.Leave()
			return t.Seconds()
		}
	}
	return time.Since(epoch).Seconds()
}

// Wtick returns the resolution of Wtime in seconds.
func Wtick() float64 { return 1e-9 }

// Abort terminates the whole job: it reports code and the reason to mpirun,
// which stops every process, and exits with code (its low 8 bits, as an
// exit status has; 1 if those are 0). It may be called from any goroutine,
// also while another one is in Finalize, and on the nil World of a process
// that has not initialized.
func (c *Comm) Abort(code int) {
	who := "a process that has not initialized MPI"
	if c != nil {
		who = fmt.Sprintf("rank %d", c.rank)
	}
	msg := fmt.Sprintf("%s called Abort(%d)", who, code)
	fmt.Fprintln(os.Stderr, "mpi:", msg)
	// Not under stateMu: Finalize holds it while waiting for the others.
	if s := current.Load(); s != nil {
		s.store.Abort(code, msg)
	}
	status := code & 0xff
	if status == 0 {
		status = 1
	}
	os.Exit(status)
}
