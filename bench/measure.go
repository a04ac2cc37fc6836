package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/collectives"
	"github.com/rhinet-go/martini/mpi"
)

// Options say how Measure measures.
type Options struct {
	Sizes []int
	// Budget is the time each size may take: calibration, then Samples
	// samples of Budget/Samples each.
	Budget  time.Duration
	Samples int
	// OffCache, when positive, makes successive operations use buffers
	// at least OffCache bytes apart (rotating through an arena of that
	// size and more), so that they do not find their data in the caches.
	OffCache int
	// Progress, if not nil, is called on rank 0 before each size.
	Progress func(benchmark string, size int)
	// SampleFloor, if not nil, measures the job's cross-core floor after
	// each sample (Row.SampleFloors).
	SampleFloor *SampleFloor
}

// maxReps bounds the operations of one sample; warmup operations run
// untimed before the calibration (connections, first touches).
const (
	maxReps = 1 << 20
	warmup  = 2
)

// ErrTooFewRanks is wrapped by Measure's error for a point-to-point
// benchmark on a communicator of one process.
var ErrTooFewRanks = errors.New("bench: point-to-point benchmarks need at least 2 processes")

// Measure runs benchmark on every process of c for every size, as the
// Intel MPI Benchmarks define it, and returns the Series (its rows are
// complete on rank 0 only; the other ranks get their own timings).
//
// For each size the operation runs twice untimed (warm-up), then in
// batches of 1, 2, 4, ... until a batch takes a quarter of a sample's
// time (calibration), which sets the repetitions of a sample; then Samples
// samples run, each started by a barrier. A sample's time per operation
// is rank 0's for point-to-point benchmarks (PingPong: half the round
// trip) and the slowest rank's for collectives, whose fastest and mean
// ranks are recorded too. Row.T is the median sample. A size at which a
// forced collective algorithm does not apply has no row. The sizes run
// are SizesOf(benchmark, o.Sizes): Barrier runs once, as size 0, whatever
// the sizes; Reduce and Allreduce sum float32 elements and skip sizes
// that are not a multiple of 4.
func Measure(c *mpi.Comm, benchmark string, o Options) (Series, error) {
	s := Series{Benchmark: benchmark, Source: SourceMartini, NP: c.Size()}
	if o.Samples < 1 {
		return s, fmt.Errorf("bench: %d samples: need at least 1", o.Samples)
	}
	if !IsCollective(benchmark) && c.Size() < 2 {
		return s, fmt.Errorf("bench: %s on %d process: %w", benchmark, c.Size(), ErrTooFewRanks)
	}
	if !slices.Contains(AllBenchmarks(), benchmark) {
		return s, fmt.Errorf("bench: unknown benchmark %q", benchmark)
	}
	bufs := newBuffers(c.Size(), slices.Max(o.Sizes), o.OffCache)
	for _, size := range SizesOf(benchmark, o.Sizes) {
		if o.Progress != nil && c.Rank() == 0 {
			o.Progress(benchmark, size)
		}
		row, err := measureSize(c, benchmark, size, bufs, o)
		if errors.Is(err, collectives.ErrAlgorithm) {
			// A forced algorithm that does not apply at this size (every
			// process finds so at the same operation): no row.
			continue
		}
		if err != nil {
			return s, fmt.Errorf("bench: %s, %d bytes: %w", benchmark, size, err)
		}
		s.Rows = append(s.Rows, row)
	}
	return s, nil
}

// SizeLess reports whether benchmark moves no data (Barrier, Ibarrier),
// so that it has no message size: it is measured once, as size 0.
func SizeLess(benchmark string) bool { return benchmark == "Barrier" || benchmark == "Ibarrier" }

// SizesOf returns the sizes at which Measure runs benchmark when sizes
// are asked for: 0 alone for a size-less benchmark (SizeLess), whatever
// sizes holds; the multiples of 4 for the reductions (float32
// elements); sizes otherwise.
func SizesOf(benchmark string, sizes []int) []int {
	switch benchmark {
	case "Barrier", "Ibarrier":
		return []int{0}
	case "Reduce", "Allreduce", "Ireduce", "Iallreduce", "Accumulate":
		return slices.DeleteFunc(slices.Clone(sizes), func(s int) bool { return s%4 != 0 })
	}
	return sizes
}

// buffers hands out the send and receive buffers of each operation,
// rotating through an arena when off-cache.
type buffers struct {
	arena    []byte
	np       int
	offCache int
	next     int
	// size, send and recv are the last buffers handed out: in cache,
	// the same for every operation of one size, so found once (size -1:
	// none yet).
	size       int
	send, recv []byte
}

// footprint is what one operation of size bytes touches, send and
// receive buffers together (a rank's share of the collectives that move
// size bytes per pair of ranks is np blocks).
func footprint(np, size int) int { return 2 * (np*size + 64) }

// newBuffers returns the buffers of operations of up to maxSize bytes on
// np processes, with offCache more bytes to rotate through when not 0.
// Every page of the arena is written now, as the system MPI's side
// (bench/peer) writes its buffers: memory fresh from the kernel that is
// only read maps its one zero page, so that a send buffer never written
// would be read from the caches whatever its size, and a send buffer on
// reused memory (the Go heap's, once a collection has freed an earlier
// arena) from memory: a large operation ran far faster on fresh,
// unwritten buffers than on reused ones (docs/decisions.md, newBuffers).
func newBuffers(np, maxSize, offCache int) *buffers {
	n := footprint(np, maxSize)
	if offCache > 0 {
		n += offCache
	}
	arena := make([]byte, n)
	touchPages(arena)
	return &buffers{arena: arena, np: np, offCache: offCache, size: -1}
}

// touchPages writes a zero into every page of b, so that each is a page
// of its own and not the kernel's shared zero page.
func touchPages(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
}

// get returns the buffers of the next operation: send and recv of np*size
// bytes each (the collectives use the first size bytes where that is
// what they move).
func (b *buffers) get(size int) (send, recv []byte) {
	if b.offCache > 0 || size != b.size {
		b.fill(size)
	}
	return b.send, b.recv
}

// fill sets the buffers get returns. (Not inlined: get is.)
//
//go:noinline
func (b *buffers) fill(size int) {
	block := b.np*size + 64
	if b.offCache <= 0 || b.next+2*block > len(b.arena) {
		b.next = 0
	}
	at := b.next
	if b.offCache > 0 {
		b.next += 2 * block
	}
	b.size, b.send, b.recv = size, b.arena[at:at+b.np*size], b.arena[at+block:at+block+b.np*size]
}

// floats views a byte buffer as float32 elements.
func floats(b []byte) []float32 {
	if len(b) < 4 {
		return []float32{}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// operation returns the function that performs the i-th operation of
// benchmark at size on c.
func operation(c *mpi.Comm, benchmark string, size int, bufs *buffers) func(i int) error {
	switch benchmark {
	case "PingPong":
		return pingPongOp(c, size, bufs)
	case "PingPing":
		return pingPingOp(c, size, bufs)
	case "Sendrecv":
		return sendrecvOp(c, size, bufs)
	case "Exchange":
		return exchangeOp(c, size, bufs)
	case "Ibarrier", "Ibcast", "Ireduce", "Iallreduce", "Iallgather", "Ialltoall":
		return nonblocking(c, benchmark, size, bufs)
	}
	return collective(c, benchmark, size, bufs)
}

// p2pTag is the tag of the point-to-point benchmarks' messages.
const p2pTag = 1

// pingPongOp returns PingPong's operation: rank 0 sends size bytes to
// rank 1, which sends them back; the other ranks do nothing.
func pingPongOp(c *mpi.Comm, size int, bufs *buffers) func(i int) error {
	r := c.Rank()
	return func(int) error {
		s, rv := bufs.get(size)
		switch r {
		case 0:
			if err := mpi.Send(c, s[:size], 1, p2pTag); err != nil {
				return err
			}
			_, err := mpi.Recv(c, rv[:size], 1, p2pTag)
			return err
		case 1:
			if _, err := mpi.Recv(c, rv[:size], 0, p2pTag); err != nil {
				return err
			}
			return mpi.Send(c, s[:size], 0, p2pTag)
		}
		return nil
	}
}

// pingPingOp returns PingPing's operation: ranks 0 and 1 each send size
// bytes to the other at once; the other ranks do nothing.
func pingPingOp(c *mpi.Comm, size int, bufs *buffers) func(i int) error {
	r := c.Rank()
	return func(int) error {
		if r > 1 {
			return nil
		}
		s, rv := bufs.get(size)
		req, err := mpi.Isend(c, s[:size], 1-r, p2pTag)
		if err != nil {
			return err
		}
		if _, err := mpi.Recv(c, rv[:size], 1-r, p2pTag); err != nil {
			return err
		}
		return waitFree(req)
	}
}

// sendrecvOp returns Sendrecv's operation: every rank sends size bytes to
// its right neighbour in a ring and receives from its left.
func sendrecvOp(c *mpi.Comm, size int, bufs *buffers) func(i int) error {
	n, r := c.Size(), c.Rank()
	right, left := (r+1)%n, (r-1+n)%n
	return func(int) error {
		s, rv := bufs.get(size)
		_, err := mpi.Sendrecv(c, s[:size], right, p2pTag, rv[:size], left, p2pTag)
		return err
	}
}

// exchangeOp returns Exchange's operation: every rank sends size bytes to
// both its neighbours in a ring and receives from both.
func exchangeOp(c *mpi.Comm, size int, bufs *buffers) func(i int) error {
	n, r := c.Size(), c.Rank()
	right, left := (r+1)%n, (r-1+n)%n
	return func(int) error {
		s, rv := bufs.get(size)
		r1, err := mpi.Isend(c, s[:size], left, p2pTag)
		if err != nil {
			return err
		}
		r2, err := mpi.Isend(c, s[:size], right, p2pTag)
		if err != nil {
			return err
		}
		if _, err := mpi.Recv(c, rv[:size], left, p2pTag); err != nil {
			return err
		}
		if _, err := mpi.Recv(c, rv[size:2*size], right, p2pTag); err != nil {
			return err
		}
		if err := waitFree(r1); err != nil {
			return err
		}
		return waitFree(r2)
	}
}

// collective returns the operation of a blocking collective benchmark,
// Alltoall for any name it does not know; the rooted ones move their root
// round the ranks, operation by operation.
func collective(c *mpi.Comm, benchmark string, size int, bufs *buffers) func(i int) error {
	n := c.Size()
	switch benchmark {
	case "Barrier":
		return func(int) error { return mpi.Barrier(c) }
	case "Bcast":
		return func(i int) error {
			s, _ := bufs.get(size)
			return mpi.Bcast(c, s[:size], i%n)
		}
	case "Reduce":
		return func(i int) error {
			s, rv := bufs.get(size)
			return mpi.Reduce(c, floats(s[:size]), floats(rv[:size]), mpi.Sum, i%n)
		}
	case "Allreduce":
		return func(int) error {
			s, rv := bufs.get(size)
			return mpi.Allreduce(c, floats(s[:size]), floats(rv[:size]), mpi.Sum)
		}
	case "Allgather":
		return func(int) error {
			s, rv := bufs.get(size)
			return mpi.Allgather(c, s[:size], rv[:n*size])
		}
	case "Gather":
		return func(i int) error {
			s, rv := bufs.get(size)
			return mpi.Gather(c, s[:size], rv[:n*size], i%n)
		}
	case "Scatter":
		return func(i int) error {
			s, rv := bufs.get(size)
			return mpi.Scatter(c, s[:n*size], rv[:size], i%n)
		}
	}
	return func(int) error { // Alltoall
		s, rv := bufs.get(size)
		return mpi.Alltoall(c, s[:n*size], rv[:n*size])
	}
}

// nonblocking returns the operation of a nonblocking collective
// benchmark (Nonblocking): the call, its Wait at once, and its Request
// given back.
func nonblocking(c *mpi.Comm, benchmark string, size int, bufs *buffers) func(i int) error {
	n := c.Size()
	var start func(i int, s, rv []byte) (*mpi.Request, error)
	switch benchmark {
	case "Ibarrier":
		start = func(int, []byte, []byte) (*mpi.Request, error) { return mpi.Ibarrier(c) }
	case "Ibcast":
		start = func(i int, s, _ []byte) (*mpi.Request, error) { return mpi.Ibcast(c, s[:size], i%n) }
	case "Ireduce":
		start = func(i int, s, rv []byte) (*mpi.Request, error) {
			return mpi.Ireduce(c, floats(s[:size]), floats(rv[:size]), mpi.Sum, i%n)
		}
	case "Iallreduce":
		start = func(_ int, s, rv []byte) (*mpi.Request, error) {
			return mpi.Iallreduce(c, floats(s[:size]), floats(rv[:size]), mpi.Sum)
		}
	case "Iallgather":
		start = func(_ int, s, rv []byte) (*mpi.Request, error) { return mpi.Iallgather(c, s[:size], rv[:n*size]) }
	default: // Ialltoall
		start = func(_ int, s, rv []byte) (*mpi.Request, error) { return mpi.Ialltoall(c, s[:n*size], rv[:n*size]) }
	}
	return func(i int) error {
		s, rv := bufs.get(size)
		r, err := start(i, s, rv)
		if err != nil {
			return err
		}
		return waitFree(r)
	}
}

// waitFree waits for r and gives it back (Request.Release), as IMB's
// MPI_Wait frees the request it completes.
func waitFree(r *mpi.Request) error {
	if _, err := r.Wait(); err != nil {
		return err
	}
	return r.Release()
}

// timed runs reps operations after a barrier and returns this process's
// seconds.
func timed(c *mpi.Comm, op func(int) error, reps int) (float64, error) {
	if err := mpi.Barrier(c); err != nil {
		return 0, err
	}
	t0 := mpi.Wtime()
	for i := range reps {
		if err := op(i); err != nil {
			return 0, err
		}
	}
	return mpi.Wtime() - t0, nil
}

// calibrate returns the operations of a sample of target seconds: it
// doubles n from 1 until n operations take a quarter of the target on
// the slowest rank (timeMax, which every rank calls alike), then scales
// n to the target. A time that reaches the quarter is taken once more
// and the smaller kept: one hiccup (a page fault, a preemption, another
// program's turn on the CPU) in the few operations of the first rounds
// would otherwise leave samples of a handful of operations, whose time
// is mostly the sample's own barrier and clock.
func calibrate(timeMax func(n int) (float64, error), target float64) (int, error) {
	n := 1
	var worst float64
	for {
		t, err := timeMax(n)
		if err != nil {
			return 0, err
		}
		if t >= target/4 && n < maxReps {
			again, err := timeMax(n)
			if err != nil {
				return 0, err
			}
			t = min(t, again)
		}
		worst = t
		if worst >= target/4 || n >= maxReps {
			break
		}
		n *= 2
	}
	if worst <= 0 {
		return maxReps, nil
	}
	return int(min(maxReps, max(1, math.Ceil(float64(n)*target/worst)))), nil
}

// measureSize calibrates and samples one size.
func measureSize(c *mpi.Comm, benchmark string, size int, bufs *buffers, o Options) (row Row, err error) {
	var op func(int) error
	if IsOneSided(benchmark) {
		var done func() error
		if op, done, err = oneSided(c, benchmark, size, bufs); err != nil {
			return Row{}, err
		}
		defer func() { err = errors.Join(err, done()) }()
	} else {
		op = operation(c, benchmark, size, bufs)
	}
	target := o.Budget.Seconds() / float64(o.Samples)
	if _, err := timed(c, op, warmup); err != nil {
		return Row{}, err
	}
	reps, err := calibrateReps(c, op, target)
	if err != nil {
		return Row{}, err
	}
	return sampleRow(c, benchmark, size, op, reps, o.Samples, o.SampleFloor)
}

// calibrateReps returns the operations op of a sample of target seconds
// (calibrate), each batch timed on every rank and its slowest rank's time
// taken, so that every rank settles on the same count.
func calibrateReps(c *mpi.Comm, op func(int) error, target float64) (int, error) {
	return calibrate(func(n int) (float64, error) {
		t, err := timed(c, op, n)
		if err != nil {
			return 0, err
		}
		worst := []float64{0}
		err = mpi.Allreduce(c, []float64{t}, worst, mpi.Max)
		return worst[0], err
	}, target)
}

// sampleRow runs samples samples of reps operations op of benchmark at
// size and returns their row: each sample's time per operation (this
// process's own for point-to-point benchmarks; for collectives, on rank
// 0, the slowest rank's, with the fastest and the mean kept too), their
// medians and, for point-to-point benchmarks, the bandwidth; with a
// floor, the job's floor after each sample, where rank 0 knows it.
func sampleRow(c *mpi.Comm, benchmark string, size int, op func(int) error, reps, samples int, floor *SampleFloor) (Row, error) {
	row := Row{Bytes: size, Reps: reps}
	var mins, maxs, avgs, floors []float64
	for range samples {
		t, err := timed(c, op, reps)
		if err != nil {
			return Row{}, err
		}
		floors = append(floors, floor.Measure())
		per := t / float64(reps) * 1e6
		if benchmark == "PingPong" {
			per /= 2
		}
		if !IsCollective(benchmark) {
			row.Samples = append(row.Samples, per)
			continue
		}
		lo, hi, sum := []float64{0}, []float64{0}, []float64{0}
		for _, red := range []struct {
			out []float64
			op  mpi.Op
		}{{lo, mpi.Min}, {hi, mpi.Max}, {sum, mpi.Sum}} {
			if err := mpi.Reduce(c, []float64{per}, red.out, red.op, 0); err != nil {
				return Row{}, err
			}
		}
		row.Samples = append(row.Samples, hi[0])
		mins, maxs, avgs = append(mins, lo[0]), append(maxs, hi[0]), append(avgs, sum[0]/float64(c.Size()))
	}
	if !slices.Contains(floors, 0) {
		row.SampleFloors = floors
	}
	row.T = median(row.Samples)
	if IsCollective(benchmark) {
		row.TMin, row.TMax, row.TAvg = median(mins), median(maxs), median(avgs)
	} else if row.T > 0 {
		row.MBps = float64(size*bytesFactor(benchmark)) / row.T
	}
	return row, nil
}

// bytesFactor is how many times IMB counts the message size in a
// point-to-point benchmark's bandwidth.
func bytesFactor(benchmark string) int {
	switch benchmark {
	case "Sendrecv":
		return 2
	case "Exchange":
		return 4
	}
	return 1
}

// median returns the median of v (the mean of the middle two for an even
// count); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// FirstToMedian returns how many times the row's median (T) its first
// sample took, 0 for a row without samples or a median of 0. Each sample
// is Budget/Samples of operations after the size's warm-up of 2 and its
// calibration, so that a first sample far above the median shows state
// that the first hundreds of operations after Init (or after the sizes
// before) still set up.
func (r Row) FirstToMedian() float64 {
	if len(r.Samples) == 0 || r.T <= 0 {
		return 0
	}
	return r.Samples[0] / r.T
}

// SlowStarts describes each row of series whose first sample took more
// than bound times its median (Row.FirstToMedian), one line each, in
// order.
func SlowStarts(series []Series, bound float64) []string {
	var out []string
	for _, s := range series {
		for _, r := range s.Rows {
			if x := r.FirstToMedian(); x > bound {
				out = append(out, fmt.Sprintf("%s %d B (%s, %d processes): first sample %.3g µs, %.1f× the median %.3g µs",
					s.Benchmark, r.Bytes, s.Variant, s.NP, r.Samples[0], x, r.T))
			}
		}
	}
	return out
}
