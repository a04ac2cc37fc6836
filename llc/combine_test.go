package llc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestTicketLockWord plays draws and releases of a ticket lock's word as
// atomic additions make them (modulo 2^64) across the wrap of both
// halves: each holder's draw reads its own ticket served once the
// holders before it released, and the word's halves stay equal when
// nobody holds the lock.
func TestTicketLockWord(t *testing.T) {
	for _, start := range []uint64{0, 0xffff_fffd_ffff_fffd, 0xffff_ffff_ffff_ffff} {
		word := start
		for i := range 6 {
			old := word
			word += TicketDraw
			ticket := TicketOf(old)
			if !TicketServed(old, ticket) {
				t.Fatalf("start %#x, holder %d: ticket %d, serving %d with nobody holding", start, i, ticket, uint32(old))
			}
			// A second process draws while the first holds the lock.
			waiting := TicketOf(word)
			word += TicketDraw
			if TicketServed(word, waiting) {
				t.Fatalf("start %#x, holder %d: ticket %d served while %d holds", start, i, waiting, ticket)
			}
			word += TicketRelease(ticket)
			if !TicketServed(word, waiting) {
				t.Fatalf("start %#x, holder %d: serving %d after the release, want %d", start, i, uint32(word), waiting)
			}
			word += TicketRelease(waiting)
			if uint32(word>>32) != uint32(word) {
				t.Fatalf("start %#x, holder %d: word %#x with nobody holding", start, i, word)
			}
		}
		// DrawTicket and ReleaseTicket make the same additions atomically.
		w := start
		a, b := DrawTicket(&w), DrawTicket(&w)
		if a != TicketOf(start) || b != a+1 || !TicketServed(w, a) || TicketServed(w, b) {
			t.Fatalf("start %#x: drew %d and %d, word %#x", start, a, b, w)
		}
		ReleaseTicket(&w, a)
		if !TicketServed(w, b) {
			t.Fatalf("start %#x: serving %d after the release, want %d", start, uint32(w), b)
		}
		if ReleaseTicket(&w, b); uint32(w>>32) != uint32(w) {
			t.Fatalf("start %#x: word %#x with nobody holding", start, w)
		}
	}
}

// testFamily is the combiners' family this package's tests register:
// code 1 adds the operand's bytes to the target's, code 2 its 8-byte
// words, others fail.
const testFamily = 0xfe

func init() {
	RegisterCombiner(testFamily, func(code uint32, cur, operand []byte) error {
		switch {
		case len(operand) != len(cur):
			return errors.New("not a test operand")
		case code&0xffffff == 1:
			for i := range cur {
				cur[i] += operand[i]
			}
		case code&0xffffff == 2 && len(cur)%8 == 0:
			for i := 0; i < len(cur); i += 8 {
				binary.LittleEndian.PutUint64(cur[i:], binary.LittleEndian.Uint64(cur[i:])+binary.LittleEndian.Uint64(operand[i:]))
			}
		default:
			return errors.New("not a test code")
		}
		return nil
	})
}

// Word by word, each word is combined atomically with respect to the
// processor's atomics on it, and the words before are returned;
// unaligned bytes and operands of another length are refused.
func TestCombineWords(t *testing.T) {
	words := make([]uint64, 4)
	cur := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 32)
	one := make([]byte, 32)
	for i := 0; i < 32; i += 8 {
		one[i] = 1
	}
	const rounds = 20000
	var wg sync.WaitGroup
	wg.Go(func() {
		for range rounds {
			for i := range words {
				atomic.AddUint64(&words[i], 1)
			}
		}
	})
	prev := make([]byte, 32)
	for r := range rounds {
		if err := CombineWords(testFamily<<24|2, cur, one, prev); err != nil {
			t.Fatal(err)
		}
		if r == 0 && binary.LittleEndian.Uint64(prev) > rounds {
			t.Fatalf("first words before %v", prev)
		}
	}
	wg.Wait()
	for i, w := range words {
		if w != 2*rounds {
			t.Fatalf("word %d is %d after %d additions of each kind, want %d", i, w, rounds, 2*rounds)
		}
	}
	for _, c := range []struct {
		cur, operand, prev []byte
		err                error
	}{
		{cur[1:9], one[:8], prev[:8], ErrRMAAlign},
		{cur[:12], one[:12], prev[:12], ErrRMAAlign},
		{cur[:16], one[:8], prev[:16], nil},
		{cur[:16], one[:16], prev[:8], nil},
	} {
		if err := CombineWords(testFamily<<24|2, c.cur, c.operand, c.prev); err == nil || c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("%d bytes, %d of operand, %d before: %v, want refused", len(c.cur), len(c.operand), len(c.prev), err)
		}
	}
	if err := CombineWords(0xfd<<24, cur, one, prev); !errors.Is(err, ErrCombine) {
		t.Errorf("a family nobody registered: %v", err)
	}
}

func TestCombine(t *testing.T) {
	cur := []byte{1, 2, 3}
	if err := Combine(testFamily<<24|1, cur, []byte{10, 20, 30}); err != nil || !bytes.Equal(cur, []byte{11, 22, 33}) {
		t.Fatalf("combined: %v, %v; want [11 22 33]", cur, err)
	}
	if err := Combine(testFamily<<24|3, cur, []byte{1, 1, 1}); err == nil || !bytes.Equal(cur, []byte{11, 22, 33}) {
		t.Fatalf("a code the combiner does not know: %v, %v; want an error and the bytes as they were", cur, err)
	}
	if err := Combine(0xfd<<24|1, cur, []byte{1, 1, 1}); !errors.Is(err, ErrCombine) {
		t.Fatalf("a family nobody registered: %v, want ErrCombine", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a second combiner of one family was taken")
		}
	}()
	RegisterCombiner(testFamily, func(uint32, []byte, []byte) error { return nil })
}

func TestRMACombineCommand(t *testing.T) {
	e := rmaEngine(t, 3)
	data, fetch := []byte("01234567"), make([]byte, 8)
	for i, o := range []RMAOp{
		{Kind: RMACombine, Peer: 1, Region: 7, Off: 16, Limit: 64, Data: data, Code: 5, LockRegion: 9, LockOff: 8},
		{Kind: RMACombine, Peer: 2, Region: 7, Off: 56, Limit: 64, Fetch: fetch, Code: 6, LockRegion: 9, LockOff: 16},
	} {
		e.Submit(&o)
		c := nextCmd(t, e)
		if c.Kind != CmdCombine || c.Peer != o.Peer || c.Region != o.Region || c.Off != o.Off || c.New != uint64(o.Code) ||
			c.Size != int(o.LockRegion) || c.Old != o.LockOff || c.Token == 0 {
			t.Fatalf("%d: command %+v for %+v", i, c, o)
		}
		if len(c.Data) != len(o.Data) || len(c.Result) != len(o.Fetch) || (o.Fetch != nil) != (c.Result != nil) {
			t.Fatalf("%d: command's data %d bytes, result %d; want %d and %d", i, len(c.Data), len(c.Result), len(o.Data), len(o.Fetch))
		}
		e.Step(&Event{Kind: EvDone, Token: c.Token})
		if !o.Done() || o.Err() != nil {
			t.Fatalf("%d after its event: done %v, err %v", i, o.Done(), o.Err())
		}
	}
	if s := e.State().Stats; s.RMACombines != 2 || s.RMABytes != 16 || s.RMAAtomics != 0 {
		t.Fatalf("counters: %d combinations, %d bytes, %d atomics; want 2, 16, 0", s.RMACombines, s.RMABytes, s.RMAAtomics)
	}
}

func TestRMACombineRefused(t *testing.T) {
	e := rmaEngine(t, 2)
	big := make([]byte, MaxCombine+8)
	for _, c := range []struct {
		op   RMAOp
		text string
	}{
		{RMAOp{Kind: RMACombine, Peer: 0, Region: 1, Limit: 64, Data: make([]byte, 8), LockRegion: 2}, "this process itself"},
		{RMAOp{Kind: RMACombine, Peer: 1, Region: 1, Limit: 1 << 20, Data: big, LockRegion: 2}, "1 to 65536 bytes"},
		{RMAOp{Kind: RMACombine, Peer: 1, Region: 1, Limit: 64}, "0 bytes"},
		{RMAOp{Kind: RMACombine, Peer: 1, Region: 1, Limit: 64, Data: make([]byte, 12)}, "word by word"},
		{RMAOp{Kind: RMACombine, Peer: 1, Region: 1, Off: 4, Limit: 64, Data: make([]byte, 8)}, "word by word"},
		{RMAOp{Kind: RMACombine, Peer: 1, Region: 1, Limit: 64, Data: make([]byte, 8), LockRegion: 2, LockOff: 4}, "offset 4"},
		{RMAOp{Kind: RMACombine, Peer: 1, Region: 1, Off: 60, Limit: 64, Fetch: make([]byte, 8), LockRegion: 2}, "8 bytes at offset 60"},
	} {
		e.Submit(&c.op)
		if err := c.op.Err(); !c.op.Done() || err == nil || !strings.Contains(err.Error(), c.text) {
			t.Errorf("done %v, err %v: want refused saying %q", c.op.Done(), err, c.text)
		}
	}
	if c := popCommand(e); c != nil {
		t.Fatalf("refused combinations issued %v", c.Kind)
	}
}
