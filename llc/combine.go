package llc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Combining operations done by the target (RMACombine). On a network
// whose target serves one-sided operations in software (Caps.Combine:
// TCP), an operation that reads, combines and writes back bytes of the
// target's memory (MPI's accumulates) travels as one request that the
// target applies, under a ticket lock of its memory, rather than as the
// origin's lock, read, write and release, each a round trip the target
// serves. What the combination is, the network does not know: the
// operation carries a code, and the target applies the Combiner
// registered for the code's family (the code's top byte), as the
// processes' runtime registered it (database/sql's drivers register so).

// Combiner applies the combination named by code to cur, bytes of this
// process's memory, with operand, the bytes the origin sent: cur is
// changed in place. It returns an error, leaving cur as it was, for a
// code it does not know or operands of the wrong length.
type Combiner func(code uint32, cur, operand []byte) error

// MaxCombine is the most bytes one RMACombine combines, and the most
// bytes of its operand: a target takes the whole operand before it
// combines, and a network's largest record (64 KiB over TCP) is a size
// it takes whole already.
const MaxCombine = 64 << 10

var (
	combinersMu sync.RWMutex
	combiners   [256]Combiner
)

// RegisterCombiner makes c apply the codes of family (their top byte).
// It panics if family has a Combiner already, as registering a driver
// twice does: families are fixed by the code that registers them, in an
// init function, the same in every process of a job.
func RegisterCombiner(family uint8, c Combiner) {
	combinersMu.Lock()
	defer combinersMu.Unlock()
	if c == nil || combiners[family] != nil {
		panic(fmt.Sprintf("llc: RegisterCombiner of family %d twice, or nil", family))
	}
	combiners[family] = c
}

// ErrCombine is wrapped by the error of a combination nobody registered.
var ErrCombine = errors.New("no combiner for the code")

// Combine applies code to cur with operand: the Combiner of the code's
// family. A transport that serves RMACombine calls it under the
// operation's lock.
func Combine(code uint32, cur, operand []byte) error {
	c, err := combinerOf(code)
	if err != nil {
		return err
	}
	return c(code, cur, operand)
}

// combinerOf returns the Combiner of code's family.
func combinerOf(code uint32) (Combiner, error) {
	combinersMu.RLock()
	c := combiners[code>>24]
	combinersMu.RUnlock()
	if c == nil {
		return nil, fmt.Errorf("code %#x: %w", code, ErrCombine)
	}
	return c, nil
}

// CombineWords applies code to cur with operand word by word, each
// 8-byte word combined atomically (a compare-and-swap), as the network's
// atomics change those words, and copies the words before into prev, of
// cur's length. cur must lie on 8-byte boundaries; operand is empty (an
// operation that takes none) or of cur's length. A transport that serves
// RMACombine without a lock calls it. The words are read, combined in one
// call and swapped in one by one; a word that changed meanwhile is read
// and combined again alone.
func CombineWords(code uint32, cur, operand, prev []byte) error {
	c, err := combinerOf(code)
	switch {
	case err != nil:
		return err
	case len(cur)%8 != 0 || len(cur) > 0 && uintptr(unsafe.Pointer(&cur[0]))%8 != 0:
		return fmt.Errorf("%d bytes at %p combined word by word: %w", len(cur), unsafe.SliceData(cur), ErrRMAAlign)
	case len(operand) != 0 && len(operand) != len(cur) || len(prev) != len(cur):
		return fmt.Errorf("%d bytes combined word by word with %d of operand, %d for the bytes before", len(cur), len(operand), len(prev))
	}
	for i := 0; i < len(cur); i += 8 {
		binary.LittleEndian.PutUint64(prev[i:], atomic.LoadUint64(wordAt(cur, i)))
	}
	scr := wordScratch.Get().(*[]byte)
	defer wordScratch.Put(scr)
	next := append((*scr)[:0], prev...)
	*scr = next
	if err := c(code, next, operand); err != nil {
		return err
	}
	for i := 0; i < len(cur); i += 8 {
		if !atomic.CompareAndSwapUint64(wordAt(cur, i), binary.LittleEndian.Uint64(prev[i:]), binary.LittleEndian.Uint64(next[i:])) {
			combineWord(c, code, cur, operand, prev, i)
		}
	}
	return nil
}

// wordScratch holds CombineWords' buffers of the combined words.
var wordScratch = sync.Pool{New: func() any { return new([]byte) }}

// wordAt returns the 8-byte word at b[i:].
func wordAt(b []byte, i int) *uint64 { return (*uint64)(unsafe.Pointer(&b[i])) }

// combineWord is CombineWords for the word at cur[i:] alone: it reads the
// word, combines it and swaps it in until no one changed it meanwhile,
// the word before into prev[i:]. The combination succeeded on every word
// once, so it does again.
func combineWord(c Combiner, code uint32, cur, operand, prev []byte, i int) {
	var in []byte
	if len(operand) > 0 {
		in = operand[i : i+8]
	}
	var tmp [8]byte
	for {
		old := atomic.LoadUint64(wordAt(cur, i))
		binary.LittleEndian.PutUint64(tmp[:], old)
		c(code, tmp[:], in)
		if atomic.CompareAndSwapUint64(wordAt(cur, i), old, binary.LittleEndian.Uint64(tmp[:])) {
			binary.LittleEndian.PutUint64(prev[i:], old)
			return
		}
	}
}

// A ticket lock is one 8-byte word of registered memory, taken and
// released with atomic additions, so that processes that reach the word
// by the network's atomics, by their processor's, or as its owner take
// turns, first come first served: the high 32 bits count the tickets
// drawn, the low 32 the ticket being served. A holder draws the next
// ticket (TicketDraw), holds the lock once its ticket is served
// (TicketServed), and releases it by adding TicketRelease.
const TicketDraw = 1 << 32

// TicketOf returns the ticket drawn by the addition of TicketDraw that
// found the lock word old.
func TicketOf(old uint64) uint32 { return uint32(old >> 32) }

// TicketServed reports whether the lock word word serves ticket.
func TicketServed(word uint64, ticket uint32) bool { return uint32(word) == ticket }

// TicketRelease is what releasing the lock held by ticket adds to its
// word: one to the ticket served, in the low 32 bits, and where that
// wraps to 0, minus the carry it makes into the high 32.
func TicketRelease(ticket uint32) uint64 {
	if ticket == math.MaxUint32 {
		return math.MaxUint64 - TicketDraw + 2
	}
	return 1
}

// DrawTicket draws a ticket of the lock whose word is word, by the
// processor's atomics, and returns it.
func DrawTicket(word *uint64) uint32 {
	return TicketOf(atomic.AddUint64(word, TicketDraw) - TicketDraw)
}

// ReleaseTicket releases the lock whose word is word, held by ticket, by
// the processor's atomics.
func ReleaseTicket(word *uint64, ticket uint32) { atomic.AddUint64(word, TicketRelease(ticket)) }
