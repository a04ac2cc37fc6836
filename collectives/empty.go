package collectives

import "fmt"

// Calls that move no data.
//
// In a correct program the processes' counts of a call match (MPI's type
// signatures): when a broadcast, reduction, gather, scatter, allgather or
// alltoall moves no bytes on one process, it moves none on any. Where the
// Runner compares arguments through the Hardware's barrier (and
// SkipEmpty lets it), such a call returns at once, as Open MPI's and
// MPICH's do, once its own arguments (the root, the operation, the
// in-place forms) are valid: it neither arrives at the barrier nor waits
// for the other processes, which MPI promises of no collective but the
// barrier. Its tag was taken by the caller all the same, on every process
// alike.
//
// Its argument check is left to the Runner's next arrival: the calls
// that returned so since the last one are a run (emptyRun), which arrives
// at the barrier as one call, with the first one's key, before the next
// call that arrives (flushEmpty, from settleAll and arriveAhead), or at
// Settle. In a correct program every process has made the same run, and
// the barrier passes. In an erroneous one, where a process's call moved
// no data and another's moved some, the run meets the other's call at the
// barrier's generation, both report the difference (the run's by the
// call that flushed it, see withEarlier), and the processes' calls stay
// in step, as with any other difference.
//
// A call whose own arguments are invalid goes the usual way, so that
// every process reports the error. Where the arguments are compared by
// messages (no Hardware, or the barrier forced to a software algorithm),
// every call goes the usual way too.

// emptyRun is the run of calls that returned at once (see above) since
// the Runners of its RunAhead last arrived at the barrier.
type emptyRun struct {
	n   int           // the calls
	rec [keySize]byte // the first one's encoded Key
}

// Empty reports whether u returns at once from a call of coll with these
// arguments, those that u's method of coll takes (send, recv and root as
// that method reads them; r for a reduction, nil otherwise): the call
// moves no data, its own arguments are valid, and u compares arguments
// through the Hardware's barrier. It answers for CollBcast (buf is recv),
// CollReduce, CollAllreduce, CollGather, CollScatter, CollAllgather and
// CollAlltoall, and reports false for every other collective.
func (u *Runner) Empty(coll Collective, send, recv []byte, root int, r *Reducer) bool {
	return EmptyCall(coll, u.Net.Rank(), u.Net.Size(), send, recv, root, r) && u.skipsEmpty()
}

// skipsEmpty reports whether u's calls that move no data return at once:
// where u compares arguments through the Hardware's barrier, with a
// RunAhead to keep the run for the next arrival (see above).
func (u *Runner) skipsEmpty() bool {
	// With nothing forced, the barrier's method is the Hardware's.
	return u.SkipEmpty && u.RunAhead != nil && u.HW != nil && (len(u.Force) == 0 || u.method() == AlgNIC)
}

// skip returns from a call of coll that moves no data (its element size,
// root, and Reducer if a reduction), adding it to the run that the next
// arrival compares (without a check, nothing is added: the barrier then
// compares nothing).
func (u *Runner) skip(coll Collective, elem, root int, r *Reducer) error {
	run := &u.RunAhead.empty
	if !u.Check {
		return nil
	}
	if run.n == 0 {
		key := Key{Coll: coll, Elem: elem, Root: root}
		if r != nil {
			key.Elem, key.Kind, key.Op = r.Elem, uint8(r.Kind), u.opID(*r)
		}
		key.put(run.rec[:])
	}
	run.n++
	return nil
}

// flushEmpty arrives at the barrier with p's run of calls that moved no
// data, if there is one, and keeps the difference it shows for the call
// that flushed it to report (withEarlier), as settling does. The calls
// that ran ahead are settled: the keyed barrier comes after them. A
// Runner without the Hardware (a freed communicator's last barrier goes
// by messages) drops the run: every process of a correct program made
// it, and none of the communicator's calls follows.
func (u *Runner) flushEmpty(p *RunAhead) {
	if p.empty.n == 0 {
		return
	}
	p.empty.n = 0
	if u.HW == nil {
		return
	}
	rec := p.empty.rec[:]
	if err := u.hwBarrier(rec, keyHash(rec)); err != nil && p.earlier == nil {
		p.earlier = fmt.Errorf("a collective call that moved no data: %w", err)
	}
}

// EmptyCall reports whether a call of coll by the process of rank among
// n, with the arguments of Empty, moves no data, its own arguments valid.
func EmptyCall(coll Collective, rank, n int, send, recv []byte, root int, r *Reducer) bool {
	switch coll {
	case CollBcast:
		return bcastEmpty(recv, root, n)
	case CollReduce:
		return r != nil && reduceEmpty(send, recv, r, root, rank, n)
	case CollAllreduce:
		return r != nil && allreduceEmpty(send, recv, r)
	case CollGather:
		return gatherEmpty(send, recv, root, rank, n)
	case CollScatter:
		return gatherEmpty(recv, send, root, rank, n) // the same rules, send and receive swapped
	case CollAllgather, CollAlltoall:
		return blocksEmpty(send, recv)
	}
	return false
}

// bcastEmpty: a broadcast of nothing from a valid root.
func bcastEmpty(buf []byte, root, n int) bool {
	return len(buf) == 0 && uint(root) < uint(n)
}

// usableReducer reports whether r can combine (checkReducer accepts it).
func usableReducer(r *Reducer) bool { return r.Apply != nil && r.Unit > 0 }

// reduceEmpty: a reduction of empty vectors to a valid root. A send nil
// means in place at the root (the vector is recv) and is an error
// elsewhere, which the usual way reports.
func reduceEmpty(send, recv []byte, r *Reducer, root, rank, n int) bool {
	switch {
	case send != nil:
		if len(send) != 0 {
			return false
		}
	case rank != root || len(recv) != 0:
		return false
	}
	return uint(root) < uint(n) && usableReducer(r)
}

// allreduceEmpty: an allreduce of empty vectors (send nil: in place).
func allreduceEmpty(send, recv []byte, r *Reducer) bool {
	return len(recv) == 0 && len(send) == 0 && usableReducer(r)
}

// gatherEmpty: a gather of empty blocks to a valid root. A send nil means
// in place at the root, whose block is then len(recv)/n bytes, and an
// empty block elsewhere (Runner.Gather). For a scatter, send is the
// receive buffer and recv the root's send buffer.
func gatherEmpty(send, recv []byte, root, rank, n int) bool {
	if send == nil && rank == root {
		send = recv
	}
	return len(send) == 0 && uint(root) < uint(n)
}

// blocksEmpty: an allgather or an alltoall of empty blocks (send nil: in
// place, the blocks in recv).
func blocksEmpty(send, recv []byte) bool {
	if send == nil {
		return len(recv) == 0
	}
	return len(send) == 0
}
