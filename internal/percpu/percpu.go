// Package percpu keeps a value for each of the Go runtime's processors
// (its Ps), which the goroutine running on a processor uses without a
// locked instruction: it pins itself to the processor (the runtime then
// does not preempt it or move it to another), uses that processor's
// value, and unpins. No other goroutine can use the same value meanwhile,
// since none can run on that processor until it unpins.
//
// sync.Pool keeps a private slot for each processor in the same way, but
// behind a Get and a Put, each pinning the goroutine and looking up the
// pool's share again: some 115 instructions for a value taken and put
// back, against some 25 here (callgrind). A value here stays for the
// life of its Values; a pool's is dropped by the garbage collector.
//
// Under the race detector, which knows nothing of pinning, every
// processor shares one value behind a mutex, so that the detector sees
// each use ordered after the last.
package percpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	_ "unsafe" // go:linkname
)

// procPin and procUnpin are the runtime's pinning, which sync.Pool uses;
// the runtime keeps them for packages outside it (go.dev/issue/67401).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// Values holds a T for each processor, zero until first used. The zero
// Values is ready for use; a Values must not be copied once used.
type Values[T any] struct {
	slots atomic.Pointer[[]*slot[T]]
	grow  sync.Mutex // held while slots is replaced, and under the race detector while a value is in use
}

// slot is one processor's value on cache lines of its own, so that
// processors using their values do not take lines from each other.
type slot[T any] struct {
	_ [64]byte
	v T
	_ [64]byte
}

// Pin pins the calling goroutine to its processor and returns that
// processor's value, for the caller alone until it calls Unpin. Between
// the two the caller must not block (take a lock, wait on a channel,
// sleep, make a system call that waits), and should allocate little:
// the runtime cannot stop the goroutine for the garbage collector while
// it is pinned.
func (v *Values[T]) Pin() *T {
	p := procPin()
	if s := v.slots.Load(); !raceEnabled && s != nil && p < len(*s) {
		return &(*s)[p].v
	}
	return v.pinSlow(p)
}

// pinSlow is Pin where the processor has no slot yet, or under the race
// detector: p is the processor the caller is pinned to.
func (v *Values[T]) pinSlow(p int) *T {
	if raceEnabled {
		procUnpin()
		v.grow.Lock()
		return &v.slot(0).v
	}
	for {
		if s := v.slots.Load(); s != nil && p < len(*s) {
			return &(*s)[p].v
		}
		procUnpin()
		v.slot(runtime.GOMAXPROCS(0) - 1) // more processors than slots: add theirs
		p = procPin()
	}
}

// Unpin ends what Pin began: the value is no longer the caller's.
func (v *Values[T]) Unpin() {
	if raceEnabled {
		v.grow.Unlock()
		return
	}
	procUnpin()
}

// slot returns the slot of processor p, adding slots up to p if there
// are fewer. Under the race detector the caller holds v.grow; otherwise
// it must not.
func (v *Values[T]) slot(p int) *slot[T] {
	if s := v.slots.Load(); s != nil && p < len(*s) {
		return (*s)[p]
	}
	if !raceEnabled {
		v.grow.Lock()
		defer v.grow.Unlock()
	}
	old := v.slots.Load()
	var s []*slot[T]
	if old != nil {
		s = *old
	}
	// The slots already there keep their place, so a goroutine pinned
	// meanwhile to one of them goes on using it.
	for len(s) <= p {
		s = append(s, new(slot[T]))
	}
	v.slots.Store(&s)
	return s[p]
}
