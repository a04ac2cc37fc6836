package bench

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// A job's own floor. The cross-core floor that the suite measures between
// jobs says what state the machine was in around them, but a virtual
// machine's two processors can move apart (no shared cache) and back in
// a second or two, within a job: a column of small messages then reads
// two or three times as long, and a table compares one implementation
// measured in one state with another measured in the other. So the ranks
// 0 and 1 of a job measure the floor themselves right after each sample,
// by the same cache-line ping-pong, in memory both map (an MPI
// shared-memory window): Row.SampleFloors. The C peer (bench/peer)
// measures it alike, so every column's samples carry the state they ran
// in, and MatchSpeeds compares samples of one state.

// sampleFloorTrips is how many round trips one sample's floor makes:
// 0.1-0.8 ms where the two ranks have a CPU each.
const sampleFloorTrips = 1000

// sampleFloorLimit bounds one measurement: two ranks that share a CPU
// pass the line once a time slice, and rank 0 gives up (the job's
// floors are then unknown).
const sampleFloorLimit = 20 * time.Millisecond

// sampleFloorStop is the line's value once rank 0 has given up.
const sampleFloorStop = ^uint64(0)

// SampleFloor measures a job's cross-core floor between its ranks 0 and
// 1 (see above). Every rank of the communicator holds one and calls
// Measure alike.
type SampleFloor struct {
	win        *mpi.Win
	line       *atomic.Uint64 // in rank 0's part of win, alone on its cache line
	rank, size int
	// next is the value the line holds when a measurement starts: each
	// measurement adds 2*sampleFloorTrips, at both ranks alike.
	next uint64
	dead bool // rank 0 gave up once: no more measurements
}

// NewSampleFloor allocates the line of c's floor (collective over c).
// It fails where c's processes share no memory (over TCP, across hosts):
// the job then measures without.
func NewSampleFloor(c *mpi.Comm) (*SampleFloor, error) {
	words := 0
	if c.Rank() == 0 {
		words = 16 // a cache line, wherever in these 128 bytes it starts
	}
	win, _, err := mpi.WinAllocateShared[uint64](c, words)
	if err != nil {
		return nil, fmt.Errorf("bench: the job's floor line: %w", err)
	}
	part, err := mpi.SharedQuery[uint64](win, 0)
	if err == nil && len(part) < 16 {
		err = fmt.Errorf("%d words, want 16", len(part))
	}
	// Every rank learns whether all could map the line: a rank 1 that
	// could, beside a rank 0 that could not, would wait for pings that
	// never come.
	ok, all := []int32{1}, []int32{0}
	if err != nil {
		ok[0] = 0
	}
	if aerr := mpi.Allreduce(c, ok, all, mpi.Min); aerr != nil {
		err = errors.Join(err, aerr)
	} else if all[0] == 0 && err == nil {
		err = errors.New("another rank could not map it")
	}
	if err != nil {
		return nil, fmt.Errorf("bench: the job's floor line: rank 0's part: %w", errors.Join(err, win.Free()))
	}
	at := 0
	for uintptr(unsafe.Pointer(&part[at]))%64 != 0 {
		at++
	}
	return &SampleFloor{win: win, line: (*atomic.Uint64)(unsafe.Pointer(&part[at])), rank: c.Rank(), size: c.Size()}, nil
}

// Free releases the line (collective, before mpi.Finalize).
func (f *SampleFloor) Free() error { return f.win.Free() }

// Measure runs one measurement of the floor between ranks 0 and 1 and
// returns, at rank 0, half the mean round trip in µs; 0 at the other
// ranks, which take no part, and where it is unknown (rank 0 gave up on
// this or an earlier measurement). Ranks 0 and 1 must call it at the same
// point of the job, as a collective.
func (f *SampleFloor) Measure() float64 {
	if f == nil || f.dead || f.rank > 1 || f.size < 2 {
		return 0
	}
	base := f.next
	f.next += 2 * sampleFloorTrips
	if f.rank == 1 {
		f.answer(base)
		return 0
	}
	start := time.Now()
	for i := range uint64(sampleFloorTrips) {
		f.line.Store(base + 2*i + 1)
		if !f.awaitReply(base+2*i+1, start) {
			f.dead = true
			return 0
		}
	}
	return float64(time.Since(start).Nanoseconds()) / 1e3 / (2 * sampleFloorTrips)
}

// awaitReply waits at rank 0 until rank 1 has answered the ping sent,
// and reports whether it did within sampleFloorLimit of start. Giving up
// swaps the ping for sampleFloorStop, unless the answer came meanwhile.
func (f *SampleFloor) awaitReply(sent uint64, start time.Time) bool {
	for spins := 0; ; spins++ {
		if f.line.Load() != sent {
			return true
		}
		if spins%1024 == 1023 && time.Since(start) > sampleFloorLimit {
			if f.line.CompareAndSwap(sent, sampleFloorStop) {
				return false
			}
			return true
		}
	}
}

// answer is rank 1's side of a measurement from base: it answers every
// ping, and stops for good when rank 0 gives up.
func (f *SampleFloor) answer(base uint64) {
	for i := range uint64(sampleFloorTrips) {
		for {
			v := f.line.Load()
			if v == sampleFloorStop {
				f.dead = true
				return
			}
			if v == base+2*i+1 {
				break
			}
		}
		f.line.Store(base + 2*i + 2)
	}
}

// MatchSpeeds makes the columns of a run's benchmarks, series, compare
// samples taken in one state of the machine. For each benchmark and
// size, the lowest of the columns' median floors after a sample
// (Row.SampleFloors) is the state they are compared in: a row's T (and
// MBps) becomes the median of its samples whose floor is under
// FloorChange times that, and LeftOut counts the others. A row none of
// whose samples ran in that state keeps the median of all and is
// Unmatched. Rows without floors are left as they are. It returns a note
// for each series with unmatched rows, naming its column by variant (the
// system MPI's by its name).
func MatchSpeeds(series []Series) []string {
	base := map[benchSize]float64{}
	for _, s := range series {
		for _, r := range s.Rows {
			if len(r.SampleFloors) == 0 {
				continue
			}
			k, m := benchSize{s.Benchmark, r.Bytes}, median(slices.Clone(r.SampleFloors))
			if low, ok := base[k]; !ok || m < low {
				base[k] = m
			}
		}
	}
	var notes []string
	for _, s := range series {
		var sizes []string
		var theirs, others []float64
		for i := range s.Rows {
			r := &s.Rows[i]
			low, ok := base[benchSize{s.Benchmark, r.Bytes}]
			if !ok || len(r.SampleFloors) != len(r.Samples) || matchRow(r, low, s.Benchmark) {
				continue
			}
			sizes = append(sizes, strconv.Itoa(r.Bytes))
			theirs, others = append(theirs, r.SampleFloors...), append(others, low)
		}
		if len(sizes) > 0 {
			notes = append(notes, fmt.Sprintf("%s, %s: every sample at %s bytes ran while the job's own floor read %s µs, %d times or more the %s µs of another column's job there: these times compare across states of the machine",
				s.Benchmark, s.Variant, AndList(sizes), spanText(theirs), FloorChange, spanText(others)))
		}
	}
	return notes
}

// matchRow sets r's T, MBps and LeftOut from its samples whose floor is
// under FloorChange times low, and reports whether it has any; without,
// it marks r Unmatched.
func matchRow(r *Row, low float64, benchmark string) bool {
	var kept []float64
	for j, f := range r.SampleFloors {
		if f < FloorChange*low {
			kept = append(kept, r.Samples[j])
		}
	}
	if len(kept) == 0 {
		r.Unmatched = true
		return false
	}
	r.LeftOut, r.T = len(r.Samples)-len(kept), median(kept)
	if r.MBps > 0 && r.T > 0 {
		r.MBps = float64(r.Bytes*bytesFactor(benchmark)) / r.T
	}
	return true
}
