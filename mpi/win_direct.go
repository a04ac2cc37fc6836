package mpi

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/internal/memcopy"
	"github.com/rhinet-go/martini/llc"
)

// One-sided operations by loads and stores: where the network maps a
// target's window and control words into this process (a process of the
// same host on the martini network, llc.SharedMemory) and runs no timing
// model, Put and Get copy to and from the target's memory, the
// accumulates of 8-byte elements are the processor's atomics on it, the
// others take the target's accumulate lock with those atomics and
// combine in place, and the passive-target locks are taken and released
// by them too. They are what the NIC's PUSH, PULL and atomics do in
// that memory, without the engine, the translator and the NIC's checks
// between (docs/decisions.md, "One-sided operations by loads and
// stores"); each is complete at its target when the call returns, so a
// flush to such targets has nothing to wait for. The control words are
// the same words that the network's atomics change, so that origins of
// other hosts, whose operations go through the network, and these take
// the same locks. Windows of memory the network did not allocate
// (WinCreate, WinCreateDynamic) are not mapped, and under a timing model
// (-profile, virtual time) every operation goes through the model's NIC.

// winDirect is a target's part of the window and its control words,
// mapped into this process.
type winDirect struct {
	mem  []byte // the target's part of the window
	base uint64 // the offset of mem in the target's region (winPlace.off)
	ctl  []byte // the target's control words
}

// mapDirect maps the part and control words of every target that the
// network lets this process load and store, after open (and the layout
// of a shared-memory window) set the targets. A target it cannot map is
// left to the network.
func (w *Win) mapDirect() {
	if w.dyn != nil || w.c.rt.net.Caps().Modelled {
		return
	}
	w.direct = make([]*winDirect, w.c.size)
	all := true
	for t := range w.targets {
		if w.direct[t] = w.mapTarget(t); w.direct[t] == nil {
			all = false
		}
	}
	w.allDirect = all
}

// mapTarget returns target t's part and control words mapped here, or
// nil where the network does not map them (another host's process, a
// network without shared memory) or the part is empty.
func (w *Win) mapTarget(t int) *winDirect {
	tg := &w.targets[t]
	world := w.c.toWorld(t)
	if tg.size == 0 || !w.ep.SharesMemory(tg.peer) || !w.ep.SharesMemory(world) {
		return nil
	}
	var mem, ctl []byte
	switch {
	case w.shared != nil:
		mem = w.shared[t]
	case t == w.c.rank:
		mem = w.mem
	default:
		m, err := w.ep.PeerMemory(tg.peer, tg.region)
		if err != nil || uint64(len(m)) < tg.base+tg.size {
			return nil
		}
		mem = m[tg.base : tg.base+tg.size : tg.base+tg.size]
	}
	if t == w.c.rank {
		ctl = w.ctl.Mem
	} else {
		m, err := w.ep.PeerMemory(world, tg.ctl)
		if err != nil {
			return nil
		}
		ctl = m
	}
	if uint64(len(mem)) != tg.size || len(ctl) < ctlSize(w.c.size) || !aligned8(ctl) || w.native && !aligned8(mem) {
		return nil
	}
	return &winDirect{mem: mem, base: tg.base, ctl: ctl}
}

// aligned8 reports whether b starts on an 8-byte boundary, as the
// processor's atomics on its words need.
func aligned8(b []byte) bool { return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0 }

// directTo returns target's mapping, or nil if its operations go through
// the network (always for a dynamic window, whose places may span
// attachments).
func (w *Win) directTo(target int) *winDirect {
	if w.direct == nil {
		return nil
	}
	return w.direct[target]
}

// bytes returns the n bytes of the part at at, a place span checked.
func (d *winDirect) bytes(at winPlace) []byte {
	i := at.off - d.base
	return d.mem[i : i+at.n : i+at.n]
}

// at returns the n bytes at displacement disp (of elem bytes each) of
// the part, and whether they lie within it: span's check, without the
// place it returns, for the calls that need no more (Put and Get). Where
// they do not, span gives the error.
func (d *winDirect) at(disp, n, elem int) ([]byte, bool) {
	size := uint64(len(d.mem))
	if disp < 0 || uint64(disp) > size/uint64(elem) {
		return nil, false
	}
	off := uint64(disp) * uint64(elem)
	if uint64(n) > size-off {
		return nil, false
	}
	return d.mem[off : off+uint64(n)], true
}

// move copies b into mem, bytes of the part, for a Put, or mem into b for
// a Get.
func (d *winDirect) move(kind llc.RMAKind, mem, b []byte) {
	if kind == llc.RMAPut {
		memcopy.Copy(mem, b)
	} else {
		memcopy.Copy(b, mem)
	}
}

// word returns the word i of the part's bytes at at.
func (d *winDirect) word(at winPlace, i int) *uint64 {
	return (*uint64)(unsafe.Pointer(&d.bytes(at)[i]))
}

// ctlWord returns control word i of the target.
func (d *winDirect) ctlWord(i int) *uint64 {
	return (*uint64)(unsafe.Pointer(&d.ctl[8*i]))
}

// atomicAcc is nativeAcc on a mapped part: each 8-byte element combined
// by the processor's atomics (an add for integer sums, a load for noop, a
// compare-and-swap loop otherwise), the word before into out unless it
// is nil.
func (d *winDirect) atomicAcc(at winPlace, in, out []byte, r *collectives.Reducer, add, noop bool) {
	for i := 0; i < max(len(in), len(out)); i += 8 {
		p := d.word(at, i)
		var old uint64
		switch {
		case noop:
			old = atomic.LoadUint64(p)
		case add:
			v := word(in[i:])
			old = atomic.AddUint64(p, v) - v
		default:
			var cur [8]byte // escapes, through r.Apply, as casLoop's does
			for old = atomic.LoadUint64(p); ; {
				binary.LittleEndian.PutUint64(cur[:], old)
				r.Apply(in[i:i+8], cur[:])
				if atomic.CompareAndSwapUint64(p, old, word(cur[:])) {
					break
				}
				old = atomic.LoadUint64(p)
			}
		}
		if out != nil {
			binary.LittleEndian.PutUint64(out[i:], old)
		}
	}
}

// compareSwap replaces the word at at by value if it equals compare, and
// returns the word before.
func (d *winDirect) compareSwap(at winPlace, compare, value uint64) uint64 {
	return compareSwapWord(d.word(at, 0), compare, value)
}

// compareSwapWord replaces *p by value if it equals compare, and returns
// the word before, as the network's compare-and-swap does.
func compareSwapWord(p *uint64, compare, value uint64) uint64 {
	for {
		old := atomic.LoadUint64(p)
		if old != compare || atomic.CompareAndSwapUint64(p, old, value) {
			return old
		}
	}
}

// ctlAtomic runs kind, a compare-and-swap or a fetch-and-add, on control
// word i of target and returns the word before: the processor's atomic
// on a mapped target, the network's otherwise. The passive-target locks
// take it; PSCW's counters do not, since a process waiting for one
// sleeps until the network's atomic wakes it.
func (w *Win) ctlAtomic(target int, kind llc.RMAKind, i int, compare, operand uint64) (uint64, error) {
	d := w.directTo(target)
	switch {
	case d == nil:
		return w.run(w.ctlOp(target, kind, i, compare, operand))
	case kind == llc.RMAFetchAdd:
		return atomic.AddUint64(d.ctlWord(i), operand) - operand, nil
	}
	return compareSwapWord(d.ctlWord(i), compare, operand), nil
}

// lockedDirect is Win.locked on a mapped part: f runs once, on the bytes at
// at in place, under the target's accumulate lock, taken and released by
// the processor's atomics on the same word as the network's.
func (w *Win) lockedDirect(d *winDirect, at winPlace, f func(cur []byte, pos int) bool) {
	lock := d.ctlWord(ctlAcc)
	ticket := llc.DrawTicket(lock)
	for tries := 0; !llc.TicketServed(atomic.LoadUint64(lock), ticket); tries++ {
		w.backoff(tries)
	}
	f(d.bytes(at), 0)
	llc.ReleaseTicket(lock, ticket)
}
