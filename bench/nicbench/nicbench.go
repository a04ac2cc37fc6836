// Package nicbench measures the emulated NIC itself, below MPI: the remote
// write and read latencies of each request kind and the PUSH throughput,
// between two processes of a job, as the thesis measured Martini (ch. 6).
// Under the martini timing profile the figures reproduce the thesis's;
// under native they show how far below it the emulation goes.
//
// Both processes of a Pair call the same method in the same order: rank 0
// issues the requests and times them, rank 1 answers.
package nicbench

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/nicemu"
)

// Layout of each process's registered region: the landing area of the
// throughput tests, then one control page.
const (
	// MaxSize is the largest transfer the throughput tests accept.
	MaxSize = 4 << 20
	ctlPage = MaxSize
	// Control words (offsets into the control page): the ping-pong word,
	// the end-of-stream flag and its acknowledgement.
	pingWord = 0
	flagWord = 64
	ackWord  = 128
	// RegionSize is the size each process registers.
	RegionSize = MaxSize + nicemu.PageSize
)

// aotfPage is the AOTF header-buffer entry the latency test registers.
const aotfPage = 0

// Pair is one of the two processes of a NIC benchmark.
type Pair struct {
	nic     *nicemu.NIC
	rank    int
	peer    int
	peerSID nicemu.SID
	sid     nicemu.SID // own registered region
	mem     []byte     // its memory
	src     []byte     // source buffer of the throughput tests
	word8   [8]byte    // source buffer of the control writes
	seq     uint64     // sequence of control values, the same on both sides
}

// NewPair registers this process's region and learns the peer's through
// the data store. rank must be 0 or 1 and the job must have two processes.
func NewPair(nic *nicemu.NIC, store datastore.Store, rank int) (*Pair, error) {
	if rank != 0 && rank != 1 {
		return nil, fmt.Errorf("nicbench: rank %d: a pair has ranks 0 and 1", rank)
	}
	sid, mem, err := nic.RegisterSegment(RegionSize)
	if err != nil {
		return nil, fmt.Errorf("nicbench: register: %w", err)
	}
	if err := store.Put("nicbench/sid/"+strconv.Itoa(rank), strconv.FormatUint(uint64(sid), 10)); err != nil {
		return nil, fmt.Errorf("nicbench: publish SID: %w", err)
	}
	v, err := store.Get("nicbench/sid/" + strconv.Itoa(1-rank))
	if err != nil {
		return nil, fmt.Errorf("nicbench: peer SID: %w", err)
	}
	peerSID, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("nicbench: peer SID %q: %w", v, err)
	}
	p := &Pair{nic: nic, rank: rank, peer: 1 - rank, peerSID: nicemu.SID(peerSID), sid: sid, mem: mem, src: make([]byte, MaxSize)}
	if err := nic.SetAOTFHeader(aotfPage, p.peer, p.peerSID, ctlPage); err != nil {
		return nil, fmt.Errorf("nicbench: AOTF header: %w", err)
	}
	return p, p.fence(store)
}

// fence is store's fence; in virtual time the pair's requests are in
// virtual-time order from then on, and both leave it at the same time
// (nicemu.Clock.Fence).
func (p *Pair) fence(store datastore.Store) error {
	if c := p.nic.Clock(); c != nil {
		return c.Fence(store.Fence)
	}
	return store.Fence()
}

func (p *Pair) word(off int) *uint64 {
	return (*uint64)(unsafe.Pointer(&p.mem[ctlPage+off]))
}

// await polls a control word of this process until it holds v or a later
// value: the control values only grow, and the peer may have moved on to
// the next measurement and overwritten v before this process saw it.
func (p *Pair) await(off int, v uint64) { p.awaitAt(ctlPage+off, v) }

// awaitAt polls the word at off of this process's region until it holds v
// or a later value. In virtual time the process waits meanwhile, and the
// word's arrival moves its clock (nicemu.NIC.Arrived).
func (p *Pair) awaitAt(off int, v uint64) {
	w := (*uint64)(unsafe.Pointer(&p.mem[off]))
	c := p.nic.Clock()
	if c == nil {
		for atomic.LoadUint64(w) < v {
		}
		return
	}
	defer c.Waiting(false)
	for {
		c.Look()
		if atomic.LoadUint64(w) >= v && p.nic.Arrived(p.sid, uint64(off), 8) {
			return
		}
		c.Waiting(true)
	}
}

// now is the time the measurements read: the process's virtual time when
// the job runs in virtual time, else the monotonic clock's.
func (p *Pair) now() time.Duration {
	if c := p.nic.Clock(); c != nil {
		return c.Now()
	}
	return time.Since(epoch)
}

// epoch is the origin of now in real time.
var epoch = time.Now()

// Write kinds of the latency test.
const (
	WritePush = "PUSH"
	WriteBOTF = "BOTF"
	WriteAOTF = "AOTF"
)

// Read kinds of the read latency test.
const (
	ReadPull     = "PULL"
	ReadBOTFPull = "BOTF pull"
)

// writeWord sends an 8-byte value into the peer's control word off by
// kind.
func (p *Pair) writeWord(kind string, off int, v uint64) error {
	// One source buffer for every write: a new one each time would be a
	// new page now and then, and a PATLB miss.
	b := p.word8[:]
	*(*uint64)(unsafe.Pointer(&b[0])) = v
	switch kind {
	case WritePush:
		return p.nic.Push(p.peer, p.peerSID, uint64(ctlPage+off), b, nil)
	case WriteBOTF:
		return p.nic.BOTF(p.peer, p.peerSID, uint64(ctlPage+off), b)
	case WriteAOTF:
		return p.nic.AOTF(aotfPage, uint64(off), v)
	}
	return fmt.Errorf("nicbench: unknown write kind %q", kind)
}

// WriteLatency measures the one-way latency of an 8-byte remote write of
// kind (half a ping-pong's round trip, as thesis 6.1.2): samples batches
// of reps round trips, and returns the median batch's figure.
func (p *Pair) WriteLatency(kind string, reps, samples int) (time.Duration, error) {
	rtt, err := p.pingPong(reps, samples,
		func() error { return p.writeWord(kind, pingWord, p.seq) },
		func() { p.await(pingWord, p.seq) })
	return rtt / 2, err
}

// pingPong times samples batches of reps round trips: rank 0 sends (send)
// and waits for the answer (wait), rank 1 waits and answers; p.seq is the
// round trip's number. It returns the median batch's round trip.
func (p *Pair) pingPong(reps, samples int, send func() error, wait func()) (time.Duration, error) {
	times := make([]time.Duration, 0, samples)
	for range samples {
		start := p.now()
		for range reps {
			p.seq++
			if p.rank == 1 {
				wait()
			}
			if err := send(); err != nil {
				return 0, err
			}
			if p.rank == 0 {
				wait()
			}
		}
		times = append(times, (p.now()-start)/time.Duration(reps))
	}
	return median(times), nil
}

// ReadLatency measures an 8-byte remote read of kind (thesis 6.1.2: from
// the request until the data is in local memory), the median of samples
// batches of reps reads by rank 0; rank 1 waits meanwhile.
func (p *Pair) ReadLatency(kind string, reps, samples int) (time.Duration, error) {
	p.seq++
	if p.rank == 1 {
		p.await(flagWord, p.seq)
		return 0, nil
	}
	buf := make([]byte, 8)
	times := make([]time.Duration, 0, samples)
	for range samples {
		start := p.now()
		for range reps {
			var err error
			switch kind {
			case ReadPull:
				err = p.nic.Pull(p.peer, p.peerSID, ctlPage+ackWord, buf, nil)
			case ReadBOTFPull:
				err = p.nic.BOTFPull(p.peer, p.peerSID, ctlPage+ackWord, buf, nil)
			default:
				err = fmt.Errorf("nicbench: unknown read kind %q", kind)
			}
			if err != nil {
				return 0, err
			}
		}
		times = append(times, (p.now()-start)/time.Duration(reps))
	}
	return median(times), p.writeWord(WritePush, flagWord, p.seq)
}

// stream pushes count transfers of size bytes into the peer's landing
// area, then the end flag.
func (p *Pair) stream(size, count int) error {
	off := 0
	for range count {
		if off+size > MaxSize {
			off = 0
		}
		if err := p.nic.Push(p.peer, p.peerSID, uint64(off), p.src[:size], nil); err != nil {
			return err
		}
		off += size
	}
	return p.writeWord(WritePush, flagWord, p.seq)
}

// Throughput measures one-way PUSH throughput in MB/s (10^6 bytes per
// second) as thesis 6.1.3: rank 0 pushes count transfers of size bytes
// back to back, rank 1 acknowledges the last; the time runs from the first
// request to the acknowledgement.
func (p *Pair) Throughput(size, count int) (float64, error) {
	if size < 1 || size > MaxSize || count < 1 {
		return 0, fmt.Errorf("nicbench: throughput of %d × %d B: need 1 ≤ size ≤ %d", count, size, MaxSize)
	}
	p.seq++
	if p.rank == 1 {
		p.await(flagWord, p.seq)
		return 0, p.writeWord(WritePush, ackWord, p.seq)
	}
	start := p.now()
	if err := p.stream(size, count); err != nil {
		return 0, err
	}
	p.await(ackWord, p.seq)
	return mbps(size*count, p.now()-start), nil
}

// Bidirectional measures the sum of the throughputs of both processes
// pushing count transfers of size bytes to each other at once, in MB/s;
// rank 0's figure runs from its start until it has sent everything and
// seen the peer's end flag. store's fence starts both together.
func (p *Pair) Bidirectional(store datastore.Store, size, count int) (float64, error) {
	if size < 1 || size > MaxSize || count < 1 {
		return 0, fmt.Errorf("nicbench: bidirectional %d × %d B: need 1 ≤ size ≤ %d", count, size, MaxSize)
	}
	p.seq++
	if err := p.fence(store); err != nil {
		return 0, fmt.Errorf("nicbench: fence: %w", err)
	}
	start := p.now()
	if err := p.stream(size, count); err != nil {
		return 0, err
	}
	p.await(flagWord, p.seq)
	return mbps(2*size*count, p.now()-start), nil
}

func mbps(bytes int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / d.Seconds() / 1e6
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// SizeHalf returns the smallest measured transfer size at which a
// throughput curve reaches half of peak, as the thesis reads Size_half off
// its curve measured at powers of two ("Martini reaches Size_half at 1024
// bytes", 6.1.3); sizes must be ascending. It fails when the curve never
// reaches it.
func SizeHalf(sizes []int, mbs []float64, peak float64) (float64, error) {
	for i := range sizes {
		if mbs[i] >= peak/2 {
			return float64(sizes[i]), nil
		}
	}
	return 0, errors.New("nicbench: the throughput never reaches half its peak")
}
