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
	var nics [2]*NIC
	var sids [2]SID
	var words [2]*uint64
	for p := range nics {
		n, err := Open(seg, p)
		if err != nil {
			return 0, fmt.Errorf("nicemu: measure handoff: %w", err)
		}
		defer n.Close()
		sid, mem, err := n.RegisterSegment(PageSize)
		if err != nil {
			return 0, fmt.Errorf("nicemu: measure handoff: %w", err)
		}
		nics[p], sids[p], words[p] = n, sid, (*uint64)(unsafe.Pointer(&mem[0]))
	}
	deadline := nanotime() + int64(handoffLimit)
	var abort atomic.Bool
	// hop writes i to the peer's word and waits for the peer's answer i.
	hop := func(p int, i uint64, answer bool) error {
		if answer {
			if !await(words[p], i, deadline, &abort) {
				return errHandoffTimeout
			}
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], i)
		if err := nics[p].BOTF(1-p, sids[1-p], 0, b[:]); err != nil {
			return err
		}
		if !answer && !await(words[p], i, deadline, &abort) {
			return errHandoffTimeout
		}
		return nil
	}
	total := uint64(handoffRounds * handoffBatches)
	peer := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := uint64(1); i <= total; i++ {
			if err := hop(1, i, true); err != nil {
				abort.Store(true)
				peer <- err
				return
			}
		}
		peer <- nil
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	halves := make([]int64, 0, handoffBatches)
	var i uint64
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
