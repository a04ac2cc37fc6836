package collectives

import (
	"errors"
	"fmt"
)

// Overlapped argument checks.
//
// A checked collective call compares the processes' arguments through the
// synchronisation network's barrier. Done first, the comparison makes
// every call a barrier followed by the data's own exchanges: when ranks
// outnumber cores, every process must run once to arrive and once more to
// see the release before any data moves. With the barrier split
// (SplitBarrier) and a Net whose waits can be interrupted (Interruptible),
// a call arrives at the barrier with its key, moves its data at once, and
// waits for the release at the end: the comparison and the data share the
// processes' turns. If the release shows keys that differ, the waits for
// data are interrupted (the data may never come: the processes disagree
// about roots or sizes) and the call fails with the difference, on every
// process, as the comparison done first would; only the receive buffers
// may then hold part of the data.
//
// A call overlaps only up to Runner.OverlapLimit: an interrupted call
// leaves its messages unreceived, which costs an eager message's sender
// nothing but would hold a rendezvous's, unless the Net withdraws the
// requests of interrupted rendezvous sends. A process's own invalid
// arguments, the v-collectives (whose keys differ legitimately) and the
// calls whose data travels in the barrier itself (AlgShared) or in
// multicasts (AlgNIC) compare before moving data.

// SplitBarrier is implemented by a Hardware whose barrier can be entered
// without waiting for it: Arrive publishes as Barrier does and returns at
// once; Released reports, without blocking, whether every rank has
// arrived since; WaitReleased waits for that. After the release, KeySum,
// Datum and Payload describe the arrival, as after Barrier.
type SplitBarrier interface {
	Arrive(key uint64, datum *[DatumSize]byte, payload []byte) error
	Released() bool
	WaitReleased() error
}

// Interruptible is implemented by a Net whose waits can be abandoned:
// after Interrupt(f), a Send, Recv or Sendrecv that is still waiting gives
// up with an error wrapping ErrInterrupted once f reports true (f is
// called between rounds of progress and must not block); Interrupt(nil)
// makes waits unconditional again.
type Interruptible interface {
	Interrupt(f func() bool)
}

// ErrInterrupted is wrapped by the error of a wait that an Interruptible
// Net abandoned.
var ErrInterrupted = errors.New("collective wait interrupted")

// overlap is the comparison of the call in progress.
type overlap struct {
	hash uint64 // the key this process added, masked to the key width
	// agreed: the barrier is released and every process passed this
	// process's key.
	agreed bool
	rec    [keySize]byte
	// stop is the Runner's differs, made once (a method value allocates),
	// for the Runner owner (a copied Runner makes its own).
	stop  func() bool
	owner *Runner
}

// overlapped reports whether o can run by algorithm alg with its check
// overlapped, and with what.
func (u *Runner) overlapped(o *opCall, alg string) (SplitBarrier, Interruptible, bool) {
	if !u.Check || alg == AlgShared || alg == AlgNIC || o.invalid != nil || o.key.Counts != 0 || o.key.Bytes < 0 ||
		u.overlapBytes(o.bytes) > u.OverlapLimit || u.method() != AlgNIC {
		return nil, nil, false
	}
	sb, ok := u.HW.(SplitBarrier)
	in, ok2 := u.Net.(Interruptible)
	return sb, in, ok && ok2
}

// overlapBytes is what OverlapLimit bounds of a call of bytes (a block,
// a vector or a message): bytes times the processes, which no message of
// the call exceeds; with PairOverlap, at two processes bytes alone, every
// message of a call between two being one block, vector or message.
func (u *Runner) overlapBytes(bytes int) int {
	n := u.Net.Size()
	if n == 2 && u.PairOverlap {
		return bytes
	}
	return bytes * n
}

// runOverlapped runs one call with its check overlapped: arrive, move the
// data (interrupted if the release shows a difference), wait for the
// release and compare.
func (u *Runner) runOverlapped(c *call, o *opCall, alg string, sb SplitBarrier, in Interruptible, data func(c *call, alg string) error) error {
	ov := &u.ov
	o.key.put(ov.rec[:])
	ov.hash, ov.agreed = u.recordHash(ov.rec[:]), false
	if err := sb.Arrive(ov.hash, nil, ov.rec[:]); err != nil {
		return fmt.Errorf("%v: %w", o.key.Coll, err)
	}
	if ov.owner != u {
		ov.stop, ov.owner = u.differs, u
	}
	in.Interrupt(ov.stop)
	err := c.end(data(c, alg))
	in.Interrupt(nil)
	u.Stats.add(o.key.Coll, alg)
	if !ov.agreed {
		if werr := sb.WaitReleased(); werr != nil {
			return fmt.Errorf("%v: %w", o.key.Coll, errors.Join(werr, err))
		}
		b := board{hw: u.HW, size: keySize, self: u.Net.Rank(), n: u.Net.Size(), key: ov.hash}
		if verr := b.verify(ov.rec[:]); verr != nil {
			return verr // the difference explains any failure of the data
		}
	}
	if err != nil {
		return fmt.Errorf("%v (%s): %w", o.key.Coll, alg, err)
	}
	return nil
}

// differs reports whether the barrier is released and shows keys other
// than this process's: the interrupt condition of an overlapped call.
// Once the keys are known to agree it answers without looking again.
func (u *Runner) differs() bool {
	ov := &u.ov
	if ov.agreed || !u.HW.(SplitBarrier).Released() {
		return false
	}
	if u.HW.KeySum() != uint64(u.Net.Size())*ov.hash&(1<<u.HW.KeyBits()-1) {
		return true
	}
	ov.agreed = true
	return false
}
