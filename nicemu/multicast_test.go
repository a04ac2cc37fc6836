package nicemu

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mcJob opens every NIC of an nprocs-process segment.
func mcJob(t *testing.T, nprocs int) (*Segment, []*NIC) {
	t.Helper()
	seg := newSegment(t, testConfig(nprocs))
	nics := make([]*NIC, nprocs)
	for p := range nics {
		nics[p] = openNIC(t, seg, p)
	}
	return seg, nics
}

func mustMulticast(t *testing.T, n *NIC, dests []int, tag uint64, data []byte) {
	t.Helper()
	ok, err := n.TryMulticast(dests, tag, data)
	if err != nil || !ok {
		t.Fatalf("PID %d TryMulticast(%v, %d, %d bytes) = %v, %v", n.PID(), dests, tag, len(data), ok, err)
	}
}

// mustDeliver takes the message under tag from root and checks it is want.
func mustDeliver(t *testing.T, n *NIC, root int, tag uint64, want []byte) {
	t.Helper()
	buf := make([]byte, MulticastSize+1)
	l, ok, err := n.TryDeliver(root, tag, buf)
	if err != nil || !ok {
		t.Fatalf("PID %d TryDeliver(%d, %d) = %d, %v, %v; want the message", n.PID(), root, tag, l, ok, err)
	}
	if l != len(want) {
		t.Fatalf("PID %d TryDeliver(%d, %d): length %d, want %d", n.PID(), root, tag, l, len(want))
	}
	checkBytes(t, fmt.Sprintf("PID %d: multicast %d from %d", n.PID(), tag, root), buf[:l], want)
	if i := firstDiff(buf[l:], make([]byte, len(buf)-l)); i >= 0 {
		t.Fatalf("PID %d TryDeliver(%d, %d) wrote past the message", n.PID(), root, tag)
	}
}

func expectNoMessage(t *testing.T, n *NIC, root int, tag uint64) {
	t.Helper()
	if l, ok, err := n.TryDeliver(root, tag, make([]byte, 16)); ok || err != nil {
		t.Fatalf("PID %d TryDeliver(%d, %d) = %d, %v, %v; want no message", n.PID(), root, tag, l, ok, err)
	}
}

// slotsFree checks that every multicast slot of p is free: no pending
// destination and an all-zero bitmap.
func slotsFree(t *testing.T, seg *Segment, p int) {
	t.Helper()
	for s := range MulticastSlots {
		if n := atomic.LoadUint64(&seg.mcMeta(p, s).pending); n != 0 {
			t.Errorf("PID %d slot %d: %d destinations pending", p, s, n)
		}
		for w := range (seg.NProcs() + 63) / 64 {
			if b := atomic.LoadUint64(seg.mcBitmapWord(p, s, w)); b != 0 {
				t.Errorf("PID %d slot %d: bitmap word %d = %#x", p, s, w, b)
			}
		}
	}
}

func TestMulticastSubsets(t *testing.T) {
	const nprocs = 6
	seg, nics := mcJob(t, nprocs)
	sizes := []int{0, 1, 8, 1000, 4096, MulticastSize - 1, MulticastSize}
	subsets := [][]int{{1}, {2, 4}, {5, 1, 3}, {1, 2, 3, 4, 5}, {0, 1, 2, 4, 5}, {0}}
	var tag uint64
	for _, root := range []int{0, 3} {
		for _, dests := range subsets {
			if slices.Contains(dests, root) {
				continue
			}
			for _, size := range sizes {
				tag++
				data := pattern(size, tag)
				before := nics[root].Stats()
				mustMulticast(t, nics[root], dests, tag, data)
				after := nics[root].Stats()
				if after.Multicasts-before.Multicasts != 1 || after.MulticastBytes-before.MulticastBytes != uint64(size) {
					t.Fatalf("Stats: Multicasts +%d, MulticastBytes +%d; want +1, +%d",
						after.Multicasts-before.Multicasts, after.MulticastBytes-before.MulticastBytes, size)
				}
				for p := range nprocs {
					if p == root {
						continue
					}
					if !slices.Contains(dests, p) {
						expectNoMessage(t, nics[p], root, tag)
						continue
					}
					d := nics[p].Stats().Deliveries
					mustDeliver(t, nics[p], root, tag, data)
					expectNoMessage(t, nics[p], root, tag)
					if got := nics[p].Stats().Deliveries; got != d+1 {
						t.Fatalf("PID %d Stats.Deliveries %d -> %d", p, d, got)
					}
				}
				slotsFree(t, seg, root)
			}
		}
	}
	// The other processes' slots were never used.
	for p := range nprocs {
		if s := nics[p].Stats(); p != 0 && p != 3 && s.Multicasts != 0 {
			t.Errorf("PID %d: %d multicasts", p, s.Multicasts)
		}
	}
}

// TestMulticastManyProcs uses a job with a bitmap of several words.
func TestMulticastManyProcs(t *testing.T) {
	const nprocs = 130
	cfg := testConfig(nprocs)
	cfg.HeapSize, cfg.BounceSize = PageSize, PageSize
	seg := newSegment(t, cfg)
	root := openNIC(t, seg, 64)
	dests := []int{0, 63, 65, 127, 128, 129}
	data := pattern(3000, 1)
	mustMulticast(t, root, dests, 9, data)
	if b := atomic.LoadUint64(seg.mcBitmapWord(64, 0, 1)); b != 1<<63|1<<1 {
		t.Errorf("bitmap word 1 = %#x", b)
	}
	for _, p := range []int{0, 1, 62, 63, 64 + 1, 66, 127, 128, 129} {
		n := openNIC(t, seg, p)
		if slices.Contains(dests, p) {
			mustDeliver(t, n, 64, 9, data)
		} else {
			expectNoMessage(t, n, 64, 9)
		}
	}
	slotsFree(t, seg, 64)
}

// TestMulticastSlots checks a multicast takes no slot when all are in
// use, a slot is freed only by its last destination's delivery, and
// concurrent claims take every slot and no more.
func TestMulticastSlots(t *testing.T) {
	seg, nics := mcJob(t, 3)
	n0, n1, n2 := nics[0], nics[1], nics[2]
	a, b, c := pattern(100, 1), pattern(200, 2), pattern(300, 3)
	fillMulticastSlots(t, n0, n2, a, b, c)
	drainMulticastSlots(t, n0, n1, n2, a, b, c)
	slotsFree(t, seg, 0)
	// Concurrent claims: with every slot free, of more goroutines than
	// slots exactly MulticastSlots succeed.
	checkConcurrentSlotClaims(t, n0, n1)
	slotsFree(t, seg, 0)
}

// fillMulticastSlots takes every slot of n0, all but two with messages to
// process 2 (tags 1000...), then a to 1 and 2 and b to 1, and checks a
// further multicast of c finds no slot, without waiting, error or count.
func fillMulticastSlots(t *testing.T, n0, n2 *NIC, a, b, c []byte) {
	t.Helper()
	for s := range MulticastSlots - 2 {
		mustMulticast(t, n0, []int{2}, uint64(1000+s), u64(uint64(s)))
	}
	mustMulticast(t, n0, []int{1, 2}, 1, a)
	mustMulticast(t, n0, []int{1}, 2, b)
	// Every slot taken: no waiting, no error, nothing counted.
	before := n0.Stats()
	if ok, err := n0.TryMulticast([]int{2}, 3, c); ok || err != nil {
		t.Fatalf("TryMulticast with every slot in use = %v, %v; want false, nil", ok, err)
	}
	if s := n0.Stats(); s.Multicasts != before.Multicasts || s.MulticastBytes != before.MulticastBytes {
		t.Errorf("a multicast that found no slot was counted")
	}
	expectNoMessage(t, n2, 0, 3)
}

// drainMulticastSlots delivers fillMulticastSlots's messages: a's slot
// frees only once both its destinations took it, and its reuse for c
// leaves none for another; then every message is delivered.
func drainMulticastSlots(t *testing.T, n0, n1, n2 *NIC, a, b, c []byte) {
	t.Helper()
	// One destination of two taking the message does not free its slot.
	mustDeliver(t, n1, 0, 1, a)
	if ok, err := n0.TryMulticast([]int{2}, 3, c); ok || err != nil {
		t.Fatalf("TryMulticast with a slot still pending = %v, %v", ok, err)
	}
	// The last destination does.
	mustDeliver(t, n2, 0, 1, a)
	mustMulticast(t, n0, []int{2}, 3, c)
	if ok, _ := n0.TryMulticast([]int{1}, 4, a); ok {
		t.Fatalf("third message in flight")
	}
	mustDeliver(t, n1, 0, 2, b)
	mustDeliver(t, n2, 0, 3, c)
	for s := range MulticastSlots - 2 {
		mustDeliver(t, n2, 0, uint64(1000+s), u64(uint64(s)))
	}
}

// checkConcurrentSlotClaims has 2*MulticastSlots goroutines multicast from
// n0 to process 1 at once and checks exactly MulticastSlots succeed and
// n1 receives each of their messages intact.
func checkConcurrentSlotClaims(t *testing.T, n0, n1 *NIC) {
	t.Helper()
	var wins atomic.Int64
	var wg sync.WaitGroup
	for g := range 2 * MulticastSlots {
		wg.Go(func() {
			ok, err := n0.TryMulticast([]int{1}, uint64(100+g), u64(uint64(g)))
			if err != nil {
				t.Errorf("TryMulticast: %v", err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if w := wins.Load(); w != MulticastSlots {
		t.Fatalf("%d concurrent multicasts took a slot, want %d", w, MulticastSlots)
	}
	got := 0
	for g := range 2 * MulticastSlots {
		buf := make([]byte, 8)
		if _, ok, _ := n1.TryDeliver(0, uint64(100+g), buf); ok {
			got++
			if binary.LittleEndian.Uint64(buf) != uint64(g) {
				t.Errorf("message %d carries %d", 100+g, binary.LittleEndian.Uint64(buf))
			}
		}
	}
	if got != MulticastSlots {
		t.Errorf("%d messages delivered, want %d", got, MulticastSlots)
	}
}

func TestMulticastTags(t *testing.T) {
	seg, nics := mcJob(t, 3)
	n0, n1, n2 := nics[0], nics[1], nics[2]
	x, y := pattern(64, 7), pattern(65, 8)
	mustMulticast(t, n0, []int{1, 2}, 7, x)
	mustMulticast(t, n0, []int{1, 2}, 8, y)
	// Each destination asks for the tag it wants, in either order.
	expectNoMessage(t, n1, 0, 9)
	mustDeliver(t, n1, 0, 8, y)
	mustDeliver(t, n1, 0, 7, x)
	mustDeliver(t, n2, 0, 7, x)
	mustDeliver(t, n2, 0, 8, y)
	slotsFree(t, seg, 0)

	// Messages under one tag arrive in posting order, whatever slots they
	// are in: A goes to slot 0 and B to slot 1; slot 0 is freed and
	// reused by C, so slot 0 holds a later message than slot 1.
	a, b, c := pattern(10, 1), pattern(20, 2), pattern(30, 3)
	mustMulticast(t, n0, []int{1, 2}, 5, a)
	mustMulticast(t, n0, []int{1, 2}, 5, b)
	mustDeliver(t, n1, 0, 5, a)
	mustDeliver(t, n2, 0, 5, a)
	mustMulticast(t, n0, []int{1, 2}, 5, c)
	if m := seg.mcMeta(0, 0); atomic.LoadUint64(&m.seq) <= atomic.LoadUint64(&seg.mcMeta(0, 1).seq) {
		t.Fatalf("the scenario did not put the later message in slot 0")
	}
	for _, n := range []*NIC{n1, n2} {
		mustDeliver(t, n, 0, 5, b)
		mustDeliver(t, n, 0, 5, c)
		expectNoMessage(t, n, 0, 5)
	}
	slotsFree(t, seg, 0)
}

func TestMulticastTruncation(t *testing.T) {
	seg, nics := mcJob(t, 2)
	data := pattern(1000, 4)
	mustMulticast(t, nics[1], []int{0}, 1, data)
	mem := make([]byte, 200)
	buf := mem[50:150]
	l, ok, err := nics[0].TryDeliver(1, 1, buf)
	if err != nil || !ok || l != 1000 {
		t.Fatalf("TryDeliver into 100 bytes = %d, %v, %v; want 1000, true", l, ok, err)
	}
	checkBytes(t, "truncated message", buf, data[:100])
	if i := firstDiff(mem[:50], make([]byte, 50)); i >= 0 {
		t.Errorf("TryDeliver wrote before the buffer")
	}
	if i := firstDiff(mem[150:], make([]byte, 50)); i >= 0 {
		t.Errorf("TryDeliver wrote past the buffer")
	}
	// The message is consumed and its slot free.
	expectNoMessage(t, nics[0], 1, 1)
	slotsFree(t, seg, 1)
	// A nil buffer takes the message and reports its length.
	mustMulticast(t, nics[1], []int{0}, 2, data[:333])
	if l, ok, err := nics[0].TryDeliver(1, 2, nil); err != nil || !ok || l != 333 {
		t.Fatalf("TryDeliver into nil = %d, %v, %v; want 333, true", l, ok, err)
	}
	slotsFree(t, seg, 1)
	// No destinations: nothing to do.
	if ok, err := nics[1].TryMulticast(nil, 3, data); !ok || err != nil {
		t.Fatalf("TryMulticast to nobody = %v, %v; want true, nil", ok, err)
	}
	if s := nics[1].Stats(); s.Multicasts != 2 {
		t.Errorf("Stats.Multicasts = %d, want 2", s.Multicasts)
	}
	slotsFree(t, seg, 1)
}

// TestMulticastDoorbell checks that a multicast rings its sleeping
// destinations and that the last delivery rings the sleeping sender.
func TestMulticastDoorbell(t *testing.T) {
	seg, nics := mcJob(t, 3)
	n0, n1, n2 := nics[0], nics[1], nics[2]
	seen1 := n1.ArmDoorbell() // n1 sleeps, n2 polls
	before := n0.Stats()
	mustMulticast(t, n0, []int{1, 2}, 1, []byte("wake up"))
	if d := n0.Stats().Wakeups - before.Wakeups; d != 1 {
		t.Errorf("multicast to one sleeping and one polling destination counted %d wake-ups, want 1", d)
	}
	start := time.Now()
	n1.WaitDoorbell(seen1, 5*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the multicast did not ring the sleeping destination (slept %v)", d)
	}
	// The sender sleeps until its slot frees.
	seen0 := n0.ArmDoorbell()
	mustDeliver(t, n1, 0, 1, []byte("wake up"))
	if w := n1.Stats().Wakeups; w != 0 {
		t.Errorf("a delivery that left a destination pending rang %d doorbells", w)
	}
	mustDeliver(t, n2, 0, 1, []byte("wake up"))
	if w := n2.Stats().Wakeups; w != 1 {
		t.Errorf("the last delivery rang %d doorbells, want 1 (the sleeping sender)", w)
	}
	start = time.Now()
	n0.WaitDoorbell(seen0, 5*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the last delivery did not ring the sleeping sender (slept %v)", d)
	}
	slotsFree(t, seg, 0)
}

func TestMulticastProtection(t *testing.T) {
	cfg := testConfig(3)
	cfg.ForeignPGID = map[int]uint64{2: foreignPGID}
	seg := newSegment(t, cfg)
	n0, n1, foreign := openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)
	data := pattern(10, 1)
	multicast := func(n *NIC, dests []int, data []byte) func() error {
		return func() error {
			ok, err := n.TryMulticast(dests, 1, data)
			if ok {
				t.Errorf("refused multicast reported success")
			}
			return err
		}
	}
	deliver := func(n *NIC, root int) func() error {
		return func() error {
			_, ok, err := n.TryDeliver(root, 1, make([]byte, 10))
			if ok {
				t.Errorf("refused delivery reported a message")
			}
			return err
		}
	}
	for _, bad := range []int{-1, 3, 1 << 40} {
		expectSyncRefused(t, n0, ViolationBadProcess, OpMulticast, bad, multicast(n0, []int{1, bad}, data))
		expectSyncRefused(t, n0, ViolationBadProcess, OpDeliver, bad, deliver(n0, bad))
	}
	expectSyncRefused(t, n0, ViolationForeignJob, OpMulticast, 2, multicast(n0, []int{1, 2}, data))
	expectSyncRefused(t, foreign, ViolationForeignJob, OpMulticast, 0, multicast(foreign, []int{0}, data))
	expectSyncRefused(t, n0, ViolationForeignJob, OpDeliver, 2, deliver(n0, 2))
	expectSyncRefused(t, foreign, ViolationForeignJob, OpDeliver, 1, deliver(foreign, 1))
	expectSyncRefused(t, n0, ViolationBadRequest, OpMulticast, 0, multicast(n0, []int{1, 0}, data))
	expectSyncRefused(t, n0, ViolationBadRequest, OpMulticast, 1, multicast(n0, []int{1, 1}, data))
	expectSyncRefused(t, n0, ViolationBadRequest, OpDeliver, 0, deliver(n0, 0))
	ae := expectSyncRefused(t, n0, ViolationBadRequest, OpMulticast, -1, multicast(n0, []int{1}, make([]byte, MulticastSize+1)))
	if ae.Length != MulticastSize+1 {
		t.Errorf("oversized multicast refusal: %+v", ae)
	}
	// Nothing was posted: both slots are free.
	slotsFree(t, seg, 0)
	mustMulticast(t, n0, []int{1}, 1, data)
	mustMulticast(t, n0, []int{1}, 2, data)
	mustDeliver(t, n1, 0, 1, data)
	mustDeliver(t, n1, 0, 2, data)
	slotsFree(t, seg, 2)
}

// The streams of TestMulticastConcurrent: mcSenders goroutines of the root
// each multicast mcPerSender messages.
const mcSenders, mcPerSender = 4, 150

// mcStreamMsg is message i of stream s: 0, 8, 100 or 5000 bytes.
func mcStreamMsg(s, i int) []byte {
	return pattern([]int{0, 8, 100, 5000}[(s+i)%4], uint64(s)<<32|uint64(i))
}

// mcStreamTag is the tag of message i of stream s.
func mcStreamTag(s, i int) uint64 { return uint64(s)<<32 | uint64(i) }

// TestMulticastConcurrent has several goroutines of one NIC multicast
// streams of messages (tags ordered per stream) to three processes, one of
// which receives with two goroutines competing for the same messages.
func TestMulticastConcurrent(t *testing.T) {
	seg, nics := mcJob(t, 4)
	root := nics[0]
	dests := []int{1, 2, 3}
	var wg sync.WaitGroup
	startMulticastStreams(t, &wg, root, dests)
	startInOrderReceivers(t, &wg, nics)
	var taken [mcSenders][mcPerSender]atomic.Int32
	startCompetingReceivers(t, &wg, nics[3], &taken)
	wg.Wait()
	checkTakenOnce(t, &taken)
	checkStreamCounts(t, root, nics)
	slotsFree(t, seg, 0)
}

// startMulticastStreams starts a goroutine per stream that multicasts its
// messages from root to dests in order.
func startMulticastStreams(t *testing.T, wg *sync.WaitGroup, root *NIC, dests []int) {
	t.Helper()
	for s := range mcSenders {
		wg.Go(func() {
			for i := range mcPerSender {
				var err error
				if !awaitSync(root, 30*time.Second, func() bool {
					var ok bool
					ok, err = root.TryMulticast(dests, mcStreamTag(s, i), mcStreamMsg(s, i))
					return ok || err != nil
				}) || err != nil {
					t.Errorf("sender %d message %d: %v", s, i, err)
					return
				}
			}
		})
	}
}

// startInOrderReceivers starts, at processes 1 and 2, a goroutine per stream
// that takes its tags in order and checks their content.
func startInOrderReceivers(t *testing.T, wg *sync.WaitGroup, nics []*NIC) {
	t.Helper()
	for _, p := range []int{1, 2} {
		for s := range mcSenders {
			wg.Go(func() {
				n := nics[p]
				buf := make([]byte, 8192)
				for i := range mcPerSender {
					var l int
					var ok bool
					var err error
					if !awaitSync(n, 30*time.Second, func() bool {
						l, ok, err = n.TryDeliver(0, mcStreamTag(s, i), buf)
						return ok || err != nil
					}) || err != nil {
						t.Errorf("PID %d stream %d message %d never delivered: %v", p, s, i, err)
						return
					}
					if !slices.Equal(buf[:l], mcStreamMsg(s, i)) {
						t.Errorf("PID %d stream %d message %d: wrong content", p, s, i)
						return
					}
				}
			})
		}
	}
}

// startCompetingReceivers starts, at process 3 (n), two goroutines per
// stream that compete for its messages, counting in taken each message
// either takes and checking its content.
func startCompetingReceivers(t *testing.T, wg *sync.WaitGroup, n *NIC, taken *[mcSenders][mcPerSender]atomic.Int32) {
	t.Helper()
	for s := range mcSenders {
		var next atomic.Int64
		for range 2 {
			wg.Go(func() {
				buf := make([]byte, 8192)
				for {
					i := int(next.Add(1) - 1)
					if i >= mcPerSender {
						return
					}
					var l int
					var ok bool
					var err error
					if !awaitSync(n, 30*time.Second, func() bool {
						l, ok, err = n.TryDeliver(0, mcStreamTag(s, i), buf)
						return ok || err != nil
					}) || err != nil {
						t.Errorf("PID 3 stream %d message %d never delivered: %v", s, i, err)
						return
					}
					if taken[s][i].Add(1) > 1 {
						t.Errorf("PID 3 took stream %d message %d twice", s, i)
						return
					}
					if !slices.Equal(buf[:l], mcStreamMsg(s, i)) {
						t.Errorf("PID 3 stream %d message %d: wrong content", s, i)
						return
					}
				}
			})
		}
	}
}

// checkTakenOnce checks that each message went to exactly one of process
// 3's competing goroutines.
func checkTakenOnce(t *testing.T, taken *[mcSenders][mcPerSender]atomic.Int32) {
	t.Helper()
	for s := range mcSenders {
		for i := range mcPerSender {
			if n := taken[s][i].Load(); n != 1 {
				t.Errorf("PID 3 took stream %d message %d %d times", s, i, n)
			}
		}
	}
}

// checkStreamCounts checks that the root counted every multicast and each
// destination every delivery.
func checkStreamCounts(t *testing.T, root *NIC, nics []*NIC) {
	t.Helper()
	if s := root.Stats(); s.Multicasts != mcSenders*mcPerSender {
		t.Errorf("Stats.Multicasts = %d, want %d", s.Multicasts, mcSenders*mcPerSender)
	}
	for p := 1; p <= 3; p++ {
		if d := nics[p].Stats().Deliveries; d != mcSenders*mcPerSender {
			t.Errorf("PID %d Stats.Deliveries = %d, want %d", p, d, mcSenders*mcPerSender)
		}
	}
}

// TestMulticastSameTagCompeting has two goroutines of one process take
// messages that all carry the same tag: each is delivered once.
func TestMulticastSameTagCompeting(t *testing.T) {
	const count = sameTagCount
	seg, nics := mcJob(t, 2)
	var wg sync.WaitGroup
	wg.Go(func() { sendSameTag(t, nics[0]) })
	var got [count]atomic.Int32
	var left atomic.Int64
	left.Store(count)
	for range 2 {
		wg.Go(func() { deliverSameTag(t, nics[1], &got, &left) })
	}
	wg.Wait()
	for i := range count {
		if n := got[i].Load(); n != 1 {
			t.Errorf("message %d delivered %d times", i, n)
		}
	}
	slotsFree(t, seg, 0)
}

// sameTagCount is how many messages TestMulticastSameTagCompeting sends.
const sameTagCount = 400

// sendSameTag multicasts messages 0 to sameTagCount-1 from n to process 1,
// all with tag 42, waiting up to 30 s for a slot for each.
func sendSameTag(t *testing.T, n *NIC) {
	t.Helper()
	for i := range sameTagCount {
		if !awaitSync(n, 30*time.Second, func() bool {
			ok, err := n.TryMulticast([]int{1}, 42, u64(uint64(i)))
			if err != nil {
				t.Error(err)
			}
			return ok || err != nil
		}) {
			t.Errorf("message %d: no slot", i)
			return
		}
	}
}

// deliverSameTag takes tag 42 messages from process 0 through n, counting
// each in got and left, until none is left, checking none is delivered
// twice and none waits 30 s.
func deliverSameTag(t *testing.T, n *NIC, got *[sameTagCount]atomic.Int32, left *atomic.Int64) {
	t.Helper()
	buf := make([]byte, 8)
	for {
		var l int
		var ok bool
		var err error
		awaitSync(n, 30*time.Second, func() bool {
			l, ok, err = n.TryDeliver(0, 42, buf)
			return ok || err != nil || left.Load() <= 0
		})
		if err != nil || (ok && l != 8) {
			t.Errorf("TryDeliver = %d, %v, %v", l, ok, err)
			return
		}
		if !ok {
			if left.Load() != 0 {
				t.Errorf("no message for 30 s with %d left", left.Load())
			}
			return
		}
		i := int(binary.LittleEndian.Uint64(buf))
		if i < 0 || i >= sameTagCount {
			t.Errorf("message carries %d", i)
			return
		}
		if got[i].Add(1) > 1 {
			t.Errorf("message %d delivered twice", i)
			return
		}
		left.Add(-1)
	}
}
