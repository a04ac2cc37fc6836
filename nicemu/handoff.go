package nicemu

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"
)

// Handoff compensation.
//
// The thesis's write latencies are ping-pong round trips halved (thesis
// 6.1.2), so they contain the 2003 host's own part of a hop: seeing the
// DMA-written word and issuing the answer. The timing profile folds that
// part into DMAWriteLatency. Under a timed profile the emulation's own
// part of a hop would come on top and count the host twice: the spin that
// holds the request overshoots its deadline, the store that moves the data
// must cross to the polling process's core, and the receiver runs its
// code from seeing the word to its next request. A timed profile therefore
// moves a remote write's data that much before the time the model gives,
// so that a program on the target sees it, and answers, at the modelled
// time. The figure is measured when the segment is created
// (MeasureHandoff) and kept in its header, so that every process of the
// job uses the same value.

// handoffRounds and handoffBatches size the measurement: batches of round
// trips between two threads, whose median batch gives the figure.
const (
	handoffRounds  = 400
	handoffBatches = 9
	// handoffLimit bounds the measurement: a machine that cannot run two
	// spinning threads at once gets no compensation.
	handoffLimit = 250 * time.Millisecond
)

// MeasureHandoff measures the emulation's own part of a hop under the
// timing profile called profile: half the round trip of an 8-byte BOTF
// write ping-pong between two threads, each driving the NIC of one process
// of a two-process segment of its own under the profile without
// compensation, less the modelled one-way latency. The result is at most
// the target's DMA write stage (DMAOverhead + DMAWriteLatency), inside
// which it stands. It returns 0 for an untimed profile, or when the
// process cannot run two threads at once or the measurement does not
// finish promptly. It takes a few tens of milliseconds.
func MeasureHandoff(profile string) (time.Duration, error) {
	p, err := LookupProfile(profile)
	if err != nil || p == nil {
		return 0, err
	}
	if runtime.NumCPU() < 2 || runtime.GOMAXPROCS(0) < 2 {
		return 0, nil
	}
	seg, err := CreateSegment(JobConfig{NProcs: 2, HeapSize: PageSize, BounceSize: PageSize, Profile: profile, Handoff: -1})
	if err != nil {
		return 0, fmt.Errorf("nicemu: measure handoff: %w", err)
	}
	defer seg.Close()
	pair, err := openHandoffPair(seg)
	if err != nil {
		return 0, err
	}
	defer pair.close()
	pair.deadline = nanotime() + int64(handoffLimit)
	peer := make(chan error, 1)
	go pair.answer(peer)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	halves, err := timeHops(pair.hop, &pair.abort)
	if perr := <-peer; err == nil {
		err = perr
	}
	if err == errHandoffTimeout {
		return 0, nil // no two cores to spin on: no compensation
	}
	if err != nil {
		return 0, fmt.Errorf("nicemu: measure handoff: %w", err)
	}
	slices.Sort(halves)
	h := time.Duration(halves[len(halves)/2]) - p.modelWrite(OpBOTF, 8)
	return min(max(h, 0), p.DMAOverhead+p.DMAWriteLatency), nil
}

// handoffPair holds the NICs of the two processes of MeasureHandoff's
// segment, each with the word of its segment memory that the other one
// writes.
type handoffPair struct {
	nics  [2]*NIC
	sids  [2]SID
	words [2]*uint64
	// deadline ends the measurement (nanotime); abort stops the other
	// side's waits once one side has failed.
	deadline int64
	abort    atomic.Bool
}

// openHandoffPair opens both processes of seg and registers the word each
// one's peer writes. On failure it closes the NICs it opened, last first,
// as the caller's close would.
func openHandoffPair(seg *Segment) (*handoffPair, error) {
	hp := &handoffPair{}
	for p := range hp.nics {
		n, err := Open(seg, p)
		if err != nil {
			hp.close()
			return nil, fmt.Errorf("nicemu: measure handoff: %w", err)
		}
		hp.nics[p] = n
		sid, mem, err := n.RegisterSegment(PageSize)
		if err != nil {
			hp.close()
			return nil, fmt.Errorf("nicemu: measure handoff: %w", err)
		}
		hp.sids[p], hp.words[p] = sid, (*uint64)(unsafe.Pointer(&mem[0]))
	}
	return hp, nil
}

// close closes the NICs that are open, last first.
func (hp *handoffPair) close() {
	for p := len(hp.nics) - 1; p >= 0; p-- {
		if hp.nics[p] != nil {
			hp.nics[p].Close()
		}
	}
}

// hop writes i to the peer's word and waits for the peer's answer i.
func (hp *handoffPair) hop(p int, i uint64, answer bool) error {
	if answer {
		if !await(hp.words[p], i, hp.deadline, &hp.abort) {
			return errHandoffTimeout
		}
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], i)
	if err := hp.nics[p].BOTF(1-p, hp.sids[1-p], 0, b[:]); err != nil {
		return err
	}
	if !answer && !await(hp.words[p], i, hp.deadline, &hp.abort) {
		return errHandoffTimeout
	}
	return nil
}

// answer is the peer's side of the ping-pong, on a thread of its own: it
// answers every hop of the measuring thread, and reports how it ended on
// peer; a failure stops the measuring thread's wait (abort).
func (hp *handoffPair) answer(peer chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	total := uint64(handoffRounds * handoffBatches)
	for i := uint64(1); i <= total; i++ {
		if err := hp.hop(1, i, true); err != nil {
			hp.abort.Store(true)
			peer <- err
			return
		}
	}
	peer <- nil
}

// timeHops times the measuring thread's side of the ping-pong in batches
// of round trips, each timed whole so that the clock's own cost is spread
// over the batch; it returns half of each batch's average round trip. A
// failure sets abort, so that the peer's side stops waiting.
func timeHops(hop func(p int, i uint64, answer bool) error, abort *atomic.Bool) ([]int64, error) {
	halves := make([]int64, 0, handoffBatches)
	var i uint64
	var err error
	for range handoffBatches {
		start := nanotime()
		for range handoffRounds {
			i++
			if err = hop(0, i, false); err != nil {
				abort.Store(true)
				break
			}
		}
		if err != nil {
			break
		}
		halves = append(halves, (nanotime()-start)/(2*handoffRounds))
	}
	return halves, err
}

var errHandoffTimeout = fmt.Errorf("nicemu: measure handoff: no answer within %v", handoffLimit)

// await spins until *w reaches v; it gives up (false) after deadline or
// once abort is set.
func await(w *uint64, v uint64, deadline int64, abort *atomic.Bool) bool {
	for spins := 0; atomic.LoadUint64(w) < v; spins++ {
		if spins&1023 == 1023 && (nanotime() > deadline || abort.Load()) {
			return false
		}
	}
	return true
}
