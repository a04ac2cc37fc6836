package nicemu

import (
	"encoding/binary"
	"math"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// TestVirtualRingRoom checks that in virtual time a sender whose PULL of a
// ring's consumer count found it unchanged waits for the owner's next
// publication of that count as for data: the publication of another
// sender's ring and a release of VPUSH room do not wake it, the one of its
// ring does, and it takes it at the owner's clock (1 ns after), however
// far ahead that is, in one step.
func TestVirtualRingRoom(t *testing.T) {
	seg := virtualSegment(t, 3, 0)
	a, b, c := openNIC(t, seg, 0), openNIC(t, seg, 1), openNIC(t, seg, 2)
	ca, cb, cc := a.Clock(), b.Clock(), c.Clock()
	ca.Run()
	cb.Run()
	cc.Stop() // the third process only owns a ring: it takes no part
	sid, mem := mustRegisterSegment(t, b, 4096)
	count := (*uint64)(unsafe.Pointer(&mem[0]))
	if _, _, err := b.AllocQueue(2 * MaxVPUSH); err != nil {
		t.Fatal(err)
	}
	cb.Reach(time.Second) // the owner computes far ahead
	read := startRingWait(t, seg, a, ca, sid)
	cb.Look()
	checkOnlyOwnRingWakes(t, seg, a, b, count, read)
	checkPublicationTaken(t, seg, a, ca, cb)
	checkMissedPublication(t, a, ca, sid)
}

// startRingWait has a pull PID 1's ring count at sid and wait for its
// next publication, checking only a word of the owner's segment memory
// can be waited on and the wait stops a's floor; it returns a's clock at
// the wait.
func startRingWait(t *testing.T, seg *Segment, a *NIC, ca *Clock, sid SID) (read time.Duration) {
	t.Helper()
	buf := make([]byte, 8)
	if err := a.Pull(1, sid, 0, buf, nil); err != nil {
		t.Fatal(err)
	}
	seen := binary.LittleEndian.Uint64(buf)
	if a.RingWaiting(1) || !a.AwaitRing(1, sid, 0, seen) || !a.RingWaiting(1) || a.RingWaiting(2) {
		t.Fatal("the sender does not wait for the owner's publication")
	}
	if a.AwaitRing(1, sid, 4093, seen) || a.AwaitRing(1, sid+100, 0, seen) {
		t.Fatal("a wait for a word that is not the owner's segment memory")
	}
	read = ca.Now()
	ca.Waiting(true)
	if f := seg.floor(0); f != math.MaxInt64 {
		t.Fatalf("waiting for the count: floor %v", time.Duration(f))
	}
	return read
}

// checkOnlyOwnRingWakes: a release of b's VPUSH queue and the publication
// of another sender's ring leave a waiting; publishing a's ring with a
// new count brings a's floor back to its clock at read.
func checkOnlyOwnRingWakes(t *testing.T, seg *Segment, a, b *NIC, count *uint64, read time.Duration) {
	t.Helper()
	// Neither a release of the owner's VPUSH queue nor the publication of
	// another sender's ring wakes the sender.
	if err := b.ReleaseQueue(0); err != nil {
		t.Fatal(err)
	}
	b.PublishedRing(2)
	if f := seg.floor(0); f != math.MaxInt64 || a.PollRings() {
		t.Fatalf("woken by another publication: floor %v", time.Duration(f))
	}
	atomic.StoreUint64(count, 2048)
	b.PublishedRing(0)
	if f := seg.floor(0); f != int64(read) {
		t.Errorf("after the publication: the sender's floor %v, want its clock %v", time.Duration(f), read)
	}
}

// checkPublicationTaken: a takes the publication only once neither it nor
// the owner can act before it, at the owner's clock plus 1 ns, leaving no
// waiter or slot held in PID 1's room registers.
func checkPublicationTaken(t *testing.T, seg *Segment, a *NIC, ca, cb *Clock) {
	t.Helper()
	ca.Look()
	if a.PollRings() || !a.RingWaiting(1) {
		t.Fatal("publication at 1 s taken while the owner runs at 1 s")
	}
	ca.Waiting(true)
	cb.Waiting(true)
	ca.Look()
	if !a.PollRings() || a.RingWaiting(1) {
		t.Fatal("publication not taken once no process can act before it")
	}
	if want := time.Second + time.Nanosecond; ca.Now() != want {
		t.Errorf("took the publication at %v, want %v", ca.Now(), want)
	}
	rr := seg.roomRegs(1)
	if w := atomic.LoadUint64(&rr.waiting); w != 0 {
		t.Errorf("%d waiters left", w)
	}
	for i := range rr.slot {
		if who := atomic.LoadUint64(&rr.slot[i].who); who != 0 {
			t.Errorf("slot %d still held: %#x", i, who)
		}
	}
}

// checkMissedPublication: a count published between the sender's read
// and its registration (here: the sender registers with a count it read
// before) is taken at once, at the owner's last publication or the
// sender's clock, and counted as missed.
func checkMissedPublication(t *testing.T, a *NIC, ca *Clock, sid SID) {
	t.Helper()
	ca.Run()
	if !a.AwaitRing(1, sid, 0, 0) || !a.PollRings() || a.RingWaiting(1) {
		t.Fatal("a count published before the registration is not taken")
	}
	if want := time.Second + time.Nanosecond; ca.Now() != want {
		t.Errorf("after a missed publication: clock %v, want %v", ca.Now(), want)
	}
	if st := a.Stats(); st.RingWaits != 2 || st.RingMissed != 1 {
		t.Errorf("%d waits, %d publications missed; want 2 and 1", st.RingWaits, st.RingMissed)
	}
}

// TestRingRoomReal: in real time nothing waits for a publication, and
// publishing costs nothing.
func TestRingRoomReal(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	a, b := openNIC(t, seg, 0), openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, b, 4096)
	if a.AwaitRing(1, sid, 0, 0) || a.RingWaiting(1) || a.PollRings() {
		t.Fatal("a wait for a publication in real time")
	}
	b.PublishedRing(0)
}
