package mpi

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/network"
)

// Type is the constraint of the element types messages are made of: every
// Go integer, floating-point and complex type (byte included).
type Type = collectives.Type

// Special ranks and tags.
const (
	// AnySource receives from any rank.
	AnySource = llc.AnySource
	// AnyTag receives any tag.
	AnyTag = llc.AnyTag
	// ProcNull is a rank that sends and receives nothing: operations with
	// it complete at once.
	ProcNull = -2
	// TagUB is the largest valid tag.
	TagUB = math.MaxInt32
	// Undefined (MPI_UNDEFINED) is the index Waitany and Testany return
	// when no request is active.
	Undefined = -32766
)

// Errors. Every error a function returns wraps one of these, so that
// errors.Is tells the class; the text names the call and the values.
var (
	ErrNotInitialized = errors.New("mpi: not initialized (call mpi.Init first)")
	ErrRank           = errors.New("invalid rank")
	ErrTag            = errors.New("invalid tag")
	ErrCount          = errors.New("invalid count")
	ErrBuffer         = errors.New("invalid buffer")
	ErrRequest        = errors.New("invalid request")
	ErrComm           = errors.New("communicator used after Free")
	ErrRoot           = errors.New("invalid root")
	// ErrOp: a reduction operation used with an element type it is not
	// defined for.
	ErrOp = collectives.ErrOp
	// ErrMismatch: the processes passed inconsistent arguments to a
	// collective operation (counts, roots, operations, or different
	// collectives altogether). Every process gets it.
	ErrMismatch = collectives.ErrMismatch
	// ErrAlgorithm: a collective algorithm forced with mpirun -coll
	// cannot run the call on this communicator (for example a NIC
	// algorithm where the communicator has no offload). Every process
	// gets it.
	ErrAlgorithm = collectives.ErrAlgorithm
	// ErrTruncate: the message was longer than the receive buffer.
	ErrTruncate = llc.ErrTruncated
)

// Contexts separate the traffic of communicators: the communicator of
// context id i uses context 2i for point-to-point and 2i+1 for its
// collectives. World has id 0.
const worldID = 0

// Comm is a communicator: a group of processes and a private context for
// their messages. Its methods are safe for concurrent use, except that, as
// in MPI, the collective operations of one communicator must be called in
// the same order by all its processes, not concurrently by several
// goroutines of one process.
type Comm struct {
	rt  *runtimeState
	id  int    // context id
	ctx uint32 // point-to-point context; ctx+1 is for collectives
	// serial tells communicators apart over the process's life, where
	// context ids are used again (softRunner).
	serial uint64
	rank   int
	size   int
	world  []int       // World rank of each rank; nil for World
	local  map[int]int // rank of each World rank; nil for World

	name atomic.Pointer[string] // set by SetName; nil: the default name
	topo topology               // virtual topology, or nil; immutable
	// inter makes c an intercommunicator: world, local and size then
	// describe the remote group, and rank is the caller's in the local
	// group. nil for an intracommunicator.
	inter *interComm

	seq    atomic.Uint32 // collective calls started, which tag their messages
	collMu sync.Mutex    // one blocking collective at a time
	queue  collQueue     // nonblocking collectives started, to run on runner
	net    commNet
	runner collectives.Runner
	// manager runs the collectives of communicator management, with the
	// default algorithms: the user's forced ones (-coll) are not for them.
	manager collectives.Runner
	hw      syncHardware // the networks' barriers and multicast, or nil
	freed   atomic.Bool

	// pending counts c's requests not yet finished. A freed communicator's
	// context id is given back only once they are (MPI: Free marks the
	// communicator for deallocation; pending operations complete
	// normally), so that no new communicator's messages can match them.
	pending  atomic.Int64
	released atomic.Bool

	// capturing, while a persistent collective of c is made, records
	// the nonblocking collective its start function starts instead of
	// running it (PersistentCollective).
	capturing atomic.Pointer[captured]
}

// newComm returns the communicator of context id, of the processes world
// (nil: all, in World's order) in which the caller has rank rank.
func newComm(s *runtimeState, id, rank int, world []int) *Comm {
	c := new(Comm)
	initComm(c, s, id, rank, world)
	return c
}

// initComm makes c, in place, the communicator newComm describes: Idup
// hands out c before its request fills it in.
// commSerials numbers the communicators (Comm.serial) from 1.
var commSerials atomic.Uint64

func initComm(c *Comm, s *runtimeState, id, rank int, world []int) {
	*c = Comm{rt: s, id: id, ctx: uint32(2 * id), serial: commSerials.Add(1), rank: rank, size: len(world), world: world}
	if world == nil {
		c.size = s.job.Size
	} else {
		c.local = make(map[int]int, len(world))
		for r, w := range world {
			c.local[w] = r
		}
	}
	c.net.c, c.queue.drain.c = c, c
	c.runner = collectives.Runner{Net: &c.net, Check: s.collCheck, Force: s.collForce, Stats: &s.collStats,
		LinearExchanges: !s.modelled, CopyDuringCheck: !s.modelled, Processors: c.processors(), Tuning: s.collTuning}
	c.manager = c.runner
	c.manager.Force = nil
}

// processors returns the processors c's ranks are pinned to
// (runtimeState.processors), or nil when no two processes of the job share
// one, or the job runs under the timing model, whose recorded runs used
// the flat algorithms (and whose virtual time does not follow the
// caches).
func (c *Comm) processors() []int {
	if c.rt.processors == nil || c.rt.modelled {
		return nil
	}
	p := make([]int, c.size)
	for r := range p {
		p[r] = c.rt.processors[c.toWorld(r)]
	}
	return p
}

// syncHardware is a group of the networks' Offload as the collectives use
// it.
type syncHardware interface {
	network.SyncGroup
	collectives.Hardware
}

// setOffload gives c the barrier controller hwID of the networks'
// synchronisation network (none if negative).
func (c *Comm) setOffload(hwID int) {
	if hwID < 0 || c.rt.noOffload || c.rt.offload == nil {
		return
	}
	procs := make([]int, c.size)
	for r := range procs {
		procs[r] = c.toWorld(r)
	}
	g := c.rt.offload.SyncGroup(c.rt.ep, hwID, c.rank, procs, uint32(c.id))
	hw, ok := g.(syncHardware)
	if !ok {
		if c.rank == 0 {
			g.Free() // of no use to the collectives
		}
		return
	}
	c.hw = hw
	c.runner.HW, c.manager.HW = c.hw, c.hw
	// The user's broadcasts and scatters may run ahead, and the
	// reductions to a root of a data word (or, with a core each, the
	// broadcasts of a data word alone); the user's calls that move no data
	// return at once but under the timing model; the management's calls
	// only settle them, and Finalize what is left.
	c.runner.RunAhead = new(collectives.RunAhead)
	c.runner.FanOutAhead, c.runner.WordBcastAhead = c.rt.runAhead, c.rt.wordBcastAhead
	c.runner.SkipEmpty = !c.rt.modelled
	c.manager.RunAhead = c.runner.RunAhead
	c.rt.keepAhead(c, true)
	c.runner.OverlapLimit, c.manager.OverlapLimit = c.rt.overlapLimit, c.rt.overlapLimit
	c.runner.PairOverlap, c.manager.PairOverlap = !c.rt.modelled, !c.rt.modelled
	// Multicast is no part of the Martini model: under it, broadcasts
	// travel as the model's messages.
	c.runner.BcastMulticast = !c.rt.modelled
	c.manager.BcastMulticast = c.runner.BcastMulticast
}

// Rank returns the calling process's rank in c.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of processes in c; in the local group for an
// intercommunicator (MPI_Comm_size).
func (c *Comm) Size() int {
	if c.inter != nil {
		return c.inter.local.size
	}
	return c.size
}

// check verifies that c can be used.
func (c *Comm) check(op string) error {
	if c.usable() {
		return nil
	}
	return c.checkSlow(op)
}

// usable is check's verdict without its error, short enough to inline in
// the checks that every message makes.
func (c *Comm) usable() bool {
	return c != nil && c.rt != nil && current.Load() == c.rt && !c.freed.Load()
}

// checkSlow is check with its errors.
func (c *Comm) checkSlow(op string) error {
	if err := c.checkLive(op); err != nil {
		return err
	}
	if c.freed.Load() {
		return fmt.Errorf("mpi: %s: %w", op, ErrComm)
	}
	return nil
}

// checkLive verifies that c's runtime is up, freed or not: what
// completing a request started before Free needs.
func (c *Comm) checkLive(op string) error {
	if c == nil || c.rt == nil {
		return fmt.Errorf("mpi: %s: %w", op, ErrNotInitialized)
	}
	if current.Load() != c.rt {
		return fmt.Errorf("mpi: %s: communicator used after Finalize: %w", op, ErrNotInitialized)
	}
	return nil
}

// requestStarted counts a new request of c. The nonblocking sends and
// receives that go through the endpoint's operations are not counted
// (two locked instructions each): Comm.idle asks the endpoint for them.
func (c *Comm) requestStarted() { c.pending.Add(1) }

// requestFinished counts a finished request of c. A freed c's context
// id goes back at the next agreement on one (runtimeState.releaseIdle).
func (c *Comm) requestFinished() { c.pending.Add(-1) }

// idle reports whether nothing of c is left in flight: no counted request
// pending, and no operation of c's contexts in the endpoint.
func (c *Comm) idle() bool {
	return c.pending.Load() == 0 && !c.rt.ep.HoldsContext(c.ctx, c.ctx+1)
}

// releaseWhenIdle gives the context id of c, which is freed, back now if
// c is idle, else at the first agreement on a context id that finds it
// idle.
func (c *Comm) releaseWhenIdle() {
	if c.idle() {
		c.releaseContext()
		return
	}
	c.rt.ctxMu.Lock()
	c.rt.freedBusy = append(c.rt.freedBusy, c)
	c.rt.ctxMu.Unlock()
}

// releaseContext gives c's context id back, once.
func (c *Comm) releaseContext() {
	if c.released.CompareAndSwap(false, true) {
		c.rt.releaseContext(c.id)
	}
}

// checkDest verifies that c can be used to send to rank dest (or ProcNull)
// with tag.
func (c *Comm) checkDest(op string, dest, tag int) error {
	if c.destOK(dest, tag) {
		return nil
	}
	return c.checkDestSlow(op, dest, tag)
}

// destOK is checkDest's verdict for a send to a rank (not ProcNull),
// without its error: cheap enough to inline at every call, where
// checkDest, with the call of its error, is not. The calls of every
// message test it and take checkDestSlow where it fails.
func (c *Comm) destOK(dest, tag int) bool {
	return c.usable() && uint(dest) < uint(c.size) && uint(tag) <= TagUB
}

// checkDestSlow is checkDest with its errors.
func (c *Comm) checkDestSlow(op string, dest, tag int) error {
	if err := c.check(op); err != nil {
		return err
	}
	if dest != ProcNull && (dest < 0 || dest >= c.size) {
		return fmt.Errorf("mpi: %s to rank %d: %w (communicator size %d)", op, dest, ErrRank, c.size)
	}
	if tag < 0 || tag > TagUB {
		return fmt.Errorf("mpi: %s with tag %d: %w (valid tags are 0..%d)", op, tag, ErrTag, TagUB)
	}
	return nil
}

// checkSource verifies that c can be used to receive from rank source
// (or AnySource, or ProcNull) with tag (or AnyTag).
func (c *Comm) checkSource(op string, source, tag int) error {
	if c.sourceOK(source, tag) {
		return nil
	}
	return c.checkSourceSlow(op, source, tag)
}

// sourceOK is destOK of a receive from a rank or AnySource (not
// ProcNull) with a tag or AnyTag.
func (c *Comm) sourceOK(source, tag int) bool {
	return c.usable() && (uint(source) < uint(c.size) || source == AnySource) && (uint(tag) <= TagUB || tag == AnyTag)
}

// checkSourceSlow is checkSource with its errors.
func (c *Comm) checkSourceSlow(op string, source, tag int) error {
	if err := c.check(op); err != nil {
		return err
	}
	if source != ProcNull && source != AnySource && (source < 0 || source >= c.size) {
		return fmt.Errorf("mpi: %s from rank %d: %w (communicator size %d)", op, source, ErrRank, c.size)
	}
	if tag != AnyTag && (tag < 0 || tag > TagUB) {
		return fmt.Errorf("mpi: %s with tag %d: %w (valid tags are 0..%d or AnyTag)", op, tag, ErrTag, TagUB)
	}
	return nil
}

// asBytes views a slice of elements as its bytes, without copying.
func asBytes[T Type](buf []T) []byte {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf)*int(unsafe.Sizeof(buf[0])))
}

func sizeOf[T Type]() int {
	var v T
	return int(unsafe.Sizeof(v))
}

// Status describes a received message.
type Status struct {
	Source int // rank of the sender
	Tag    int // tag of the message
	// Count is the number of elements received, of the receive buffer's
	// type; for Probe and Iprobe, which know no type, it is in bytes.
	Count int
	// Bytes is the length of the message in bytes.
	Bytes int
	// Cancelled reports whether Request.Cancel cancelled the operation
	// (MPI_Test_cancelled); the other fields are then meaningless.
	Cancelled bool
}

// GetCount returns the number of elements of type T a probed message holds.
func GetCount[T Type](st Status) int { return st.Bytes / sizeOf[T]() }

var procNullStatus = Status{Source: ProcNull, Tag: AnyTag}
