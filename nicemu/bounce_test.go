package nicemu

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// servicer plays the target process: it runs n.Service in a goroutine,
// sleeping on n's doorbell when there is nothing to do, until halt.
//
// Service copies into the target's Go memory, and the initiator learns of it
// through atomics on the shared mapping, which the race detector does not
// see (they are outside the Go heap). Tests therefore read the target's
// memory only after halt, whose channel receive orders them after Service.
type servicer struct {
	n          *NIC
	stop, done chan struct{}
}

func serve(n *NIC) *servicer {
	s := &servicer{n: n, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			if n.Service() {
				continue
			}
			seen := n.ArmDoorbell()
			if n.Service() {
				n.DisarmDoorbell()
				continue
			}
			n.WaitDoorbell(seen, 2*time.Millisecond)
		}
	}()
	return s
}

func (s *servicer) halt() {
	close(s.stop)
	<-s.done
}

// bounceJob opens a job whose NICs may not use cross-memory attach.
func bounceJob(t *testing.T, nprocs, bounceSize int) (*Segment, []*NIC) {
	t.Setenv("MARTINI_NO_CMA", "1")
	cfg := testConfig(nprocs)
	cfg.BounceSize = bounceSize
	seg := newSegment(t, cfg)
	nics := make([]*NIC, nprocs)
	for p := range nprocs {
		nics[p] = openNIC(t, seg, p)
		if nics[p].CMA() {
			t.Fatalf("MARTINI_NO_CMA=1 but PID %d uses CMA", p)
		}
	}
	return seg, nics
}

// TestBounce pushes and pulls each transfer size, aligned and not,
// through the target's bounce buffer.
func TestBounce(t *testing.T) {
	const bs = 4096
	_, nics := bounceJob(t, 2, bs)
	n0, n1 := nics[0], nics[1]
	region := make([]byte, 1<<20+bs)
	sid := mustRegisterMemory(t, n1, region)
	for _, size := range append(transferSizes, bs-1, bs+1, 3*bs+5) {
		for _, off := range []uint64{0, 5} {
			t.Run(fmt.Sprintf("%d@%d", size, off), func(t *testing.T) {
				chunks := uint64((size + bs - 1) / bs)
				clear(region)
				mid, tmid := checkBouncedPush(t, n0, n1, sid, region, off, size, chunks)
				checkBouncedPull(t, n0, n1, sid, region, off, size, chunks, mid, tmid)
			})
		}
	}
}

// checkBouncedPush pushes size bytes at off of n1's region, served by n1
// in chunks bounces, and checks the data and n0's and n1's statistics,
// which it returns.
func checkBouncedPush(t *testing.T, n0, n1 *NIC, sid SID, region []byte, off uint64, size int, chunks uint64) (mid, tmid Stats) {
	t.Helper()
	src := pattern(size, uint64(size)+off)
	before, tbefore := n0.Stats(), n1.Stats()
	s := serve(n1)
	var ack uint64
	err := n0.Push(1, sid, off, src, &ack)
	s.halt()
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	if ack != 1 {
		t.Errorf("ack flag not set")
	}
	checkBytes(t, "bounced PUSH", region[off:off+uint64(size)], src)
	if firstDiff(region[:off], make([]byte, off)) >= 0 || region[off+uint64(size)] != 0 {
		t.Errorf("PUSH wrote outside its range")
	}
	mid, tmid = n0.Stats(), n1.Stats()
	checkBounceCounters(t, before, mid, tbefore, tmid, size, chunks)
	if d := mid.Push - before.Push; d != 1 {
		t.Errorf("Stats.Push +%d, want +1", d)
	}
	if d := mid.Packets - before.Packets; d != packetsFor(size) {
		t.Errorf("Stats.Packets +%d, want +%d", d, packetsFor(size))
	}
	if mid.CMAOps != 0 || mid.SegmentOps != 0 {
		t.Errorf("CMAOps %d SegmentOps %d", mid.CMAOps, mid.SegmentOps)
	}
	return mid, tmid
}

// checkBouncedPull pulls size bytes back from off of n1's region and
// checks the data, the statistics since mid and tmid, and that n1's
// mailbox is left idle.
func checkBouncedPull(t *testing.T, n0, n1 *NIC, sid SID, region []byte, off uint64, size int, chunks uint64, mid, tmid Stats) {
	t.Helper()
	want := pattern(size, 7777)
	copy(region[off:], want)
	got := make([]byte, size)
	var done uint64
	s := serve(n1)
	err := n0.Pull(1, sid, off, got, &done)
	s.halt()
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if done != 1 {
		t.Errorf("done flag not set")
	}
	checkBytes(t, "bounced PULL", got, want)
	after, tafter := n0.Stats(), n1.Stats()
	checkBounceCounters(t, mid, after, tmid, tafter, size, chunks)
	if d := after.Pull - mid.Pull; d != 1 || after.PullBytes-mid.PullBytes != uint64(size) {
		t.Errorf("Stats.Pull +%d PullBytes +%d", d, after.PullBytes-mid.PullBytes)
	}
	if after.CMAOps != 0 {
		t.Errorf("CMAOps %d", after.CMAOps)
	}
	box := n1.box
	if l, st := atomic.LoadUint64(&box.lock), atomic.LoadUint64(&box.state); l != 0 || st != boxIdle {
		t.Errorf("mailbox left locked %d / state %d", l, st)
	}
}

// TestBounceSegmentMemory: without CMA, segment memory is still reached
// directly, with no bounce.
func TestBounceSegmentMemory(t *testing.T) {
	_, nics := bounceJob(t, 2, PageSize)
	sid, mem := mustRegisterSegment(t, nics[1], 3*PageSize)
	src := pattern(3*PageSize, 1)
	if err := nics[0].Push(1, sid, 0, src, nil); err != nil {
		t.Fatal(err)
	}
	checkBytes(t, "segment memory", mem, src)
	if st := nics[0].Stats(); st.BounceOps != 0 || st.SegmentOps != 1 {
		t.Errorf("BounceOps %d SegmentOps %d", st.BounceOps, st.SegmentOps)
	}
}

// TestBounceBothWays: two processes bounce into each other at the same
// time, each waiting for the other to serve: waiting serves one's own
// mailbox, so neither blocks the other. A third process meanwhile competes
// for PID 1's mailbox.
func TestBounceBothWays(t *testing.T) {
	const bs, size, rounds = bothWaysBS, bothWaysSize, bothWaysRounds
	_, nics := bounceJob(t, 3, bs)
	regions := make([][]byte, 3)
	sids := make([]SID, 3)
	for p := range 3 {
		regions[p] = make([]byte, 3*size)
		sids[p] = mustRegisterMemory(t, nics[p], regions[p])
	}
	// PID 0 pushes into PID 1's first third, PID 1 into PID 0's first
	// third, PID 2 into PID 1's second third, and PID 2 pulls PID 0's last
	// third. Nobody runs a separate servicer.
	fillPattern(regions[0][2*size:], 3)
	want0 := slices.Clone(regions[0][2*size:])
	pulled := make([]byte, size)
	runBothWays(t, nics, sids, pulled)
	if t.Failed() {
		return
	}
	checkBothWays(t, nics, regions, pulled, want0)
}

// TestBounceBothWays's bounce buffer size, transfer size and rounds.
const bothWaysBS, bothWaysSize, bothWaysRounds = 4096, 3*4096 + 5, 20

// runBothWays runs TestBounceBothWays's three processes' rounds at once,
// each serving the others once done until all are, and reports their
// errors, or that they did not finish in 20 s.
func runBothWays(t *testing.T, nics []*NIC, sids []SID, pulled []byte) {
	t.Helper()
	const size, rounds = bothWaysSize, bothWaysRounds
	var transfers, serving sync.WaitGroup
	errs := make(chan error, 3)
	done := make(chan struct{})
	run := func(p int, f func(i int) error) {
		transfers.Add(1)
		serving.Go(func() {
			for i := range rounds {
				if err := f(i); err != nil {
					errs <- fmt.Errorf("PID %d round %d: %w", p, i, err)
					break
				}
			}
			transfers.Done()
			// Keep serving the others until everyone is done.
			for {
				select {
				case <-done:
					return
				default:
				}
				if !nics[p].Service() {
					yield()
				}
			}
		})
	}
	run(0, func(i int) error { return nics[0].Push(1, sids[1], 0, pattern(size, uint64(i)), nil) })
	run(1, func(i int) error { return nics[1].Push(0, sids[0], 0, pattern(size, uint64(100+i)), nil) })
	run(2, func(i int) error {
		if err := nics[2].Push(1, sids[1], size, pattern(size, uint64(200+i)), nil); err != nil {
			return err
		}
		return nics[2].Pull(0, sids[0], 2*size, pulled, nil)
	})
	finished := make(chan struct{})
	go func() {
		transfers.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(20 * time.Second):
		t.Error("transfers did not complete in 20 s")
	}
	close(done)
	serving.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// checkBothWays checks each region holds its last round's data, PID 2
// pulled want0, and every transfer bounced and was served.
func checkBothWays(t *testing.T, nics []*NIC, regions [][]byte, pulled, want0 []byte) {
	t.Helper()
	const bs, size, rounds = bothWaysBS, bothWaysSize, bothWaysRounds
	checkBytes(t, "PID 1's first third", regions[1][:size], pattern(size, rounds-1))
	checkBytes(t, "PID 0's first third", regions[0][:size], pattern(size, 100+rounds-1))
	checkBytes(t, "PID 1's second third", regions[1][size:2*size], pattern(size, 200+rounds-1))
	checkBytes(t, "PID 2's pull", pulled, want0)
	chunks := uint64(rounds * ((size + bs - 1) / bs))
	for p, want := range []uint64{chunks, chunks, 2 * chunks} {
		if st := nics[p].Stats(); st.BounceOps != want || st.CMAOps != 0 {
			t.Errorf("PID %d: BounceOps %d (want %d), CMAOps %d", p, st.BounceOps, want, st.CMAOps)
		}
	}
	if served := nics[0].Stats().Served + nics[1].Stats().Served; served != 4*chunks {
		t.Errorf("served %d bounce requests, want %d", served, 4*chunks)
	}
}

// TestBounceRefusedByTarget: the target's NIC checks bounce requests too;
// a refusal reaches the initiator as an *AccessError and frees the mailbox.
func TestBounceRefusedByTarget(t *testing.T) {
	_, nics := bounceJob(t, 2, PageSize)
	n0, n1 := nics[0], nics[1]
	region := make([]byte, 2*PageSize)
	sid := mustRegisterMemory(t, n1, region)

	checkBounceRefusedAndRecovered(t, n0, n1, sid, region)
	// Requests posted directly into the mailbox, as a faulty peer could.
	checkPostedRefusals(t, n1, sid)
	checkPostedAccepted(t, n1, sid)
}

// checkBounceRefusedAndRecovered: a bounce to a region n1 has forgotten
// is refused without writing it and releases the mailbox; once restored,
// the same bounce goes through.
func checkBounceRefusedAndRecovered(t *testing.T, n0, n1 *NIC, sid SID, region []byte) {
	t.Helper()
	// The target forgets the region behind its SID table's back.
	delete(n1.procRegions, sid)
	s := serve(n1)
	err := n0.Push(1, sid, 0, pattern(3*PageSize/2, 1), nil)
	s.halt()
	var ae *AccessError
	if !errors.As(err, &ae) || ae.Violation != ViolationBadSID || ae.Target != 1 || !errors.Is(err, ErrRefused) {
		t.Fatalf("bounce to a region the target does not have: %v", err)
	}
	if st := n0.Stats(); st.Refused != 1 || st.RefusedBy[ViolationBadSID] != 1 || st.Push != 0 || st.BounceOps != 0 {
		t.Errorf("stats after refusal: %+v", st)
	}
	if firstDiff(region, make([]byte, len(region))) >= 0 {
		t.Errorf("refused bounce wrote the region")
	}
	box := n1.box
	if atomic.LoadUint64(&box.lock) != 0 || atomic.LoadUint64(&box.state) != boxIdle {
		t.Fatalf("mailbox not released after a refusal")
	}
	n1.procRegions[sid] = region
	s = serve(n1)
	err = n0.Push(1, sid, 0, pattern(3*PageSize/2, 2), nil)
	s.halt()
	if err != nil {
		t.Fatalf("bounce after a refusal: %v", err)
	}
	checkBytes(t, "bounce after a refusal", region[:3*PageSize/2], pattern(3*PageSize/2, 2))
}

// postToMailbox posts a request from PID from straight into n's mailbox,
// has n serve it, and returns the mailbox's state and result before
// idling it.
func postToMailbox(t *testing.T, n *NIC, from uint64, op Op, sid SID, off, length uint64) (state, result uint64) {
	t.Helper()
	box := n.box
	box.op, box.sid, box.off, box.length, box.from = uint64(op), uint64(sid), off, length, from
	atomic.StoreUint64(&box.state, boxPosted)
	if !n.Service() {
		t.Fatalf("Service did not take a posted request")
	}
	state, result = atomic.LoadUint64(&box.state), box.result
	atomic.StoreUint64(&box.state, boxIdle)
	return state, result
}

// checkPostedRefusals: n1 refuses posted requests outside the region
// registered as sid, each with its violation.
func checkPostedRefusals(t *testing.T, n1 *NIC, sid SID) {
	t.Helper()
	for _, c := range []struct {
		name        string
		op          Op
		sid         SID
		off, length uint64
		violation   Violation
	}{
		{"unknown SID", OpPush, sid + 1, 0, 8, ViolationBadSID},
		{"past the region", OpPull, sid, 2*PageSize - 4, 8, ViolationOutOfRange},
		{"offset past the region", OpPush, sid, 1 << 40, 8, ViolationOutOfRange},
		{"longer than the bounce buffer", OpPush, sid, 0, 2 * PageSize, ViolationBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			state, result := postToMailbox(t, n1, 0, c.op, c.sid, c.off, c.length)
			if state != boxRefused || Violation(result) != c.violation {
				t.Errorf("state %d result %v, want refused %v", state, Violation(result), c.violation)
			}
		})
	}
}

// checkPostedAccepted: an idle mailbox reports no work, and n1 serves a
// valid posted request, even one from a forged initiator PID.
func checkPostedAccepted(t *testing.T, n1 *NIC, sid SID) {
	t.Helper()
	if n1.Service() {
		t.Errorf("Service with an idle mailbox reported work")
	}
	if state, _ := postToMailbox(t, n1, 0, OpPull, sid, 8, 8); state != boxDone {
		t.Errorf("valid posted request: state %d", state)
	}
	// A forged initiator PID is not used to index the PGIDTBL.
	if state, _ := postToMailbox(t, n1, 1<<40, OpPull, sid, 8, 8); state != boxDone {
		t.Errorf("request from PID 1<<40: state %d", state)
	}
}

// checkBounceCounters checks the counts of one request of size bytes
// bounced through the target's mailbox in chunks between before and
// after, and tbefore and tafter, the target's: the initiator's bounced
// chunks and bytes, and the chunks the target served.
func checkBounceCounters(t *testing.T, before, after, tbefore, tafter Stats, size int, chunks uint64) {
	t.Helper()
	if d := after.BounceOps - before.BounceOps; d != chunks {
		t.Errorf("Stats.BounceOps +%d, want +%d", d, chunks)
	}
	if d := after.BounceBytes - before.BounceBytes; d != uint64(size) {
		t.Errorf("Stats.BounceBytes +%d, want +%d", d, size)
	}
	if d := tafter.Served - tbefore.Served; d != chunks {
		t.Errorf("target Stats.Served +%d, want +%d", d, chunks)
	}
}
