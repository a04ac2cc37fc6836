package collectives

import (
	"fmt"
)

// Runner runs the collective operations of one process of a communicator.
// For each call it compares the processes' arguments (when Check is set),
// chooses an algorithm by message size and communicator size (unless
// Force names one), runs it and counts it in Stats.
//
// Local argument errors are published to the other processes during the
// comparison, so that every process fails instead of some waiting for the
// one that gave up. A Runner runs one operation at a time; counts and
// displacements are in bytes, and elem is the element size, compared
// between processes like the counts. A call that moves no data returns
// at once (Empty).
type Runner struct {
	Net   Net
	HW    Hardware  // the communicator's offload, or nil
	Check bool      // compare arguments before moving data
	Force Selection // algorithms forced by collective
	Stats *Stats    // where to count the calls, or nil
	// OverlapLimit bounds the calls whose argument check overlaps their
	// data (see SplitBarrier): their bytes times the communicator's size
	// at most, their bytes alone at two processes with PairOverlap (0:
	// none). The messages of a call interrupted by a difference are left
	// unreceived: unless the Net withdraws the rendezvous requests of
	// interrupted sends (as mpi's does), the limit must keep every one of
	// them eager, since a rendezvous left unreceived would hold its
	// sender.
	OverlapLimit int
	// PairOverlap lets a call between two processes overlap its check
	// while its bytes alone stay within OverlapLimit (each of its
	// messages is one block, vector or message), where it would compare
	// first from half of that. Leave it off under a timing model, whose
	// recorded runs compared first.
	PairOverlap bool
	// BcastMulticast lets the selection broadcast by the Hardware's
	// multicast (from 32 KiB at three or four ranks, 16 KiB at more),
	// where it beats the binomial tree. Leave it off where multicast moves
	// outside a timing model that the messages follow.
	BcastMulticast bool
	// LinearExchanges lets the selection run the alltoalls and the
	// allgathers linear (several exchange steps in flight) from 3
	// processes, and the gathers and scatters of 2 processes linear from
	// their blocks' thresholds (chooseRooted), where they were measured
	// to win. Leave it off under a timing model: chapter 8's recorded
	// runs (thesis npb) used the pairwise exchange, the ring and the
	// tree.
	LinearExchanges bool
	// CopyDuringCheck lets a call whose algorithm copies the process's
	// own block first (ownFirst: a linear gather's root, which then only
	// receives) make that copy while the check's barrier waits for the
	// other processes, where the check comes before the data. Leave it
	// off under a timing model, whose recorded runs copied after it.
	CopyDuringCheck bool
	// RunAhead, shared by the Runners of one HW, holds the checks of the
	// calls that returned before them (see RunAheadBarrier), which every
	// Runner of the HW settles; nil: each call settles its own.
	RunAhead *RunAhead
	// FanOutAhead lets this Runner's broadcasts and scatters, whose data
	// fans out from the root, run ahead of their check where it overlaps
	// their data (with RunAhead). The root then sends and returns, where
	// the check would make it wait for the last process to arrive. Only
	// these, and the reductions and gathers to a root of a data word,
	// whose words travel in the barrier's ring (see smallReduction,
	// smallGather): the root of a larger reduction or gather waits for
	// everyone's messages anyway, and running ahead lost there (see
	// sharedPays). And
	// only the user's: a call that returns while others fail must be
	// followed by the same calls everywhere, which code that returns at a
	// failure (MPI's own composite operations, a communicator's
	// management) does not do.
	FanOutAhead bool
	// WordBcastAhead lets this Runner's broadcasts of a data word run
	// ahead of their check (with RunAhead) where FanOutAhead does not:
	// the root arrives with its word in the barrier's ring and returns,
	// and the others wait for the root's arrival alone, where the keyed
	// barrier has every process wait for the last one (see smallBcast).
	// With a core each, from a few processes on, that is what a small
	// broadcast costs most; its other calls keep their checks.
	WordBcastAhead bool
	// MessagesAhead sends this Runner's broadcasts and scatters by
	// messages where they run ahead of their check (with FanOutAhead), at
	// every size, rather than a data word's through the barrier's ring
	// (smallBcast, smallScatter): the non-roots then
	// wait for a message, which their endpoints' progress brings, rather
	// than for the root's arrival in the ring. Set for nonblocking
	// ones, many of which may be in flight: their waits in the ring
	// went to sleep (docs/decisions.md, "Nonblocking broadcasts and
	// scatters queue where processes outnumber cores").
	MessagesAhead bool
	// Processors identifies, by rank, the processor each rank is pinned
	// to, equal for the ranks that share one (on one host); nil when no
	// two ranks share one, or it is not known. Where some do, the
	// selection runs the long broadcasts and commutative reductions
	// AlgHierarchical.
	Processors []int
	// Tuning is what the host's class decides in the selection.
	Tuning Tuning
	// SkipEmpty lets the calls that move no data return at once, where
	// the Hardware's barrier compares arguments, with a RunAhead (see
	// Empty). Leave it off under a timing model, whose recorded runs
	// passed the barrier.
	SkipEmpty bool

	hier   *hierarchy // the ranks by Processors, made at first use
	c      call
	ov     overlap // the argument comparison of the call in progress
	arena  []byte
	xfer   exchangeScratch // the transfers of the calls' exchanges
	small  smallKey        // the key of the last small reduction
	word   [DatumSize]byte // a data word, unpacked for Reducer.Apply
	out    [DatumSize]byte // the data word this rank passes (wordOf)
	hashed hashedKey       // the last record hashed (recordHash)
	board  board           // what the call's exchange published
	op     opMemo          // the last reduction's operation (opID)
}

// hashedKey caches the hash of the last encoded Key a process published:
// calls repeat, and the comparison costs less than the hash.
type hashedKey struct {
	rec  [keySize]byte
	hash uint64 // keyHash(rec), 0 if none yet
}

// recordHash returns keyHash of rec's encoded Key, masked to the
// hardware's key width (0 for a record without a Key).
func (u *Runner) recordHash(rec []byte) uint64 {
	if len(rec) < keySize || u.HW == nil {
		return 0
	}
	if h := &u.hashed; h.hash == 0 || [keySize]byte(rec) != h.rec {
		h.rec, h.hash = [keySize]byte(rec), keyHash(rec)
	}
	return u.hashed.hash & (1<<u.HW.KeyBits() - 1)
}

// opMemo caches the opID of the last reduction's operation.
type opMemo struct {
	name string
	id   uint16
}

// opID is the package's opID, from a cache of the last operation.
func (u *Runner) opID(r Reducer) uint16 {
	if r.Apply == nil {
		return 0
	}
	if u.op.id == 0 || r.Op != u.op.name {
		u.op = opMemo{name: r.Op, id: opID(r)}
	}
	return u.op.id
}

// Scratch returns the scratch memory the Runner carves its calls'
// buffers from, which grows as they need; SetScratch gives it some. A
// Runner made for one call can take what one before it used, so that the
// call neither allocates nor clears memory of its own: the memory must be
// no other Runner's while it is this one's.
func (u *Runner) Scratch() []byte { return u.arena }

// SetScratch: see Scratch.
func (u *Runner) SetScratch(b []byte) { u.arena = b }

func (u *Runner) begin() *call {
	u.c = call{Net: u.Net, arena: &u.arena, xfer: &u.xfer}
	return &u.c
}

// recordSize is the size of the record a process publishes for coll, the
// most it carries, where the exchange that checks arguments runs by
// method (u.method(), which a call asks once).
func (u *Runner) recordSize(coll Collective, method string) int {
	switch {
	case coll == CollBarrier:
		return keySize
	case u.HW != nil:
		return u.HW.PayloadSize()
	case u.messageRecords(method):
		return keySize + u.messageShareMax(coll)
	}
	return sharedRecord
}

// messageRecords reports whether the records of the exchange that checks
// arguments, by method, are as long as each call needs: where the
// processes exchange them by messages (no Hardware) in a dissemination.
// Every record holds its key first, and the records a message brings are
// laid out again by the length its sender used (publish): a process whose
// call differs publishes records of another length, and every process
// still reads every key, so the comparison reports the difference on
// every process.
func (u *Runner) messageRecords(method string) bool {
	return u.HW == nil && method == AlgDissemination
}

// longestRecord is the longest record a process may publish in the
// exchange by method of a call through u, whatever the call: where
// records are as long as each call needs (messageRecords), a message of
// the exchange may bring records of up to this length, which publish
// makes room for.
func (u *Runner) longestRecord(method string) int {
	if !u.messageRecords(method) {
		return 0
	}
	return keySize + u.messageShareMax(CollAllgather) // the most any call carries
}

// messageShareMax is the most input a record exchanged by messages
// carries for coll (see messageRecords): sharedMessages bytes received by
// each process from the n-1 others in all, half of it for a call whose
// data goes to one process alone (a reduction to a root, a gather),
// sharedMessageRecord at most in one record.
func (u *Runner) messageShareMax(coll Collective) int {
	total := sharedMessages
	if coll == CollReduce || coll == CollGather {
		total /= 2
	}
	return min(sharedMessageRecord, total/max(u.Net.Size()-1, 1))
}

// method is the algorithm of the exchange that checks arguments: the
// barrier's. The exchange is not the user's barrier: a barrier forced to
// the NIC on a communicator without it checks by software instead, so
// that the forced choice breaks no other collective.
func (u *Runner) method() string {
	alg := u.choose(CollBarrier, 0, true, false)
	if alg == AlgNIC && u.HW == nil {
		return AlgDissemination
	}
	return alg
}

// sharedStat is the index in statAlgs of AlgShared over the exchange
// method.
func sharedStat(method string) int {
	switch method {
	case AlgNIC:
		return statSharedNIC
	case AlgBinomial:
		return statSharedBinomial
	}
	return statSharedDissemination
}

// opCall describes one call to the driver.
type opCall struct {
	key Key
	// input is what the process publishes for AlgShared; shareLen the
	// agreed size of the largest input (-1: AlgShared does not apply).
	input    []byte
	shareLen int
	// bytes is the size the choice of algorithm goes by.
	bytes       int
	commutative bool
	invalid     error // the process's own arguments are invalid
	// own is the copy of the process's own block that the call's
	// algorithms make first (ownFirst), made while the check's barrier
	// waits for the other processes instead (the zero ownCopy: none).
	own ownCopy
}

// ownFirst reports whether algorithm alg of coll copies the process's
// own block first, as opCall.own describes it (skipping the copy where
// the call's ownDone says the check's wait made it).
func ownFirst(coll Collective, alg string) bool {
	return coll == CollGather && alg == "linear"
}

// do runs one call: the exchange of arguments (and, for AlgShared, of the
// inputs), then data, or local on the published records.
func (u *Runner) do(o *opCall, data func(c *call, alg string) error, local func(b *board)) error {
	return u.withEarlier(u.run(o, data, local))
}

// run is do without the report of an earlier call's difference.
func (u *Runner) run(o *opCall, data func(c *call, alg string) error, local func(b *board)) error {
	c := u.begin()
	coll := o.key.Coll
	method := u.method()
	size := u.recordSize(coll, method)
	fits := o.shareLen >= 0 && o.shareLen <= size-keySize
	alg := u.choose(coll, o.bytes, o.commutative, fits && u.sharedPays(coll, o.shareLen, method))
	if o.invalid == nil {
		o.invalid = u.applicable(coll, alg, fits, o.commutative || o.key.Op == 0)
	}
	if o.invalid != nil {
		o.key.Bad = true
	}
	if sb, in, ok := u.overlapped(o, alg); ok {
		if rb, ok := u.runAheadBarrier(o.key.Coll); ok {
			return u.runAhead(c, o, alg, rb, in, data)
		}
		u.settleAll()
		return u.runOverlapped(c, o, alg, sb, in, data)
	}
	u.settleAll()
	if u.Check || alg == AlgShared {
		inline := method == AlgNIC && alg == AlgShared && o.invalid == nil &&
			o.shareLen <= DatumSize && c.Size() <= u.HW.InlineRanks()
		input, datum := u.checkedInput(o, alg, inline)
		rec, key := keyedRecord(c, method == AlgNIC, o.key, input, u.checkedSize(o, method, alg, inline, size))
		b := &u.board
		var own ownCopy
		if u.CopyDuringCheck && o.invalid == nil && ownFirst(coll, alg) {
			own = o.own
		}
		if err := publish(c, u.HW, method, rec, u.recordHash(key), datum, u.longestRecord(method), b, own); err != nil {
			return fmt.Errorf("%v: %w", coll, err)
		}
		if inline {
			b.inline, b.tmp = true, c.alloc(DatumSize)
		}
		if o.invalid != nil {
			return o.invalid
		}
		if err := b.verify(rec); err != nil {
			return err
		}
		if c.mismatch != nil {
			return mismatchErr(coll, c.mismatch)
		}
		if alg == AlgShared {
			u.Stats.addAt(coll, sharedStat(method))
			local(b)
			return nil
		}
	} else if o.invalid != nil {
		return o.invalid
	}
	u.Stats.add(coll, alg)
	if err := c.end(data(c, alg)); err != nil {
		return fmt.Errorf("%v (%s): %w", coll, alg, err)
	}
	return nil
}

// mismatchErr is the error of a call of coll whose check met a record of
// another length where the keys agree, which hold the lengths: another
// call's, a difference all the same.
func mismatchErr(coll Collective, mismatch error) error {
	return fmt.Errorf("%v: %w", coll, mismatch)
}

// checkedSize is the size of the record the process publishes in the
// check of o by method before alg runs, from size, the most it carries
// (recordSize). Payloads of the synchronisation network may differ in
// size: it publishes no more than needed, its input only where alg is
// AlgShared and it travels outside the barrier's data word (inline).
// Records exchanged by messages (messageRecords) take the length every
// process agrees on (its key holds it), whether or not its own input
// fills it: the records cross.
func (u *Runner) checkedSize(o *opCall, method, alg string, inline bool, size int) int {
	switch {
	case method == AlgNIC:
		size = keySize
		if alg == AlgShared && o.invalid == nil && !inline {
			size += len(o.input)
		}
	case u.messageRecords(method):
		size = keySize
		if alg == AlgShared && o.invalid == nil {
			size += o.shareLen
		}
	}
	return size
}

// checkedInput is where the process's input to o travels in the check
// before alg runs: as the barrier's data word (the datum) where it is
// inline, in its record (the input) where alg is AlgShared and its
// arguments are valid, nowhere otherwise. Inputs of a data word or less
// (by the size every rank agrees on) are inline, travelling as the
// barrier's data words, when the group is small enough: run decides, by
// the synchronisation network's InlineRanks.
func (u *Runner) checkedInput(o *opCall, alg string, inline bool) ([]byte, *[DatumSize]byte) {
	if inline {
		return nil, u.wordOf(o.input)
	}
	if alg == AlgShared && o.invalid == nil {
		return o.input, nil
	}
	return nil, nil
}

// applicable reports whether alg can run the call.
func (u *Runner) applicable(coll Collective, alg string, fits, commutative bool) error {
	switch {
	case alg == AlgShared && !fits:
		return fmt.Errorf("%v: the %s algorithm carries at most %d bytes per process: %w",
			coll, alg, u.recordSize(coll, u.method())-keySize, ErrAlgorithm)
	case alg == AlgNIC && u.HW == nil:
		return fmt.Errorf("%v: %w", coll, errNoHardware)
	case (alg == AlgRing || alg == AlgReduceScatterGather || alg == "recursive-halving" || alg == AlgHierarchical) && !commutative:
		return fmt.Errorf("%v: the %s algorithm needs a commutative operation: %w", coll, alg, ErrAlgorithm)
	case (alg == AlgRecursiveDoubling && coll == CollAllgather) || alg == "recursive-halving":
		if !isPowerOfTwo(u.Net.Size()) {
			return fmt.Errorf("%v: the %s algorithm needs a power-of-two size, not %d: %w", coll, alg, u.Net.Size(), ErrAlgorithm)
		}
	}
	return nil
}

// Fail publishes that this process's arguments to coll are invalid, so
// that the others fail too, and returns err. Use it for errors found
// before the Runner's methods are reached (an operation undefined on the
// element type, say).
func (u *Runner) Fail(coll Collective, err error) error {
	if !u.Check {
		return err
	}
	o := opCall{key: Key{Coll: coll}, shareLen: -1, invalid: err}
	return u.do(&o, nil, nil)
}

// Barrier returns once every process of the communicator has called it.
func (u *Runner) Barrier() error { return u.withEarlier(u.barrier()) }

// barrier is Barrier without the report of an earlier call's difference.
func (u *Runner) barrier() error {
	u.settleAll()
	if u.HW != nil && len(u.Force) == 0 {
		var rec []byte
		if u.Check {
			rec = barrierKey[:]
		}
		err := u.hwBarrier(rec, barrierHash)
		u.Stats.addAt(CollBarrier, statNIC)
		return err
	}
	alg := u.choose(CollBarrier, 0, true, false)
	if alg == AlgNIC && u.HW == nil {
		// The communicator has no offload, on every process alike.
		return fmt.Errorf("%v: %w", CollBarrier, errNoHardware)
	}
	c := u.begin()
	var rec []byte
	if u.Check {
		rec = barrierKey[:]
	}
	b := &u.board
	if err := publish(c, u.HW, alg, rec, u.recordHash(rec), nil, u.longestRecord(alg), b, ownCopy{}); err != nil {
		return fmt.Errorf("barrier (%s): %w", alg, err)
	}
	u.Stats.add(CollBarrier, alg)
	if u.Check {
		return b.verify(rec)
	}
	return nil
}

// hwBarrier passes the synchronisation network's barrier, without
// publish's generality, with rec (nil: no check), the encoded Key whose
// keyHash is hash, and compares it with the other processes'.
func (u *Runner) hwBarrier(rec []byte, hash uint64) error {
	hw := u.HW
	n, mask := uint64(u.Net.Size()), uint64(1)<<hw.KeyBits()-1
	if err := hw.Barrier(hash&mask, nil, rec); err != nil {
		return fmt.Errorf("barrier (%s): %w", AlgNIC, err)
	}
	if rec != nil && hw.KeySum() != n*hash&mask {
		b := board{hw: hw, size: keySize, self: u.Net.Rank(), n: int(n), key: hash & mask}
		return b.verify(rec)
	}
	return nil
}

// barrierKey is the encoded Key of every Barrier, and barrierHash its
// keyHash: computed once.
var (
	barrierKey  = func() (b [keySize]byte) { Key{Coll: CollBarrier}.put(b[:]); return }()
	barrierHash = keyHash(barrierKey[:])
)

func badRoot(coll Collective, root, n int) error {
	if uint(root) < uint(n) && root < 1<<23 { // small enough to inline
		return nil
	}
	return rootErr(coll, root, n)
}

// rootErr is badRoot's error.
func rootErr(coll Collective, root, n int) error {
	return fmt.Errorf("%v: root %d is not a rank of a communicator of %d: %w", coll, root, n, ErrBuffer)
}

func badUnits(coll Collective, length, unit int) error {
	if unit > 0 && length%unit != 0 {
		return fmt.Errorf("%v: %d bytes are no whole number of %d-byte units: %w", coll, length, unit, ErrBuffer)
	}
	return nil
}

// Bcast broadcasts buf from root.
func (u *Runner) Bcast(buf []byte, root, elem int) error {
	if len(buf) == 0 && bcastEmpty(buf, root, u.Net.Size()) && u.skipsEmpty() { // the length first: no look at Net otherwise
		return u.skip(CollBcast, elem, root, nil)
	}
	if ok, err := u.smallBcast(buf, root, elem); ok {
		return err
	}
	o := opCall{key: Key{Coll: CollBcast, Elem: elem, Root: root, Bytes: len(buf)},
		shareLen: len(buf), bytes: len(buf), commutative: true,
		invalid: badRoot(CollBcast, root, u.Net.Size())}
	if u.Net.Rank() == root {
		o.input = buf
	}
	return u.do(&o, func(c *call, alg string) error {
		switch alg {
		case AlgHierarchical:
			return bcastHierarchical(c, u.hierarchy(), buf, root)
		case AlgScatterAllgather:
			return bcastScatterAllgather(c, buf, root)
		case AlgNIC:
			return bcastMulticast(c, u.HW, buf, root)
		}
		return bcastBinomial(c, buf, root)
	}, func(b *board) {
		if u.Net.Rank() != root {
			copy(buf, b.data(root, 0, len(buf)))
		}
	})
}

// reduction prepares the opCall of a reduction of send (nil: in place,
// from recv) into the first length bytes of recv.
func (u *Runner) reduction(coll Collective, r Reducer, send []byte, length, root int) opCall {
	o := opCall{key: Key{Coll: coll, Elem: r.Elem, Kind: uint8(r.Kind), Op: u.opID(r), Root: root, Bytes: length},
		input: send, shareLen: length, bytes: length, commutative: r.Commutative}
	if r.Apply == nil || r.Unit <= 0 {
		o.invalid = checkReducer(coll.String(), r)
	} else {
		o.invalid = badUnits(coll, length, r.Unit)
	}
	return o
}

// fold combines the published inputs of ranks lo..hi-1, in rank order, at
// offset off of their records, into acc.
func fold(b *board, r Reducer, acc []byte, lo, hi, off int) {
	copy(acc, b.data(hi-1, off, len(acc)))
	for s := hi - 2; s >= lo; s-- {
		r.Apply(b.data(s, off, len(acc)), acc)
	}
}

// Reduce combines the processes' send vectors with r into recv at root.
// send nil means in place at the root (its input is in recv); elsewhere it
// is an empty vector.
func (u *Runner) Reduce(send, recv []byte, r Reducer, root int) error {
	if len(send) == 0 && reduceEmpty(send, recv, &r, root, u.Net.Rank(), u.Net.Size()) && u.skipsEmpty() { // (as Bcast's)
		return u.skip(CollReduce, 0, root, &r)
	}
	if ok, err := u.smallReduction(CollReduce, send, recv, &r, root); ok {
		return err
	}
	n, rank := u.Net.Size(), u.Net.Rank()
	if send == nil && rank != root {
		send = []byte{} // in place is for the root only
	}
	length := len(send)
	if send == nil {
		length = len(recv)
	}
	o := u.reduction(CollReduce, r, send, length, root)
	if send == nil {
		o.input = recv
	}
	switch {
	case o.invalid != nil:
	case badRoot(CollReduce, root, n) != nil:
		o.invalid = badRoot(CollReduce, root, n)
	case rank == root && len(recv) < length:
		o.invalid = fmt.Errorf("reduce: the root's receive buffer holds %d bytes, not %d: %w", len(recv), length, ErrBuffer)
	}
	return u.do(&o, func(c *call, alg string) error {
		switch alg {
		case AlgHierarchical:
			return reduceHierarchical(c, u.hierarchy(), r, send, recv, root)
		case AlgReduceScatterGather:
			return reduceScatterGather(c, r, send, recv[:min(len(recv), length)], root)
		case AlgRecursiveHalving:
			return reduceHalving(c, r, send, recv[:min(len(recv), length)], root)
		}
		return reduceBinomial(c, r, send, recv, root)
	}, func(b *board) {
		if rank == root {
			fold(b, r, recv[:length], 0, n, 0)
		}
	})
}

// Allreduce combines the processes' send vectors with r into every
// process's recv. send nil means in place (the input is in recv).
func (u *Runner) Allreduce(send, recv []byte, r Reducer) error {
	if allreduceEmpty(send, recv, &r) && u.skipsEmpty() {
		return u.skip(CollAllreduce, 0, 0, &r)
	}
	if ok, err := u.smallReduction(CollAllreduce, send, recv, &r, 0); ok {
		return err
	}
	o := u.reduction(CollAllreduce, r, send, len(recv), 0)
	if send == nil {
		o.input = recv
	} else if o.invalid == nil && len(send) != len(recv) {
		o.invalid = fmt.Errorf("allreduce: send buffer of %d bytes, receive buffer of %d: %w", len(send), len(recv), ErrBuffer)
	}
	return u.do(&o, func(c *call, alg string) error {
		switch alg {
		case AlgHierarchical:
			return allreduceHierarchical(c, u.hierarchy(), r, send, recv)
		case AlgRing:
			return allreduceRing(c, r, send, recv)
		case AlgReduceBcast:
			return allreduceReduceBcast(c, r, send, recv)
		case AlgRecursiveHalving:
			return allreduceHalving(c, r, send, recv)
		}
		return allreduceRecursiveDoubling(c, r, send, recv)
	}, func(b *board) {
		fold(b, r, recv, 0, u.Net.Size(), 0)
	})
}

// Scan leaves in rank i's recv the combination of the send vectors of
// ranks 0..i; Exscan (exclusive) of ranks 0..i-1, leaving rank 0's recv
// alone. send nil means in place.
func (u *Runner) Scan(send, recv []byte, r Reducer, exclusive bool) error {
	coll := CollScan
	if exclusive {
		coll = CollExscan
	}
	length := len(send)
	if send == nil {
		length = len(recv)
	}
	o := u.reduction(coll, r, send, length, 0)
	if send == nil {
		o.input = recv
	} else if o.invalid == nil && len(recv) < length {
		o.invalid = fmt.Errorf("%v: receive buffer of %d bytes, send buffer of %d: %w", coll, len(recv), length, ErrBuffer)
	}
	return u.do(&o, func(c *call, alg string) error {
		if exclusive {
			return Exscan(c, alg, send, recv, r)
		}
		return Scan(c, alg, send, recv, r)
	}, func(b *board) {
		rank := u.Net.Rank()
		switch {
		case !exclusive:
			fold(b, r, recv[:length], 0, rank+1, 0)
		case rank > 0:
			fold(b, r, recv[:length], 0, rank, 0)
		}
	})
}
