package nicemu

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/nicemu/takeover"
)

// queueReader consumes a VPUSH queue as its owner does: messages are
// [4-byte length | 4-byte sender | payload], as the test sends them.
type queueReader struct {
	n        *NIC
	mem      []byte
	consumed uint64
}

func (q *queueReader) produced() uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&q.mem[0])))
}

// next returns the next message, if one is published.
func (q *queueReader) next(tb testing.TB) (src int, payload []byte, ok bool) {
	space := q.mem[VPUSHQueueHeader:]
	size := uint64(len(space))
	for q.consumed < q.produced() {
		pos := q.consumed % size
		l := binary.LittleEndian.Uint32(space[pos:])
		if l == VPUSHWrap {
			q.consumed += size - pos
			continue
		}
		src = int(binary.LittleEndian.Uint32(space[pos+4:]))
		payload = append([]byte(nil), space[pos+8:pos+8+uint64(l)]...)
		q.consumed += (8 + uint64(l) + VPUSHAlign - 1) &^ (VPUSHAlign - 1)
		if err := q.n.ReleaseQueue(q.consumed); err != nil {
			tb.Fatal(err)
		}
		return src, payload, true
	}
	return 0, nil, false
}

func vmsg(src int, payload []byte) []byte {
	m := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	m = binary.LittleEndian.AppendUint32(m, uint32(src))
	return append(m, payload...)
}

// TestVPUSH sends messages of growing sizes through a small queue, so
// that it wraps and fills, and checks what the owner reads.
func TestVPUSH(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	_, mem, err := b.AllocQueue(4 * MaxVPUSH)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.AllocQueue(4 * MaxVPUSH); err == nil {
		t.Error("a second queue: no error")
	}
	q := &queueReader{n: b, mem: mem}
	full := 0
	for i := range 40 {
		payload := pattern(i*97%(MaxVPUSH-8), uint64(i))
		err := a.VPush(1, vmsg(0, payload))
		for errors.Is(err, ErrVPUSHFull) {
			full++
			// Consume one message, then send again.
			if _, _, ok := q.next(t); !ok {
				t.Fatalf("message %d: queue full but nothing to consume", i)
			}
			err = a.VPush(1, vmsg(0, payload))
		}
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if full == 0 {
		t.Error("the queue never filled")
	}
	// Drain and check that every message arrived once, in order: the
	// lengths identify them.
	t.Logf("%d sends found the queue full", full)
	c := a.TakeoverCounters()
	// Every packet is taken over at RVA; only those that found room reach
	// the Replier breakpoint.
	if c.Exceptions[takeover.RFend][takeover.CauseRVATLBMiss] != uint64(40+full) || c.BreakpointHits != 40 {
		t.Errorf("takeovers: %d RVATLB misses, %d breakpoints; want %d and 40", c.Exceptions[takeover.RFend][takeover.CauseRVATLBMiss], c.BreakpointHits, 40+full)
	}
	if c.Refusals[takeover.RefusedQueueFull] != uint64(full) {
		t.Errorf("queue-full refusals %d, want %d", c.Refusals[takeover.RefusedQueueFull], full)
	}
}

// TestVPUSHOrder sends from two processes at once into a third's queue;
// the owner sees each sender's messages in order and all of them.
func TestVPUSHOrder(t *testing.T) {
	seg := newSegment(t, testConfig(3))
	owner := openNIC(t, seg, 0)
	_, mem, err := owner.AllocQueue(4 * MaxVPUSH)
	if err != nil {
		t.Fatal(err)
	}
	const count = vpushOrderCount
	var wg sync.WaitGroup
	var stop atomic.Bool
	defer func() { stop.Store(true); wg.Wait() }() // before the segment is closed
	errs := make(chan error, 2)
	for s := 1; s <= 2; s++ {
		n := openNIC(t, seg, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			vpushCounted(n, &stop, errs)
		}()
	}
	q := &queueReader{n: owner, mem: mem}
	readVPUSHInOrder(t, q, errs)
}

// vpushOrderCount is how many messages each sender of TestVPUSHOrder
// sends.
const vpushOrderCount = 300

// vpushCounted sends messages 0 to vpushOrderCount-1 from n to PID 0's
// queue, message i padded by i%8 bytes, retrying while the queue is full
// until stop; any other error goes to errs.
func vpushCounted(n *NIC, stop *atomic.Bool, errs chan<- error) {
	for i := range vpushOrderCount {
		var p [8]byte
		binary.LittleEndian.PutUint64(p[:], uint64(i))
		for {
			err := n.VPush(0, vmsg(n.PID(), append(p[:], make([]byte, i%8)...)))
			if err == nil {
				break
			}
			if !errors.Is(err, ErrVPUSHFull) {
				errs <- err
				return
			}
			if stop.Load() {
				return
			}
		}
	}
}

// readVPUSHInOrder reads both senders' messages from q and checks each
// sender's arrive in order with their lengths, stopping at a sender's
// error or the first failure.
func readVPUSHInOrder(t *testing.T, q *queueReader, errs <-chan error) {
	t.Helper()
	const count = vpushOrderCount
	next := map[int]int{}
	for got := 0; got < 2*count; {
		src, payload, ok := q.next(t)
		if !ok {
			select {
			case err := <-errs:
				t.Fatal(err)
			default:
			}
			continue
		}
		var p [8]byte
		copy(p[:], payload)
		i := int(binary.LittleEndian.Uint64(p[:]))
		if i != next[src] || len(payload) != 8+i%8 {
			t.Errorf("from %d: message %d (%d bytes), want %d", src, i, len(payload), next[src])
		}
		if t.Failed() {
			return
		}
		next[src]++
		got++
	}
}

// TestVPUSHRefused checks the requests the NIC refuses.
func TestVPUSHRefused(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	expectRefused(t, a, ViolationBadSID, OpVPUSH, 1, func() error { return a.VPush(1, []byte("no queue yet")) })
	if _, _, err := b.AllocQueue(3000); err == nil {
		t.Error("a queue of 3000 bytes: no error")
	}
	if _, _, err := b.AllocQueue(4 * MaxVPUSH); err != nil {
		t.Fatal(err)
	}
	expectRefused(t, a, ViolationBadProcess, OpVPUSH, 5, func() error { return a.VPush(5, []byte("x")) })
	expectRefused(t, a, ViolationBadRequest, OpVPUSH, 1, func() error { return a.VPush(1, make([]byte, MaxVPUSH+1)) })
	if err := b.ReleaseQueue(8); err == nil {
		t.Error("release beyond the receive pointer: no error")
	}
	if err := a.ReleaseQueue(0); err == nil {
		t.Error("release without a queue: no error")
	}
}

// TestVPUSHForeignJob: a process of another job cannot VPUSH.
func TestVPUSHForeignJob(t *testing.T) {
	cfg := testConfig(2)
	cfg.ForeignPGID = map[int]uint64{1: 0xbad}
	seg := newSegment(t, cfg)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	if _, _, err := a.AllocQueue(4 * MaxVPUSH); err != nil {
		t.Fatal(err)
	}
	expectRefused(t, b, ViolationForeignJob, OpVPUSH, 0, func() error { return b.VPush(0, []byte("x")) })
}

// TestPATLBTakeover flushes the PATLB of a martini NIC before PUSHes: the
// Initiator's state machine takes each over, HARD or SOFT as selected, and
// the data still lands.
func TestPATLBTakeover(t *testing.T) {
	cfg := testConfig(2)
	cfg.Profile = ProfileMartini
	seg := newSegment(t, cfg)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, mem := mustRegisterSegment(t, b, 4096)
	src := make([]byte, 32)
	for _, mode := range []takeover.ResumeMode{takeover.ModeHard, takeover.ModeSoft} {
		if err := a.SetPATLBMode(mode); err != nil {
			t.Fatal(err)
		}
		before := a.TakeoverCounters()
		a.FlushPATLB()
		fillPattern(src, uint64(mode)+1)
		if err := a.Push(1, sid, 0, src, nil); err != nil {
			t.Fatal(err)
		}
		checkBytes(t, mode.String(), mem[:32], src)
		after := a.TakeoverCounters()
		if d := after.Exceptions[takeover.Initiator][takeover.CausePATLBMiss] - before.Exceptions[takeover.Initiator][takeover.CausePATLBMiss]; d != 1 {
			t.Errorf("%v: %d PATLB misses taken over, want 1", mode, d)
		}
		if d := after.Resumes[mode] - before.Resumes[mode]; d != 1 {
			t.Errorf("%v: %d resumes of that mode, want 1", mode, d)
		}
		var missed bool
		for _, e := range a.LastTakeover() {
			missed = missed || (e.Kind == takeover.EventException && e.Cause == takeover.CausePATLBMiss && e.From == takeover.StateIPA2)
		}
		if !missed {
			t.Errorf("%v: the trace shows no PATLB miss at IPA2", mode)
		}
		// The page is in the PATLB now: the next PUSH is not taken over.
		if err := a.Push(1, sid, 0, src, nil); err != nil {
			t.Fatal(err)
		}
		if d := a.TakeoverCounters().Takeovers - after.Takeovers; d != 0 {
			t.Errorf("%v: %d takeovers of a PUSH whose page hit", mode, d)
		}
	}
	if err := a.SetPATLBMode(7); err == nil {
		t.Error("PATLB mode 7: no error")
	}
}

// TestVirtualQueueRoom checks that in virtual time a sender whose VPUSH
// found the queue full waits for the owner's release as for data: it may
// not send to that queue again until it has taken the release, which
// comes at the owner's clock (1 ns after), however far ahead that is, in
// one step rather than one try after another.
func TestVirtualQueueRoom(t *testing.T) {
	seg := virtualSegment(t, 2, 0)
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	ca, cb := a.Clock(), b.Clock()
	ca.Run()
	cb.Run()
	_, mem, err := b.AllocQueue(2 * MaxVPUSH)
	if err != nil {
		t.Fatal(err)
	}
	cb.Reach(time.Second) // the owner computes far ahead
	msg := vmsg(0, make([]byte, MaxVPUSH/2))
	sent := 0
	for ; sent < 10; sent++ {
		if err = a.VPush(1, msg); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrVPUSHFull) || !errors.Is(err, ErrRoomAnnounced) || a.RoomFor(1) || a.Stats().VPUSHFull != 1 {
		t.Fatalf("after %d messages: %v, room %v, %d refused", sent, err, a.RoomFor(1), a.Stats().VPUSHFull)
	}
	full := ca.Now()
	ca.Waiting(true)
	if f := seg.floor(0); f != math.MaxInt64 {
		t.Fatalf("waiting for room: floor %v", time.Duration(f))
	}
	cb.Look()
	q := &queueReader{n: b, mem: mem}
	if _, _, ok := q.next(t); !ok {
		t.Fatal("owner: no message")
	}
	if f := seg.floor(0); f != int64(full) {
		t.Errorf("after the release: the sender's floor %v, want its clock %v", time.Duration(f), full)
	}
	ca.Look()
	if a.PollRoom() || a.RoomFor(1) {
		t.Fatal("release at 1 s taken while the owner runs at 1 s")
	}
	ca.Waiting(true)
	cb.Waiting(true)
	ca.Look()
	if !a.PollRoom() || !a.RoomFor(1) {
		t.Fatal("release not taken once no process can act before it")
	}
	if want := time.Second + time.Nanosecond; ca.Now() != want {
		t.Errorf("took the release at %v, want %v", ca.Now(), want)
	}
	cb.Stop() // no look of the owner's is to come: the write must not wait for one
	if err := a.VPush(1, msg); err != nil {
		t.Errorf("VPUSH after the release: %v", err)
	}
	if w := atomic.LoadUint64(&seg.roomRegs(1).waiting); w != 0 {
		t.Errorf("%d waiters left", w)
	}
}
