package mpi_test

// The scenarios that the test binary runs as a rank under mpirun. Each
// checks what it receives and returns a descriptive error; see mpi_test.go.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
	"github.com/rhinet-go/martini/nicemu"
)

type llcCounters = llc.Counters

// scenarios run between Init and Finalize.
var scenarios = map[string]func(world *mpi.Comm) error{
	"types":           scenarioTypes,
	"sizes":           scenarioSizes,
	"order":           scenarioOrder,
	"probe":           scenarioProbe,
	"requests":        scenarioRequests,
	"procnull":        scenarioProcNull,
	"errors":          scenarioErrors,
	"concurrency":     scenarioConcurrency,
	"protection":      scenarioProtection,
	"stats":           scenarioStats,
	"barrier":         scenarioBarrier,
	"self":            scenarioSelf,
	"exhaust":         scenarioExhaust,
	"sids-first":      scenarioSIDsFirst,
	"barrier-refused": scenarioBarrierRefused,
	"enginefail":      scenarioEngineFail,
	"bench-pingpong":  scenarioBenchPingPong,
	"bench-self":      scenarioBenchSelf,
	"bench-irecv":     scenarioBenchIrecv,
	"bench-sendrecv":  scenarioBenchSendrecv,
	"bench-exchange":  scenarioBenchExchange,
	"bench-iprobe":    scenarioBenchIprobe,
	"allocs":          scenarioAllocs,
}

// rawScenarios call Init and Finalize (or not) themselves.
var rawScenarios = map[string]func() error{
	"lifecycle":       rawLifecycle,
	"fail-panic":      rawFailPanic,
	"fail-abort":      func() error { return rawFailAbort(3) },
	"fail-abort-256":  func() error { return rawFailAbort(256) },
	"fail-nofinalize": rawFailNoFinalize,
	"fail-deadlock":   rawFailDeadlock,
	// A rendezvous send that no receive matches before Finalize.
	"fail-unreceived": rawFailUnreceived,
	// Abort from a goroutine while the main one waits in Finalize.
	"fail-abort-in-finalize": rawAbortInFinalize,
	// Finalize while another goroutine waits in Recv.
	"finalize-pending": rawFinalizePending,
	// A differing Bcast last: reported by it or by Finalize.
	"finalize-settles":     rawFinalizeSettles,
	"finalize-settles-dup": rawFinalizeSettlesDup,
	// Run without mpirun: the exit status must not be 0.
	"abort-256-alone": func() error {
		if err := mpi.Init(); err != nil {
			return err
		}
		mpi.World().Abort(256)
		return errors.New("Abort returned")
	},
	// Abort on the nil World of a process that has not initialized.
	"abort-before-init": func() error {
		mpi.World().Abort(5)
		return errors.New("Abort returned")
	},
}

// ---- helpers ----

func bytesOf[T mpi.Type](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// fill sets the bytes of s to a pattern determined by key: pseudo-random
// bytes with a period of 64 KiB, each 4 KiB block stamped with its index,
// so that misplaced data shows. It is cheap for large buffers, also under
// the race detector.
func fill[T mpi.Type](s []T, key ...int) []T {
	b := bytesOf(s)
	h := uint64(0x9E3779B97F4A7C15)
	for _, k := range key {
		h = (h ^ uint64(k)) * 0x100000001B3
	}
	const period, block = 64 << 10, 4 << 10
	var w [8]byte
	for i := 0; i < len(b) && i < period; i += 8 {
		h ^= h >> 31
		h *= 0xBF58476D1CE4E5B9
		binary.LittleEndian.PutUint64(w[:], h)
		copy(b[i:], w[:])
	}
	for n := period; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
	for i := block; i+8 <= len(b); i += block {
		binary.LittleEndian.PutUint64(b[i:], uint64(i/block)^h)
	}
	return s
}

// pattern returns n elements filled from key.
func pattern[T mpi.Type](n int, key ...int) []T { return fill(make([]T, n), key...) }

// diff compares got with want bitwise (NaN payloads included) and
// describes the first difference, or returns "".
func diff[T mpi.Type](got, want []T) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want))
	}
	gb, wb := bytesOf(got), bytesOf(want)
	if bytes.Equal(gb, wb) {
		return ""
	}
	for i := range gb {
		if gb[i] != wb[i] {
			e := i / int(unsafe.Sizeof(want[0]))
			return fmt.Sprintf("element %d of %d differs: got %v, want %v (byte %d of %d)", e, len(want), got[e], want[e], i, len(wb))
		}
	}
	return ""
}

func checkStatus(what string, st mpi.Status, source, tag, count, nbytes int) error {
	if st.Source != source || st.Tag != tag || st.Count != count || st.Bytes != nbytes {
		return fmt.Errorf("%s: status %+v, want {Source:%d Tag:%d Count:%d Bytes:%d}", what, st, source, tag, count, nbytes)
	}
	return nil
}

func right(w *mpi.Comm) int { return (w.Rank() + 1) % w.Size() }
func left(w *mpi.Comm) int  { return (w.Rank() - 1 + w.Size()) % w.Size() }

// pmLayers reports whether the job runs over a PM layer (-eager pm or vp),
// which has no rendezvous.
func pmLayers() bool {
	mode := os.Getenv(launch.EnvEager)
	return mode == launch.EagerPM || mode == launch.EagerVP
}

func eagerLimit() (int, error) {
	st, err := mpi.ReadStats()
	if err != nil {
		return 0, err
	}
	return st.EagerLimit, nil
}

// ---- every numeric type ----

func scenarioTypes(w *mpi.Comm) error {
	tests := []func(w *mpi.Comm, tag, count int) error{
		typeRound[int8], typeRound[int16], typeRound[int32], typeRound[int64], typeRound[int],
		typeRound[uint8], typeRound[uint16], typeRound[uint32], typeRound[uint64], typeRound[uint],
		typeRound[uintptr], typeRound[byte],
		typeRound[float32], typeRound[float64], typeRound[complex64], typeRound[complex128],
	}
	// 5000 complex128 are 80000 bytes, above the eager limit; 5000 int8
	// are below it.
	for i, f := range tests {
		for j, count := range []int{0, 1, 1000, 5000} {
			if err := f(w, 1000*i+10*j, count); err != nil {
				return err
			}
		}
	}
	return nil
}

// withSpecials puts special values into floating-point slices.
func withSpecials[T mpi.Type](s []T) []T {
	var specials []any
	switch any(s).(type) {
	case []float32:
		specials = []any{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)), float32(math.MaxFloat32), float32(math.SmallestNonzeroFloat32)}
	case []float64:
		specials = []any{math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	case []complex64:
		specials = []any{complex(float32(math.Inf(1)), float32(math.NaN())), complex64(complex(math.Copysign(0, -1), math.MaxFloat32))}
	case []complex128:
		specials = []any{complex(math.Inf(-1), math.NaN()), complex(math.SmallestNonzeroFloat64, -math.MaxFloat64)}
	case []int64:
		specials = []any{int64(math.MinInt64), int64(math.MaxInt64)}
	case []uint64:
		specials = []any{uint64(math.MaxUint64)}
	case []int8:
		specials = []any{int8(math.MinInt8), int8(math.MaxInt8)}
	}
	for i, v := range specials {
		if i < len(s) {
			s[i] = v.(T)
		}
	}
	return s
}

func typeName[T mpi.Type]() string {
	var z T
	return fmt.Sprintf("%T", z)
}

// typeRound exchanges count elements of T around the ring with Send/Recv,
// shifts them with Sendrecv, and sends them all to all with Isend/Irecv.
func typeRound[T mpi.Type](w *mpi.Comm, tag, count int) error {
	buf := make([]T, count)
	if err := typeRing(w, tag, buf); err != nil {
		return err
	}
	clear(buf)
	if err := typeShift(w, tag+1, buf); err != nil {
		return err
	}
	return typeAllToAll[T](w, tag+2, count)
}

// typeMsg is the message of count elements of T that rank src sends rank
// dst with tag, special values included.
func typeMsg[T mpi.Type](count, src, dst, tag int) []T {
	return withSpecials(pattern[T](count, src, dst, tag))
}

// typeRoundName names a round of count elements of T.
func typeRoundName[T mpi.Type](count int) string { return fmt.Sprintf("%s x %d", typeName[T](), count) }

// typeRing passes len(buf) elements of T to the right around the ring
// with blocking calls, received into buf: even ranks send first.
func typeRing[T mpi.Type](w *mpi.Comm, tag int, buf []T) error {
	me, count := w.Rank(), len(buf)
	name := typeRoundName[T](count)
	elem := int(unsafe.Sizeof(*new(T)))
	recv := func() error {
		st, err := mpi.Recv(w, buf, left(w), tag)
		if err != nil {
			return fmt.Errorf("%s: ring Recv: %w", name, err)
		}
		if err := checkStatus(name+": ring Recv", st, left(w), tag, count, count*elem); err != nil {
			return err
		}
		if d := diff(buf, typeMsg[T](count, left(w), me, tag)); d != "" {
			return fmt.Errorf("%s: ring Recv from %d: %s", name, left(w), d)
		}
		return nil
	}
	send := func() error {
		if err := mpi.Send(w, typeMsg[T](count, me, right(w), tag), right(w), tag); err != nil {
			return fmt.Errorf("%s: ring Send: %w", name, err)
		}
		return nil
	}
	steps := []func() error{send, recv}
	if me%2 == 1 {
		steps = []func() error{recv, send}
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// typeShift shifts len(buf) elements of T the other way round the ring
// with Sendrecv, received into buf.
func typeShift[T mpi.Type](w *mpi.Comm, tag int, buf []T) error {
	me, count := w.Rank(), len(buf)
	name := typeRoundName[T](count)
	elem := int(unsafe.Sizeof(*new(T)))
	st, err := mpi.Sendrecv(w, typeMsg[T](count, me, left(w), tag), left(w), tag, buf, right(w), tag)
	if err != nil {
		return fmt.Errorf("%s: Sendrecv: %w", name, err)
	}
	if err := checkStatus(name+": Sendrecv", st, right(w), tag, count, count*elem); err != nil {
		return err
	}
	if d := diff(buf, typeMsg[T](count, right(w), me, tag)); d != "" {
		return fmt.Errorf("%s: Sendrecv from %d: %s", name, right(w), d)
	}
	return nil
}

// typeAllToAll sends count elements of T from every rank to every rank,
// itself included, with nonblocking calls.
func typeAllToAll[T mpi.Type](w *mpi.Comm, tag, count int) error {
	me, n := w.Rank(), w.Size()
	name := typeRoundName[T](count)
	elem := int(unsafe.Sizeof(*new(T)))
	bufs := make([][]T, n)
	var reqs []*mpi.Request
	for p := range n {
		bufs[p] = make([]T, count)
		r, err := mpi.Irecv(w, bufs[p], p, tag)
		if err != nil {
			return fmt.Errorf("%s: Irecv from %d: %w", name, p, err)
		}
		reqs = append(reqs, r)
	}
	for i := range n {
		p := (me + i) % n
		r, err := mpi.Isend(w, typeMsg[T](count, me, p, tag), p, tag)
		if err != nil {
			return fmt.Errorf("%s: Isend to %d: %w", name, p, err)
		}
		reqs = append(reqs, r)
	}
	sts, err := mpi.Waitall(reqs)
	if err != nil {
		return fmt.Errorf("%s: all-to-all Waitall: %w", name, err)
	}
	for p := range n {
		if err := checkStatus(fmt.Sprintf("%s: all-to-all from %d", name, p), sts[p], p, tag, count, count*elem); err != nil {
			return err
		}
		if d := diff(bufs[p], typeMsg[T](count, p, me, tag)); d != "" {
			return fmt.Errorf("%s: all-to-all from %d: %s", name, p, d)
		}
	}
	return nil
}

// ---- message sizes around the eager limit ----

// scenarioSizes sends messages of sizes around the eager limit to the
// right neighbour and to this rank itself, checking the protocol each
// took and that the receives wrote nothing past the message.
func scenarioSizes(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	// The requested eager limit is honoured, or capped when the rings it
	// needs would not fit.
	if v := os.Getenv("MARTINI_EAGER_LIMIT"); v != "" {
		req, _ := strconv.Atoi(v)
		if E > req || (req <= 1<<20 && E != req) || E < min(req, 1<<20) {
			return fmt.Errorf("eager limit %d in force, %d requested", E, req)
		}
	}
	var sizes []int
	for _, s := range []int{0, 1, 8, E - 1, E, E + 1, 1 << 20, 4<<20 + 3} {
		if s >= 0 && !containsInt(sizes, s) {
			sizes = append(sizes, s)
		}
	}
	for k, size := range sizes {
		if err := sizesRound(w, E, 100+k, size); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}

// sizesSlack is the bytes past the message that each receive buffer of
// scenarioSizes has, which must be left as they were.
const sizesSlack = 16

// sizesRound receives size bytes with tag from the left neighbour and
// from this rank, sends them to the right neighbour and this rank, and
// checks what arrived.
func sizesRound(w *mpi.Comm, E, tag, size int) error {
	me := w.Rank()
	// From the left neighbour, and from this rank itself.
	var reqs []*mpi.Request
	var bufs [][]byte
	for _, src := range []int{left(w), me} {
		b := make([]byte, size+sizesSlack)
		for i := range b {
			b[i] = 0xEE
		}
		r, err := mpi.Irecv(w, b, src, tag)
		if err != nil {
			return fmt.Errorf("%d bytes: Irecv from %d: %w", size, src, err)
		}
		reqs, bufs = append(reqs, r), append(bufs, b)
	}
	for _, dst := range []int{right(w), me} {
		if err := sizesSendCounted(w, E, tag, size, dst); err != nil {
			return err
		}
	}
	sts, err := mpi.Waitall(reqs)
	if err != nil {
		return fmt.Errorf("%d bytes: Waitall: %w", size, err)
	}
	for i, src := range []int{left(w), me} {
		if err := checkStatus(fmt.Sprintf("%d bytes from %d", size, src), sts[i], src, tag, size, size); err != nil {
			return err
		}
		if d := diff(bufs[i][:size], pattern[byte](size, me, size)); d != "" {
			return fmt.Errorf("%d bytes from %d: %s", size, src, d)
		}
		for j := size; j < size+sizesSlack; j++ {
			if bufs[i][j] != 0xEE {
				return fmt.Errorf("%d bytes from %d: byte %d past the message was overwritten", size, src, j)
			}
		}
	}
	return nil
}

// sizesSendCounted sends size bytes with tag to dst and checks that it
// was counted as one eager send, or one rendezvous past the eager limit
// E.
func sizesSendCounted(w *mpi.Comm, E, tag, size, dst int) error {
	before, _ := mpi.ReadStats()
	if err := mpi.Send(w, pattern[byte](size, dst, size), dst, tag); err != nil {
		return fmt.Errorf("%d bytes: Send to %d: %w", size, dst, err)
	}
	after, _ := mpi.ReadStats()
	de := after.Protocol.EagerSent - before.Protocol.EagerSent
	dr := after.Protocol.RndvSent - before.Protocol.RndvSent
	// The PM layers send every size eagerly (llc.Config.NoRendezvous).
	rndv := size > E && !pmLayers()
	want := "eager"
	if rndv {
		want = "rendezvous"
	}
	if (!rndv && (de != 1 || dr != 0)) || (rndv && (de != 0 || dr != 1)) {
		return fmt.Errorf("%d bytes with eager limit %d: sending it counted %d eager and %d rendezvous sends, want one %s", size, E, de, dr, want)
	}
	return nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// ---- non-overtaking, wildcards ----

const orderMsgs = 1000

func orderSize(seq, E int) int {
	sizes := []int{16, 0, 1, 8, 100, E, E + 1, 3000, 70000, 5, 40000, 1024}
	return sizes[seq%len(sizes)]
}

func orderTag(seq int) int { return 10 + seq%3 }

// scenarioOrder: every rank but 0 sends orderMsgs messages of mixed sizes
// (eager and rendezvous) to rank 0, which receives them with specific and
// wildcard sources and tags and checks that each sender's arrive in order.
func scenarioOrder(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	if w.Rank() != 0 {
		return orderSend(w, E)
	}
	// Let the first messages arrive before their receives.
	time.Sleep(100 * time.Millisecond)
	return newOrderReceiver(w, E).receiveAll()
}

// orderSend sends the messages of a rank but 0 to rank 0: batches of
// Isends alternate with blocking Sends.
func orderSend(w *mpi.Comm, E int) error {
	me := w.Rank()
	for seq := 0; seq < orderMsgs; {
		if seq%50 < 20 {
			var reqs []*mpi.Request
			for k := 0; k < 10 && seq < orderMsgs; k, seq = k+1, seq+1 {
				r, err := mpi.Isend(w, pattern[byte](orderSize(seq, E), me, seq), 0, orderTag(seq))
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
			if _, err := mpi.Waitall(reqs); err != nil {
				return fmt.Errorf("Isend batch: %w", err)
			}
			continue
		}
		if err := mpi.Send(w, pattern[byte](orderSize(seq, E), me, seq), 0, orderTag(seq)); err != nil {
			return fmt.Errorf("Send %d: %w", seq, err)
		}
		seq++
	}
	return mpi.Barrier(w)
}

// orderReceiver is rank 0 of scenarioOrder, which receives the messages
// of the others.
type orderReceiver struct {
	w    *mpi.Comm
	n, E int
	next []int // next sequence number expected from each rank
	pick int   // the next sender to try
}

// newOrderReceiver returns rank 0's receiver, which expects message 0
// of every other rank first.
func newOrderReceiver(w *mpi.Comm, E int) *orderReceiver {
	next := make([]int, w.Size())
	next[0] = orderMsgs
	return &orderReceiver{w: w, n: w.Size(), E: E, next: next, pick: 1}
}

// sender returns a sender with messages left, round robin.
func (o *orderReceiver) sender() int {
	n, next := o.n, o.next
	for next[o.pick] >= orderMsgs {
		o.pick = o.pick%(n-1) + 1
	}
	s := o.pick
	o.pick = o.pick%(n-1) + 1
	return s
}

// check checks that the message received with status st into buf is the
// next one of its sender.
func (o *orderReceiver) check(how string, st mpi.Status, buf []byte) error {
	n, E, next := o.n, o.E, o.next
	src := st.Source
	if src < 1 || src >= n {
		return fmt.Errorf("%s: message from rank %d", how, src)
	}
	seq := next[src]
	if seq >= orderMsgs {
		return fmt.Errorf("%s: message from rank %d after its last", how, src)
	}
	size := orderSize(seq, E)
	if err := checkStatus(fmt.Sprintf("%s: message %d from %d", how, seq, src), st, src, orderTag(seq), size, size); err != nil {
		return fmt.Errorf("%w (overtaken?)", err)
	}
	if d := diff(buf[:size], pattern[byte](size, src, seq)); d != "" {
		return fmt.Errorf("%s: message %d from %d (%d bytes): %s (overtaken?)", how, seq, src, size, d)
	}
	next[src]++
	return nil
}

// receiveAll receives every message, now a batch of Irecvs from one
// sender, now one Recv with wildcards or not.
func (o *orderReceiver) receiveAll() error {
	big := make([]byte, 70000+o.E+1)
	total := (o.n - 1) * orderMsgs
	for got := 0; got < total; {
		switch i := got % 7; {
		case i == 6:
			k, err := o.irecvBatch(len(big))
			if err != nil {
				return err
			}
			got += k
		default:
			if err := o.recvOne(i, big); err != nil {
				return err
			}
			got++
		}
	}
	return mpi.Barrier(o.w)
}

// irecvBatch receives a batch of up to 8 messages from one sender with
// Irecvs into buffers of bufLen bytes, matched in posting order, and
// returns how many.
func (o *orderReceiver) irecvBatch(bufLen int) (int, error) {
	w, next, check := o.w, o.next, o.check
	s := o.sender()
	k := min(8, orderMsgs-next[s])
	reqs := make([]*mpi.Request, k)
	bufs := make([][]byte, k)
	for j := range k {
		bufs[j] = make([]byte, bufLen)
		tag := mpi.AnyTag
		if j%2 == 0 {
			tag = orderTag(next[s] + j)
		}
		var err error
		if reqs[j], err = mpi.Irecv(w, bufs[j], s, tag); err != nil {
			return 0, err
		}
	}
	sts, err := mpi.Waitall(reqs)
	if err != nil {
		return 0, fmt.Errorf("Irecv batch from %d: %w", s, err)
	}
	for j := range k {
		if err := check("Irecv batch", sts[j], bufs[j]); err != nil {
			return 0, err
		}
	}
	return k, nil
}

// recvOne receives one message into big, the i-th of a cycle of 7: from
// any source with any tag, from a sender with any tag, or from a sender
// with the tag of its next message.
func (o *orderReceiver) recvOne(i int, big []byte) error {
	w, next, sender, check := o.w, o.next, o.sender, o.check
	src, tag, how := mpi.AnySource, mpi.AnyTag, "Recv(AnySource, AnyTag)"
	switch i % 3 {
	case 1:
		src = sender()
		how = "Recv(source, AnyTag)"
	case 2:
		src = sender()
		tag = orderTag(next[src])
		how = "Recv(source, tag)"
	}
	st, err := mpi.Recv(w, big, src, tag)
	if err != nil {
		return fmt.Errorf("%s: %w", how, err)
	}
	return check(how, st, big)
}

// ---- Status, Probe, Iprobe ----

// scenarioProbe: between pairs of ranks, the even rank sends messages of
// tags 3 to 7 (eager, rendezvous and empty) once the odd one has seen
// that nothing is there; the odd one finds them with Iprobe and Probe,
// by source, by tag and by wildcards, and checks their statuses and
// counts before and after receiving them.
func scenarioProbe(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	partner := me ^ 1
	if partner >= n {
		return mpi.Barrier(w)
	}
	bigCount := E/16 + 100 // complex128: rendezvous
	if me%2 == 0 {
		return probeSender(w, partner, bigCount)
	}

	if ok, st, err := w.Iprobe(partner, mpi.AnyTag); err != nil || ok {
		return fmt.Errorf("Iprobe before anything was sent: %v, %+v, %v", ok, st, err)
	}
	if err := mpi.Send(w, []int8{1}, partner, 1); err != nil {
		return err
	}
	if err := firstError(
		func() error { return probeTag3(w, partner) },
		func() error { return probeTag4(w, partner) },
		func() error { return probeTag5(w, partner, bigCount) },
		func() error { return probeTags6And7(w, partner) },
	); err != nil {
		return err
	}
	if ok, st, err := w.Iprobe(mpi.AnySource, mpi.AnyTag); err != nil || ok {
		return fmt.Errorf("Iprobe after everything was received: %v, %+v, %v", ok, st, err)
	}
	return mpi.Barrier(w)
}

// probeSender is the sender of scenarioProbe: it waits until the
// receiver has seen that nothing is there, then sends tags 3 to 7.
func probeSender(w *mpi.Comm, partner, bigCount int) error {
	if _, err := mpi.Recv(w, []int8{0}, partner, 1); err != nil {
		return err
	}
	if err := mpi.Send(w, pattern[float64](7, 3), partner, 3); err != nil {
		return err
	}
	if err := mpi.Send(w, pattern[int32](1000, 4), partner, 4); err != nil {
		return err
	}
	if err := mpi.Send(w, pattern[complex128](bigCount, 5), partner, 5); err != nil {
		return err
	}
	if err := mpi.Send(w, []uint16{}, partner, 6); err != nil {
		return err
	}
	if err := mpi.Send(w, pattern[uint16](9, 7), partner, 7); err != nil {
		return err
	}
	return mpi.Barrier(w)
}

// iprobeWait calls Iprobe until it finds a message of src and tag, for
// 20 seconds at most.
func iprobeWait(w *mpi.Comm, src, tag int) (mpi.Status, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, st, err := w.Iprobe(src, tag)
		if err != nil || ok {
			return st, err
		}
		if time.Now().After(deadline) {
			return st, fmt.Errorf("Iprobe(%d, %d) found nothing in 20s", src, tag)
		}
	}
}

// probeTag3 finds tag 3, 7 float64, by Iprobe(AnySource, tag).
func probeTag3(w *mpi.Comm, partner int) error {
	st, err := iprobeWait(w, mpi.AnySource, 3)
	if err != nil {
		return err
	}
	if err := checkStatus("Iprobe tag 3", st, partner, 3, 56, 56); err != nil {
		return err
	}
	if c := mpi.GetCount[float64](st); c != 7 {
		return fmt.Errorf("GetCount[float64] of tag 3 = %d, want 7", c)
	}
	f := make([]float64, mpi.GetCount[float64](st))
	if st, err = mpi.Recv(w, f, st.Source, st.Tag); err != nil {
		return err
	}
	if err := checkStatus("Recv tag 3", st, partner, 3, 7, 56); err != nil {
		return err
	}
	if d := diff(f, pattern[float64](7, 3)); d != "" {
		return fmt.Errorf("tag 3: %s", d)
	}
	return nil
}

// probeTag4 finds tag 4, 1000 int32, by Iprobe(source, AnyTag); probing
// twice sees the same message.
func probeTag4(w *mpi.Comm, partner int) error {
	var st mpi.Status
	var err error
	if st, err = iprobeWait(w, partner, mpi.AnyTag); err != nil {
		return err
	}
	st2, err := iprobeWait(w, partner, mpi.AnyTag)
	if err != nil {
		return err
	}
	if st != st2 {
		return fmt.Errorf("two Iprobes saw %+v then %+v", st, st2)
	}
	if err := checkStatus("Iprobe tag 4", st, partner, 4, 4000, 4000); err != nil {
		return err
	}
	ints := make([]int32, mpi.GetCount[int32](st)+10) // larger than needed
	if st, err = mpi.Recv(w, ints, partner, mpi.AnyTag); err != nil {
		return err
	}
	if err := checkStatus("Recv tag 4 into a larger buffer", st, partner, 4, 1000, 4000); err != nil {
		return err
	}
	if d := diff(ints[:1000], pattern[int32](1000, 4)); d != "" {
		return fmt.Errorf("tag 4: %s", d)
	}
	return nil
}

// probeTag5 finds tag 5, a rendezvous message, by Probe.
func probeTag5(w *mpi.Comm, partner, bigCount int) error {
	var st mpi.Status
	var err error
	if st, err = w.Probe(mpi.AnySource, mpi.AnyTag); err != nil {
		return err
	}
	if err := checkStatus("Probe tag 5", st, partner, 5, bigCount*16, bigCount*16); err != nil {
		return err
	}
	cs := make([]complex128, mpi.GetCount[complex128](st))
	if st, err = mpi.Recv(w, cs, st.Source, st.Tag); err != nil {
		return err
	}
	if err := checkStatus("Recv tag 5", st, partner, 5, bigCount, bigCount*16); err != nil {
		return err
	}
	if d := diff(cs, pattern[complex128](bigCount, 5)); d != "" {
		return fmt.Errorf("tag 5: %s", d)
	}
	return nil
}

// probeTags6And7: tag 6 is empty, and tag 7 is behind it; Probe for 7
// first.
func probeTags6And7(w *mpi.Comm, partner int) error {
	var st mpi.Status
	var err error
	if st, err = w.Probe(partner, 7); err != nil {
		return err
	}
	if err := checkStatus("Probe tag 7", st, partner, 7, 18, 18); err != nil {
		return err
	}
	if st, err = w.Probe(partner, mpi.AnyTag); err != nil {
		return err
	}
	if err := checkStatus("Probe tag 6 (empty)", st, partner, 6, 0, 0); err != nil {
		return err
	}
	if st, err = mpi.Recv[uint16](w, nil, partner, 6); err != nil {
		return err
	}
	if err := checkStatus("Recv tag 6 (empty)", st, partner, 6, 0, 0); err != nil {
		return err
	}
	u := make([]uint16, 9)
	if st, err = mpi.Recv(w, u, partner, mpi.AnyTag); err != nil {
		return err
	}
	if err := checkStatus("Recv tag 7", st, partner, 7, 9, 18); err != nil {
		return err
	}
	if d := diff(u, pattern[uint16](9, 7)); d != "" {
		return fmt.Errorf("tag 7: %s", d)
	}
	return nil
}

// ---- Waitany, Testall, Testany, Test, Wait twice ----

// requestsGoTag is the tag of the receiver's go in scenarioRequests.
const requestsGoTag = 999

// scenarioRequests checks nil requests, then, between pairs of ranks,
// Waitany, Testall, Testany, Test and Wait twice on messages of mixed
// sizes (eager and rendezvous), a round of each.
func scenarioRequests(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	if err := checkNilRequests(); err != nil {
		return err
	}
	partner := me ^ 1
	if partner >= n {
		return mpi.Barrier(w)
	}
	sizes := []int{10, E + 5, 0, 3, 100000, 64}
	if me%2 == 0 {
		return requestsSender(w, partner, sizes)
	}
	rv := requestsReceiver{w: w, partner: partner, sizes: sizes}
	return firstError(rv.waitany, rv.testall, rv.test, func() error { return mpi.Barrier(w) })
}

// checkNilRequests checks that a nil request is an error, not a crash,
// and that Waitany, Testany and Testall on nothing return at once.
func checkNilRequests() error {
	var nilReq *mpi.Request
	if _, err := nilReq.Wait(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Wait on a nil request: %v, want ErrRequest", err)
	}
	if _, _, err := nilReq.Test(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Test on a nil request: %v, want ErrRequest", err)
	}
	// Waitany on nothing.
	if i, _, err := mpi.Waitany(nil); i != mpi.Undefined || err != nil {
		return fmt.Errorf("Waitany(nil) = %d, %v; want Undefined", i, err)
	}
	if i, _, err := mpi.Waitany(make([]*mpi.Request, 3)); i != mpi.Undefined || err != nil {
		return fmt.Errorf("Waitany of nil requests = %d, %v; want Undefined", i, err)
	}
	if _, i, _, err := mpi.Testany(make([]*mpi.Request, 3)); i != mpi.Undefined || err != nil {
		return fmt.Errorf("Testany of nil requests = %d, %v; want Undefined", i, err)
	}
	if ok, _, err := mpi.Testall(make([]*mpi.Request, 3)); !ok || err != nil {
		return fmt.Errorf("Testall of nil requests = %v, %v; want true", ok, err)
	}
	return nil
}

// requestsSender is the sender of scenarioRequests: each round waits for
// the go of the receiver, then sends a message of each size, of tags
// 0..k-1 in reverse order, and completes the sends with Testany.
func requestsSender(w *mpi.Comm, partner int, sizes []int) error {
	k := len(sizes)
	for round := 0; round < 3; round++ {
		if _, err := mpi.Recv(w, []byte{0}, partner, requestsGoTag); err != nil {
			return err
		}
		var reqs []*mpi.Request
		for i := k - 1; i >= 0; i-- {
			r, err := mpi.Isend(w, pattern[int16](sizes[i], round, i), partner, i)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		// Complete the sends with Testany.
		for left := len(reqs); left > 0; {
			_, i, _, err := mpi.Testany(reqs)
			if err != nil {
				return fmt.Errorf("Testany on sends: %w", err)
			}
			if i != mpi.Undefined {
				if reqs[i] != nil {
					return fmt.Errorf("Testany returned %d but left the entry", i)
				}
				left--
			}
		}
	}
	return mpi.Barrier(w)
}

// requestsReceiver is the receiver of scenarioRequests, of the messages
// of partner.
type requestsReceiver struct {
	w       *mpi.Comm
	partner int
	sizes   []int
}

// post posts the receives of a round.
func (rv requestsReceiver) post(round int) ([]*mpi.Request, [][]int16, error) {
	w, partner, sizes, k := rv.w, rv.partner, rv.sizes, len(rv.sizes)
	reqs := make([]*mpi.Request, k)
	bufs := make([][]int16, k)
	for i := range k {
		bufs[i] = make([]int16, sizes[i])
		var err error
		if reqs[i], err = mpi.Irecv(w, bufs[i], partner, i); err != nil {
			return nil, nil, err
		}
	}
	return reqs, bufs, nil
}

// checkOne checks the status and data of request i of a round.
func (rv requestsReceiver) checkOne(how string, round, i int, st mpi.Status, bufs [][]int16) error {
	partner, sizes := rv.partner, rv.sizes
	if err := checkStatus(fmt.Sprintf("%s round %d request %d", how, round, i), st, partner, i, sizes[i], 2*sizes[i]); err != nil {
		return err
	}
	if d := diff(bufs[i], pattern[int16](sizes[i], round, i)); d != "" {
		return fmt.Errorf("%s round %d request %d: %s", how, round, i, d)
	}
	return nil
}

// goAhead tells the sender to send a round.
func (rv requestsReceiver) goAhead() error {
	return mpi.Send(rv.w, []byte{1}, rv.partner, requestsGoTag)
}

// waitany is round 0: Waitany completes each request once, then returns
// Undefined.
func (rv requestsReceiver) waitany() error {
	k, checkOne := len(rv.sizes), rv.checkOne
	reqs, bufs, err := rv.post(0)
	if err != nil {
		return err
	}
	if err := rv.goAhead(); err != nil {
		return err
	}
	seen := make([]bool, k)
	for range k {
		i, st, err := mpi.Waitany(reqs)
		if err != nil {
			return fmt.Errorf("Waitany: %w", err)
		}
		if i < 0 || i >= k || seen[i] {
			return fmt.Errorf("Waitany returned index %d (seen: %v)", i, seen)
		}
		seen[i] = true
		if reqs[i] != nil {
			return fmt.Errorf("Waitany did not set entry %d to nil", i)
		}
		if err := checkOne("Waitany", 0, i, st, bufs); err != nil {
			return err
		}
	}
	if i, _, err := mpi.Waitany(reqs); i != mpi.Undefined || err != nil {
		return fmt.Errorf("Waitany with every request completed = %d, %v; want Undefined", i, err)
	}
	return nil
}

// testall is round 1: Testall is false before the go, then polled to
// true; Wait and Test after completion give the same result.
func (rv requestsReceiver) testall() error {
	k, checkOne := len(rv.sizes), rv.checkOne
	reqs, bufs, err := rv.post(1)
	if err != nil {
		return err
	}
	if ok, _, err := mpi.Testall(reqs); ok || err != nil {
		return fmt.Errorf("Testall before anything was sent = %v, %v", ok, err)
	}
	if _, i, _, err := mpi.Testany(reqs); i != mpi.Undefined || err != nil {
		return fmt.Errorf("Testany before anything was sent = %d, %v", i, err)
	}
	if ok, _, err := reqs[0].Test(); ok || err != nil {
		return fmt.Errorf("Test before anything was sent = %v, %v", ok, err)
	}
	if err := rv.goAhead(); err != nil {
		return err
	}
	var sts []mpi.Status
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, s, err := mpi.Testall(reqs)
		if err != nil {
			return fmt.Errorf("Testall: %w", err)
		}
		if ok {
			sts = s
			break
		}
		if time.Now().After(deadline) {
			return errors.New("Testall polled 20s without completing")
		}
	}
	for i := range k {
		if err := checkOne("Testall", 1, i, sts[i], bufs); err != nil {
			return err
		}
		// Wait and Test after completion give the same result.
		st, err := reqs[i].Wait()
		if err != nil || st != sts[i] {
			return fmt.Errorf("Wait after Testall: %+v, %v; want %+v", st, err, sts[i])
		}
		ok, st, err := reqs[i].Test()
		if !ok || err != nil || st != sts[i] {
			return fmt.Errorf("Test after Wait: %v, %+v, %v; want %+v", ok, st, err, sts[i])
		}
	}
	return nil
}

// test is round 2: Request.Test polling loops, then Wait twice.
func (rv requestsReceiver) test() error {
	k, checkOne := len(rv.sizes), rv.checkOne
	reqs, bufs, err := rv.post(2)
	if err != nil {
		return err
	}
	if err := rv.goAhead(); err != nil {
		return err
	}
	for i := k - 1; i >= 0; i-- {
		deadline := time.Now().Add(20 * time.Second)
		for {
			ok, st, err := reqs[i].Test()
			if err != nil {
				return fmt.Errorf("Test: %w", err)
			}
			if ok {
				if err := checkOne("Test", 2, i, st, bufs); err != nil {
					return err
				}
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("Test of request %d polled 20s without completing", i)
			}
		}
		st1, err1 := reqs[i].Wait()
		st2, err2 := reqs[i].Wait()
		if st1 != st2 || err1 != nil || err2 != nil {
			return fmt.Errorf("Wait twice: %+v, %v then %+v, %v", st1, err1, st2, err2)
		}
	}
	return nil
}

// ---- ProcNull ----

// scenarioProcNull checks that every point-to-point call with ProcNull
// as a peer completes at once, moving nothing, with ProcNull's status.
func scenarioProcNull(w *mpi.Comm) error {
	start := time.Now()
	buf := []float32{1, 2, 3}
	if err := procNullBlocking(w, buf); err != nil {
		return err
	}
	if err := procNullNonblocking(w, buf); err != nil {
		return err
	}
	st, err := mpi.Sendrecv(w, buf, mpi.ProcNull, 1, buf, mpi.ProcNull, 2)
	if err != nil || st.Source != mpi.ProcNull {
		return fmt.Errorf("Sendrecv with ProcNull: %+v, %v", st, err)
	}
	if err := procNullLineShift(w); err != nil {
		return err
	}
	if ok, st, err := w.Iprobe(mpi.ProcNull, mpi.AnyTag); !ok || err != nil || st.Source != mpi.ProcNull {
		return fmt.Errorf("Iprobe(ProcNull): %v, %+v, %v", ok, st, err)
	}
	if st, err := w.Probe(mpi.ProcNull, 3); err != nil || st.Source != mpi.ProcNull {
		return fmt.Errorf("Probe(ProcNull): %+v, %v", st, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		return fmt.Errorf("ProcNull operations took %v", d)
	}
	return mpi.Barrier(w)
}

// procNullBlocking sends buf to ProcNull and receives into it from
// ProcNull, which must leave it as it was.
func procNullBlocking(w *mpi.Comm, buf []float32) error {
	if err := mpi.Send(w, buf, mpi.ProcNull, 5); err != nil {
		return fmt.Errorf("Send to ProcNull: %w", err)
	}
	st, err := mpi.Recv(w, buf, mpi.ProcNull, 5)
	if err != nil {
		return fmt.Errorf("Recv from ProcNull: %w", err)
	}
	if err := checkStatus("Recv from ProcNull", st, mpi.ProcNull, mpi.AnyTag, 0, 0); err != nil {
		return err
	}
	if buf[0] != 1 || buf[1] != 2 || buf[2] != 3 {
		return fmt.Errorf("Recv from ProcNull wrote the buffer: %v", buf)
	}
	return nil
}

// procNullNonblocking checks that an Isend to ProcNull and an Irecv
// from it are complete at once, by Test and by Waitany.
func procNullNonblocking(w *mpi.Comm, buf []float32) error {
	rs, err := mpi.Isend(w, buf, mpi.ProcNull, 1)
	if err != nil {
		return err
	}
	rr, err := mpi.Irecv(w, buf, mpi.ProcNull, mpi.AnyTag)
	if err != nil {
		return err
	}
	if ok, _, err := rs.Test(); !ok || err != nil {
		return fmt.Errorf("Test of Isend to ProcNull: %v, %v", ok, err)
	}
	if ok, st, err := rr.Test(); !ok || err != nil || st.Source != mpi.ProcNull || st.Count != 0 {
		return fmt.Errorf("Test of Irecv from ProcNull: %v, %+v, %v", ok, st, err)
	}
	reqs := []*mpi.Request{rs, rr}
	if i, st, err := mpi.Waitany(reqs); i != 0 || err != nil {
		return fmt.Errorf("Waitany of ProcNull requests: %d, %+v, %v", i, st, err)
	}
	if i, st, err := mpi.Waitany(reqs); i != 1 || err != nil || st.Source != mpi.ProcNull {
		return fmt.Errorf("Waitany of ProcNull requests: %d, %+v, %v", i, st, err)
	}
	return nil
}

// procNullLineShift shifts ranks along a line, not a ring, with
// Sendrecv: the ends send to or receive from ProcNull.
func procNullLineShift(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	dest, src := me+1, me-1
	if dest == n {
		dest = mpi.ProcNull
	}
	if src < 0 {
		src = mpi.ProcNull
	}
	got := []int{-7}
	st, err := mpi.Sendrecv(w, []int{me}, dest, 3, got, src, 3)
	if err != nil {
		return fmt.Errorf("line shift: %w", err)
	}
	if src == mpi.ProcNull {
		if st.Source != mpi.ProcNull || got[0] != -7 {
			return fmt.Errorf("line shift from ProcNull: %+v, %v", st, got)
		}
	} else if st.Source != src || got[0] != src {
		return fmt.Errorf("line shift: %+v, %v", st, got)
	}
	return nil
}

// ---- errors ----

// scenarioErrors checks the errors of point-to-point calls with invalid
// ranks and tags, and of truncated messages of every protocol, and that
// the job still works after them.
func scenarioErrors(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	buf := make([]int, 4)
	return firstError(
		func() error { return errorsInvalidRanks(w, buf) },
		func() error { return errorsInvalidTags(w, buf) },
		func() error { return errorsTruncated(w, E) },
		func() error { return errorsTruncatedLarge(w) },
		func() error { return errorsTruncatedToNothing(w, E) },
		func() error { return errorsJobStillWorks(w, E) },
	)
}

// errorsInvalidRanks checks that every call with an invalid rank fails
// with ErrRank, naming the rank.
func errorsInvalidRanks(w *mpi.Comm, buf []int) error {
	n := w.Size()
	for _, dest := range []int{n, n + 5, -1, -3, math.MinInt} {
		want := func(what string, err error) error {
			if !errors.Is(err, mpi.ErrRank) {
				return fmt.Errorf("%s rank %d: error %v, want ErrRank", what, dest, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprint(dest)) {
				return fmt.Errorf("%s rank %d: error %q does not name the rank", what, dest, err)
			}
			return nil
		}
		if err := want("Send to", mpi.Send(w, buf, dest, 0)); err != nil {
			return err
		}
		_, err := mpi.Isend(w, buf, dest, 0)
		if err := want("Isend to", err); err != nil {
			return err
		}
		_, err = mpi.Sendrecv(w, buf, dest, 0, buf, 0, 0)
		if err := want("Sendrecv to", err); err != nil {
			return err
		}
		if dest != mpi.AnySource {
			_, err = mpi.Recv(w, buf, dest, 0)
			if err := want("Recv from", err); err != nil {
				return err
			}
			_, err = mpi.Irecv(w, buf, dest, 0)
			if err := want("Irecv from", err); err != nil {
				return err
			}
			_, _, err = w.Iprobe(dest, 0)
			if err := want("Iprobe", err); err != nil {
				return err
			}
		}
	}
	return nil
}

// errorsInvalidTags checks that every call with an invalid tag fails
// with ErrTag, and that the largest tag works.
func errorsInvalidTags(w *mpi.Comm, buf []int) error {
	me := w.Rank()
	for _, tag := range []int{-1, -2, -1000, mpi.TagUB + 1} {
		if err := mpi.Send(w, buf, right(w), tag); !errors.Is(err, mpi.ErrTag) {
			return fmt.Errorf("Send with tag %d: %v, want ErrTag", tag, err)
		}
		if _, err := mpi.Isend(w, buf, right(w), tag); !errors.Is(err, mpi.ErrTag) {
			return fmt.Errorf("Isend with tag %d: %v, want ErrTag", tag, err)
		}
		if tag != mpi.AnyTag {
			if _, err := mpi.Recv(w, buf, left(w), tag); !errors.Is(err, mpi.ErrTag) {
				return fmt.Errorf("Recv with tag %d: %v, want ErrTag", tag, err)
			}
			if _, err := w.Probe(left(w), tag); !errors.Is(err, mpi.ErrTag) {
				return fmt.Errorf("Probe with tag %d: %v, want ErrTag", tag, err)
			}
		}
	}
	// The largest tag works.
	if _, err := mpi.Sendrecv(w, []int{me}, right(w), mpi.TagUB, buf[:1], left(w), mpi.TagUB); err != nil || buf[0] != left(w) {
		return fmt.Errorf("Sendrecv with TagUB: %v, got %d", err, buf[0])
	}
	return nil
}

// errorsTruncated checks truncation, eager and rendezvous, blocking and
// not: each rank sends to its right neighbour, which receives into a
// buffer too small.
func errorsTruncated(w *mpi.Comm, E int) error {
	for k, size := range []int{100, E + 1000, 1 << 20} {
		tag := 50 + k
		msg := pattern[byte](size, size)
		if err := truncatedRecv(w, msg, tag); err != nil {
			return err
		}
		if err := truncatedIrecv(w, msg, tag); err != nil {
			return err
		}
	}
	return nil
}

// truncatedRecv sends msg to the right neighbour, which receives it
// with Recv into 50 bytes.
func truncatedRecv(w *mpi.Comm, msg []byte, tag int) error {
	size, small := len(msg), 50
	sreq, err := mpi.Isend(w, msg, right(w), tag)
	if err != nil {
		return err
	}
	got := make([]byte, small)
	st, err := mpi.Recv(w, got, left(w), tag)
	if err := checkTruncated(fmt.Sprintf("Recv of %d bytes into %d", size, small), err, size, small); err != nil {
		return err
	}
	if st.Bytes != size || st.Count != small || st.Source != left(w) || st.Tag != tag {
		return fmt.Errorf("truncated Recv: status %+v, want Bytes %d Count %d", st, size, small)
	}
	if d := diff(got, msg[:small]); d != "" {
		return fmt.Errorf("truncated Recv: the buffer does not hold the beginning: %s", d)
	}
	if _, err := sreq.Wait(); err != nil {
		return fmt.Errorf("send of a message truncated at the receiver: %v", err)
	}
	return nil
}

// truncatedIrecv sends msg to the right neighbour, which receives it
// with Irecv into 3 float64 elements (8 per 64 bytes), and waits twice.
func truncatedIrecv(w *mpi.Comm, msg []byte, tag int) error {
	size := len(msg)
	sreq, err := mpi.Isend(w, msg, right(w), tag)
	if err != nil {
		return err
	}
	fl := make([]float64, 3)
	rreq, err := mpi.Irecv(w, fl, left(w), tag)
	if err != nil {
		return err
	}
	st, err := rreq.Wait()
	if err := checkTruncated(fmt.Sprintf("Irecv of %d bytes into 24", size), err, size, 24); err != nil {
		return err
	}
	st2, err2 := rreq.Wait()
	if st2 != st || err2 == nil || err2.Error() != err.Error() {
		return fmt.Errorf("second Wait of a truncated Irecv: %+v, %v; first %+v, %v", st2, err2, st, err)
	}
	if st.Count != 3 || st.Bytes != size {
		return fmt.Errorf("truncated Irecv: status %+v, want Count 3 Bytes %d", st, size)
	}
	if _, err := sreq.Wait(); err != nil {
		return fmt.Errorf("send of a message truncated at the receiver: %v", err)
	}
	return nil
}

// errorsTruncatedLarge sends a large rendezvous message into a large but
// too small buffer (with -rndv split, both halves of the transfer are
// cut), which must not be written past.
func errorsTruncatedLarge(w *mpi.Comm) error {
	const size, small = 1<<20 + 5, 700001
	msg := pattern[byte](size, 11)
	sreq, err := mpi.Isend(w, msg, right(w), 59)
	if err != nil {
		return err
	}
	got := make([]byte, small+8)
	for i := small; i < len(got); i++ {
		got[i] = 0xEE
	}
	st, err := mpi.Recv(w, got[:small], left(w), 59)
	if err := checkTruncated(fmt.Sprintf("Recv of %d bytes into %d", size, small), err, size, small); err != nil {
		return err
	}
	if st.Bytes != size || st.Count != small {
		return fmt.Errorf("truncated Recv: status %+v, want Bytes %d Count %d", st, size, small)
	}
	if d := diff(got[:small], msg[:small]); d != "" {
		return fmt.Errorf("truncated Recv of %d bytes into %d: %s", size, small, d)
	}
	for i := small; i < len(got); i++ {
		if got[i] != 0xEE {
			return fmt.Errorf("truncated Recv of %d bytes into %d wrote byte %d past the buffer", size, small, i)
		}
	}
	if _, err := sreq.Wait(); err != nil {
		return fmt.Errorf("send of a message truncated at the receiver: %v", err)
	}
	return nil
}

// errorsTruncatedToNothing sends a rendezvous message into an empty
// buffer: nothing to transfer.
func errorsTruncatedToNothing(w *mpi.Comm, E int) error {
	sreq, err := mpi.Isend(w, pattern[byte](E+1000, 3), right(w), 60)
	if err != nil {
		return err
	}
	st, err := mpi.Recv[byte](w, nil, left(w), 60)
	if err := checkTruncated(fmt.Sprintf("Recv of %d bytes into none", E+1000), err, E+1000, 0); err != nil {
		return err
	}
	if st.Bytes != E+1000 || st.Count != 0 {
		return fmt.Errorf("truncated Recv into none: status %+v", st)
	}
	if _, err := sreq.Wait(); err != nil {
		return fmt.Errorf("send of a message truncated to nothing at the receiver: %v", err)
	}
	return nil
}

// errorsJobStillWorks checks that the job still works after the errors:
// a ring exchange of every protocol, a barrier.
func errorsJobStillWorks(w *mpi.Comm, E int) error {
	me := w.Rank()
	for _, size := range []int{1, E, E + 1, 300000} {
		got := make([]byte, size)
		st, err := mpi.Sendrecv(w, pattern[byte](size, me), right(w), 7, got, left(w), 7)
		if err != nil {
			return fmt.Errorf("after the errors, Sendrecv of %d bytes: %w", size, err)
		}
		if err := checkStatus("after the errors", st, left(w), 7, size, size); err != nil {
			return err
		}
		if d := diff(got, pattern[byte](size, left(w))); d != "" {
			return fmt.Errorf("after the errors, %d bytes: %s", size, d)
		}
	}
	return mpi.Barrier(w)
}

func checkTruncated(what string, err error, msg, buf int) error {
	if !errors.Is(err, mpi.ErrTruncate) {
		return fmt.Errorf("%s: error %v, want ErrTruncate", what, err)
	}
	for _, n := range []int{msg, buf} {
		if !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", n)) {
			return fmt.Errorf("%s: error %q does not give the size %d", what, err, n)
		}
	}
	return nil
}

// ---- lifecycle ----

// rawLifecycle checks Init, Finalize and the state around them: every
// call fails with ErrNotInitialized before Init and after Finalize, a
// request of before Finalize too, and neither Init nor Finalize works
// twice.
func rawLifecycle() error {
	if err := lifecycleBeforeInit(); err != nil {
		return err
	}
	w, err := lifecycleInit()
	if err != nil {
		return err
	}
	t0 := mpi.Wtime()
	r, err := lifecycleRun(w)
	if err != nil {
		return err
	}
	return lifecycleAfterFinalize(w, r, t0)
}

// wantNotInit checks that err, of what, wraps ErrNotInitialized.
func wantNotInit(what string, err error) error {
	if !errors.Is(err, mpi.ErrNotInitialized) {
		return fmt.Errorf("%s: error %v, want ErrNotInitialized", what, err)
	}
	return nil
}

// lifecycleCalls checks that the calls on w, and on r if not nil, fail
// with ErrNotInitialized.
func lifecycleCalls(when string, w *mpi.Comm, r *mpi.Request) error {
	buf := []int{1}
	_, statsErr := mpi.ReadStats()
	_, recvErr := mpi.Recv(w, buf, 0, 0)
	_, isendErr := mpi.Isend(w, buf, 0, 0)
	_, irecvErr := mpi.Irecv(w, buf, 0, 0)
	_, srErr := mpi.Sendrecv(w, buf, 0, 0, buf, 0, 0)
	_, _, iprobeErr := w.Iprobe(0, 0)
	_, probeErr := w.Probe(0, 0)
	for _, c := range []struct {
		what string
		err  error
	}{
		{"Send", mpi.Send(w, buf, 0, 0)}, {"Recv", recvErr}, {"Isend", isendErr}, {"Irecv", irecvErr},
		{"Sendrecv", srErr}, {"Iprobe", iprobeErr}, {"Probe", probeErr}, {"Barrier", mpi.Barrier(w)},
		{"ReadStats", statsErr},
	} {
		if err := wantNotInit(when+": "+c.what, c.err); err != nil {
			return err
		}
	}
	if r != nil {
		_, err := r.Wait()
		if err := wantNotInit(when+": Wait", err); err != nil {
			return err
		}
		_, _, err = r.Test()
		if err := wantNotInit(when+": Test", err); err != nil {
			return err
		}
		if _, err := mpi.Waitall([]*mpi.Request{r}); !errors.Is(err, mpi.ErrNotInitialized) {
			return fmt.Errorf("%s: Waitall: %v, want ErrNotInitialized", when, err)
		}
		if _, _, err := mpi.Waitany([]*mpi.Request{r}); !errors.Is(err, mpi.ErrNotInitialized) {
			return fmt.Errorf("%s: Waitany: %v, want ErrNotInitialized", when, err)
		}
	}
	return nil
}

// lifecycleBeforeInit checks the state before Init, and that the calls
// and Finalize fail.
func lifecycleBeforeInit() error {
	if mpi.Initialized() || mpi.Finalized() || mpi.World() != nil {
		return errors.New("initialized before Init")
	}
	if err := lifecycleCalls("before Init", nil, nil); err != nil {
		return err
	}
	return wantNotInit("Finalize before Init", mpi.Finalize())
}

// lifecycleInit runs Init, checks the state after it, and that Init
// twice fails; it returns World.
func lifecycleInit() (*mpi.Comm, error) {
	if err := mpi.Init(); err != nil {
		return nil, err
	}
	if !mpi.Initialized() || mpi.Finalized() {
		return nil, errors.New("Initialized/Finalized wrong after Init")
	}
	if err := mpi.Init(); err == nil {
		return nil, errors.New("Init twice succeeded")
	}
	w := mpi.World()
	if w.Rank() < 0 || w.Rank() >= w.Size() {
		return nil, fmt.Errorf("rank %d of %d", w.Rank(), w.Size())
	}
	return w, nil
}

// lifecycleRun checks Wtick and a Sendrecv on w, then Finalizes; it
// returns a request that completed before Finalize.
func lifecycleRun(w *mpi.Comm) (*mpi.Request, error) {
	if mpi.Wtick() <= 0 || mpi.Wtick() > 1e-3 {
		return nil, fmt.Errorf("Wtick %v", mpi.Wtick())
	}
	got := []int{-1}
	if _, err := mpi.Sendrecv(w, []int{w.Rank()}, right(w), 1, got, left(w), 1); err != nil || got[0] != left(w) {
		return nil, fmt.Errorf("Sendrecv: %v, got %v", err, got)
	}
	r, err := mpi.Isend(w, []int{1}, mpi.ProcNull, 0)
	if err != nil {
		return nil, err
	}
	if err := mpi.Barrier(w); err != nil {
		return nil, err
	}
	if err := mpi.Finalize(); err != nil {
		return nil, err
	}
	return r, nil
}

// lifecycleAfterFinalize checks the state after Finalize, that the calls
// on w and r fail, and that Finalize twice and Init after Finalize fail.
func lifecycleAfterFinalize(w *mpi.Comm, r *mpi.Request, t0 float64) error {
	if mpi.Wtime() < t0 {
		return errors.New("Wtime went backwards")
	}
	if mpi.Initialized() || !mpi.Finalized() || mpi.World() != nil {
		return errors.New("Initialized/Finalized/World wrong after Finalize")
	}
	if err := lifecycleCalls("after Finalize", w, r); err != nil {
		return err
	}
	if err := mpi.Finalize(); err == nil {
		return errors.New("Finalize twice succeeded")
	}
	if err := mpi.Init(); err == nil {
		return errors.New("Init after Finalize succeeded")
	}
	return nil
}

// ---- goroutines ----

// scenarioConcurrency exchanges messages around the ring from eight
// goroutines of every process at once, each in turn by Sendrecv,
// Isend/Irecv and Send/Recv, with barriers in a goroutine on the side.
func scenarioConcurrency(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	const goroutines = 8
	iters := 40
	if raceEnabled {
		iters = 15
	}
	sizes := []int{0, 16, 4096, E / 4 * 4, E/4*4 + 4, 100000, 64}
	errs := make(chan error, goroutines+1)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for it := range iters {
				size := sizes[(g+it)%len(sizes)]
				if how, err := concurrencyStep(w, g*10000+it, it, size); err != nil {
					errs <- fmt.Errorf("goroutine %d, iteration %d (%s, %d bytes): %w", g, it, how, size, err)
					return
				}
			}
		})
	}
	// Barriers on the side, in a goroutine of their own.
	wg.Go(func() {
		for i := range 20 {
			if err := mpi.Barrier(w); err != nil {
				errs <- fmt.Errorf("barrier %d: %w", i, err)
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	if len(all) > 0 {
		return errors.Join(all...)
	}
	return mpi.Barrier(w)
}

// concurrencyStep passes size bytes with tag to the right and receives
// them from the left, by the way iteration it names, which it returns,
// and checks the status and the data.
func concurrencyStep(w *mpi.Comm, tag, it, size int) (how string, err error) {
	me := w.Rank()
	send := pattern[uint32](size/4, me, right(w), tag)
	recv := make([]uint32, size/4)
	var st mpi.Status
	how = []string{"Sendrecv", "Isend/Irecv", "Send/Recv"}[it%3]
	switch it % 3 {
	case 0:
		st, err = mpi.Sendrecv(w, send, right(w), tag, recv, left(w), tag)
	case 1:
		var rr, rs *mpi.Request
		if rr, err = mpi.Irecv(w, recv, left(w), tag); err == nil {
			if rs, err = mpi.Isend(w, send, right(w), tag); err == nil {
				var sts []mpi.Status
				sts, err = mpi.Waitall([]*mpi.Request{rs, rr})
				st = sts[1]
			}
		}
	case 2:
		if me%2 == 0 {
			if err = mpi.Send(w, send, right(w), tag); err == nil {
				st, err = mpi.Recv(w, recv, left(w), tag)
			}
		} else {
			if st, err = mpi.Recv(w, recv, left(w), tag); err == nil {
				err = mpi.Send(w, send, right(w), tag)
			}
		}
	}
	if err == nil {
		err = checkStatus(how, st, left(w), tag, size/4, size/4*4)
	}
	if err == nil {
		if d := diff(recv, pattern[uint32](size/4, left(w), me, tag)); d != "" {
			err = errors.New(d)
		}
	}
	return how, err
}

// ---- NIC protection ----

// protectionForged is the PGID that scenarioProtection forges; its BOTF
// with it to a valid target writes protectionMarker at
// protectionMarkerOff (in the unused part of the bootstrap lock cell) of
// the right neighbour's bootstrap area.
const (
	protectionForged    = 0xbad0_0000_f00d
	protectionMarker    = "MARTINI!"
	protectionMarkerOff = 16
)

// nicAttempt is a request of scenarioProtection that the NIC must refuse
// for the violation v.
type nicAttempt struct {
	what string
	v    nicemu.Violation
	do   func(nic *nicemu.NIC, boot []nicemu.SID) error
}

// scenarioProtection makes requests that the NIC must refuse, and one
// with a forged PGID that it must correct, and checks the NIC's and the
// segment's counts of them and that normal traffic still works.
func scenarioProtection(w *mpi.Comm) error {
	before, err := readStats()
	if err != nil {
		return err
	}
	attempts := protectionAttempts(right(w), w.Size())
	refused, err := makeNICAttempts(attempts, right(w))
	if err != nil {
		return err
	}
	nAttempts := uint64(len(attempts))
	if err := checkRefusalStats(before, nAttempts, refused); err != nil {
		return err
	}
	// Everyone has made its attempts: the marker of the left neighbour is
	// in this rank's bootstrap area, and the job-wide count is complete.
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if err := checkForgedLanded(w, nAttempts); err != nil {
		return err
	}
	return protectionTrafficWorks(w, nAttempts)
}

// protectionAttempts returns the requests to dst, in a job of n
// processes, that the NIC must refuse.
func protectionAttempts(dst, n int) []nicAttempt {
	eight := make([]byte, 8)
	return []nicAttempt{
		{"PUSH to an unregistered SID", nicemu.ViolationBadSID, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.Push(dst, nicemu.NumSIDs-1, 0, eight, nil)
		}},
		{"PUSH to SID 0", nicemu.ViolationBadSID, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.Push(dst, 0, 0, eight, nil)
		}},
		{"PULL from an unregistered SID", nicemu.ViolationBadSID, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.Pull(dst, nicemu.NumSIDs-2, 0, eight, nil)
		}},
		{"PUSH past the end of the bootstrap area", nicemu.ViolationOutOfRange, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.Push(dst, boot[dst], 1<<40, eight, nil)
		}},
		{"PUSH straddling the end of the bootstrap area", nicemu.ViolationOutOfRange, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.Push(dst, boot[dst], uint64(128+128*n-4), eight, nil)
		}},
		{"PULL with a wrapping offset", nicemu.ViolationOutOfRange, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.Pull(dst, boot[dst], ^uint64(0)-3, eight, nil)
		}},
		{"CAS past the end", nicemu.ViolationOutOfRange, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			_, err := nic.CompareAndSwap(dst, boot[dst], 1<<20, 0, 1)
			return err
		}},
		{"PUSH to a rank outside the job", nicemu.ViolationBadProcess, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.Push(n, 1, 0, eight, nil)
		}},
		{"BOTF with a forged PGID to an unregistered SID", nicemu.ViolationBadSID, func(nic *nicemu.NIC, boot []nicemu.SID) error {
			return nic.BOTFImage(protectionForged, dst, nicemu.NumSIDs-1, 0, eight)
		}},
	}
}

// makeNICAttempts makes the attempts, then a BOTF with a forged PGID to
// a valid target on dst, whose PGID is overwritten with the real one:
// the write lands, and is counted. It returns the count of refusals for
// each violation.
func makeNICAttempts(attempts []nicAttempt, dst int) ([16]uint64, error) {
	marker := []byte(protectionMarker)
	var refused [16]uint64
	var failures []string
	err := mpi.WithNICForTest(func(nic *nicemu.NIC, boot []nicemu.SID) {
		for _, a := range attempts {
			err := a.do(nic, boot)
			var ae *nicemu.AccessError
			switch {
			case !errors.Is(err, nicemu.ErrRefused) || !errors.As(err, &ae):
				failures = append(failures, fmt.Sprintf("%s: error %v, want nicemu.ErrRefused", a.what, err))
			case ae.Violation != a.v:
				failures = append(failures, fmt.Sprintf("%s: refused for %v, want %v", a.what, ae.Violation, a.v))
			default:
				refused[a.v]++
			}
		}
		if err := nic.BOTFImage(protectionForged, dst, boot[dst], protectionMarkerOff, marker); err != nil {
			failures = append(failures, fmt.Sprintf("BOTF with a forged PGID to a valid target: %v", err))
		}
	})
	if err != nil {
		return refused, err
	}
	if len(failures) > 0 {
		return refused, errors.New(strings.Join(failures, "; "))
	}
	return refused, nil
}

// checkRefusalStats checks the NIC's counts of refusals, for each
// violation, and of PGID overwrites since before.
func checkRefusalStats(before fullStats, nAttempts uint64, refused [16]uint64) error {
	after, _ := readStats()
	if d := after.NIC.Refused - before.NIC.Refused; d != nAttempts {
		return fmt.Errorf("NIC stats: %d refused requests counted, want %d", d, nAttempts)
	}
	for v := range refused {
		if v >= len(after.NIC.RefusedBy) {
			break
		}
		if d := after.NIC.RefusedBy[v] - before.NIC.RefusedBy[v]; d != refused[v] {
			return fmt.Errorf("NIC stats: %d refusals for %v counted, want %d", d, nicemu.Violation(v), refused[v])
		}
	}
	if d := after.NIC.PGIDOverwrites - before.NIC.PGIDOverwrites; d != 2 {
		return fmt.Errorf("NIC stats: %d PGID overwrites counted, want 2", d)
	}
	return nil
}

// checkForgedLanded checks that the marker of the left neighbour's BOTF
// with a forged PGID is in this rank's bootstrap area, and the segment's
// count of the job's refused requests.
func checkForgedLanded(w *mpi.Comm, nAttempts uint64) error {
	me, n := w.Rank(), w.Size()
	var landed []byte
	mpi.WithNICForTest(func(nic *nicemu.NIC, boot []nicemu.SID) {
		buf := make([]byte, len(protectionMarker))
		if err := nic.Pull(me, boot[me], protectionMarkerOff, buf, nil); err == nil {
			landed = buf
		}
	})
	if string(landed) != protectionMarker {
		return fmt.Errorf("the BOTF with a forged PGID from rank %d did not land: %q", left(w), landed)
	}
	if got, want := mpi.SegmentRefusedForTest(), uint64(n)*nAttempts; got != want {
		return fmt.Errorf("segment: %d refused requests in the job, want %d", got, want)
	}
	return nil
}

// protectionTrafficWorks checks that normal traffic still works after the
// refusals, eager and rendezvous, in a ring, and is not counted refused.
func protectionTrafficWorks(w *mpi.Comm, nAttempts uint64) error {
	me, n := w.Rank(), w.Size()
	E, _ := eagerLimit()
	for _, size := range []int{0, 8, E, E + 1, 1 << 20} {
		got := make([]byte, size)
		st, err := mpi.Sendrecv(w, pattern[byte](size, me), right(w), 1, got, left(w), 1)
		if err != nil {
			return fmt.Errorf("after the refusals, %d bytes: %w", size, err)
		}
		if err := checkStatus("after the refusals", st, left(w), 1, size, size); err != nil {
			return err
		}
		if d := diff(got, pattern[byte](size, left(w))); d != "" {
			return fmt.Errorf("after the refusals, %d bytes: %s", size, d)
		}
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if got, want := mpi.SegmentRefusedForTest(), uint64(n)*nAttempts; got != want {
		return fmt.Errorf("segment: %d refused requests after normal traffic, want %d", got, want)
	}
	return nil
}

// ---- statistics ----

// scenarioStats checks the counts of eager and rendezvous messages and
// bytes that ReadStats reports on the sender (rank 0) and the receiver
// (rank 1), and the paths their NICs moved the data by.
func scenarioStats(w *mpi.Comm) error {
	st0, err := readStats()
	if err != nil {
		return err
	}
	if want := map[bool]string{true: "push", false: "pull"}[os.Getenv("MARTINI_RNDV") == "push"]; st0.Rendezvous != want {
		return fmt.Errorf("ReadStats: rendezvous %q, want %q", st0.Rendezvous, want)
	}
	p := newStatsPlan(st0)
	switch w.Rank() {
	case 0:
		if err := statsSender(w, p); err != nil {
			return err
		}
	case 1:
		if err := statsReceiver(w, p); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}

// statsPlan is what scenarioStats sends: the sizes of its eager and its
// rendezvous messages and their totals, which rank initiates rendezvous
// transfers, and whether CMA is off.
type statsPlan struct {
	eager, rndv           []int
	eagerBytes, rndvBytes uint64
	initiator             int
	noCMA                 bool
}

// The tags of scenarioStats: the receiver's go-ahead, and its report of
// what its NIC did.
const statsGoTag, statsReportTag = 1, 2

// newStatsPlan makes the plan for the eager limit and rendezvous
// protocol of st0.
func newStatsPlan(st0 fullStats) statsPlan {
	E := st0.EagerLimit
	p := statsPlan{
		eager: []int{0, 1, 100, E},
		rndv:  []int{E + 1, 1 << 20, 3<<20 + 5},
		noCMA: os.Getenv("MARTINI_NO_CMA") == "1",
	}
	for _, s := range p.eager {
		p.eagerBytes += uint64(s)
	}
	for _, s := range p.rndv {
		p.rndvBytes += uint64(s)
	}
	// The initiator of rendezvous transfers: the receiver reads (pull), the
	// sender writes (push).
	p.initiator = 1
	if st0.Rendezvous == "push" {
		p.initiator = 0
	}
	return p
}

// statsSender sends the messages of p to rank 1 once it says go, and
// checks its counts and, with rank 1's report, its NIC's paths.
func statsSender(w *mpi.Comm, p statsPlan) error {
	if _, err := mpi.Recv(w, []byte{0}, 1, statsGoTag); err != nil {
		return err
	}
	b, _ := readStats()
	for _, s := range append(append([]int{}, p.eager...), p.rndv...) {
		if err := mpi.Send(w, pattern[byte](s, s), 1, 3); err != nil {
			return err
		}
	}
	a, _ := readStats()
	d := delta(a.Protocol, b.Protocol)
	if d.EagerSent != uint64(len(p.eager)) || d.RndvSent != uint64(len(p.rndv)) || d.BytesSent != p.eagerBytes+p.rndvBytes {
		return fmt.Errorf("sender: %d eager and %d rendezvous sends of %d bytes counted, want %d, %d, %d",
			d.EagerSent, d.RndvSent, d.BytesSent, len(p.eager), len(p.rndv), p.eagerBytes+p.rndvBytes)
	}
	if a.Wait.Waits <= b.Wait.Waits {
		return errors.New("sender: no waits counted")
	}
	other := make([]uint64, 2)
	if _, err := mpi.Recv(w, other, 1, statsReportTag); err != nil {
		return err
	}
	return checkPaths("sender", b.NIC, a.NIC, p.initiator == 0, p.noCMA, len(p.rndv), p.rndvBytes, other)
}

// statsReceiver tells rank 0 to go, receives and checks the messages of
// p, checks its counts and its NIC's paths, and reports them to rank 0.
func statsReceiver(w *mpi.Comm, p statsPlan) error {
	b, _ := readStats()
	if err := mpi.Send(w, []byte{1}, 0, statsGoTag); err != nil {
		return err
	}
	for _, s := range append(append([]int{}, p.eager...), p.rndv...) {
		buf := make([]byte, s)
		if _, err := mpi.Recv(w, buf, 0, 3); err != nil {
			return err
		}
		if d := diff(buf, pattern[byte](s, s)); d != "" {
			return fmt.Errorf("%d bytes: %s", s, d)
		}
	}
	a, _ := readStats()
	d := delta(a.Protocol, b.Protocol)
	if d.EagerRecv != uint64(len(p.eager)) || d.RndvRecv != uint64(len(p.rndv)) || d.BytesRecv != p.eagerBytes+p.rndvBytes {
		return fmt.Errorf("receiver: %d eager and %d rendezvous receives of %d bytes counted, want %d, %d, %d",
			d.EagerRecv, d.RndvRecv, d.BytesRecv, len(p.eager), len(p.rndv), p.eagerBytes+p.rndvBytes)
	}
	// Tell the sender what this side's NIC did: bounce chunks it
	// initiated or served.
	report := []uint64{a.NIC.BounceOps - b.NIC.BounceOps, a.NIC.Served - b.NIC.Served}
	if err := mpi.Send(w, report, 0, statsReportTag); err != nil {
		return err
	}
	return checkPaths("receiver", b.NIC, a.NIC, p.initiator == 1, p.noCMA, len(p.rndv), p.rndvBytes, nil)
}

func delta(a, b llcCounters) llcCounters {
	return llcCounters{
		EagerSent: a.EagerSent - b.EagerSent, EagerRecv: a.EagerRecv - b.EagerRecv,
		RndvSent: a.RndvSent - b.RndvSent, RndvRecv: a.RndvRecv - b.RndvRecv,
		BytesSent: a.BytesSent - b.BytesSent, BytesRecv: a.BytesRecv - b.BytesRecv,
	}
}

// checkPaths checks which data path the NIC of one side used for the
// rendezvous transfers: single copy by cross-memory attach or the
// bounce buffers. other, on the sender, is the receiver's report of the
// bounce chunks it initiated and served.
// fullStats is what ReadStats says with the NIC's own counters.
type fullStats struct {
	mpi.Stats
	NIC nicemu.Stats
}

// readStats reads the process's counters and its NIC's.
func readStats() (fullStats, error) {
	st, err := mpi.ReadStats()
	return fullStats{st, mpi.NICStatsForTest()}, err
}

func checkPaths(side string, b, a nicemu.Stats, initiator, noCMA bool, msgs int, nbytes uint64, other []uint64) error {
	cmaOps, cmaBytes := a.CMAOps-b.CMAOps, a.CMABytes-b.CMABytes
	bounceOps, bounceBytes := a.BounceOps-b.BounceOps, a.BounceBytes-b.BounceBytes
	served := a.Served - b.Served
	if !initiator {
		if cmaOps != 0 || bounceOps != 0 {
			return fmt.Errorf("%s: %d CMA and %d bounce transfers, but the other side initiates", side, cmaOps, bounceOps)
		}
		if other != nil && served != other[0] {
			return fmt.Errorf("%s: served %d bounce chunks, the receiver initiated %d", side, served, other[0])
		}
		if noCMA && served == 0 {
			return fmt.Errorf("%s: with -no-cma no bounce chunk was served", side)
		}
		return nil
	}
	if other != nil && other[1] != bounceOps {
		return fmt.Errorf("%s: %d bounce chunks initiated, the receiver served %d", side, bounceOps, other[1])
	}
	cmaWorks := true
	mpi.WithNICForTest(func(nic *nicemu.NIC, _ []nicemu.SID) { cmaWorks = nic.CMA() })
	switch {
	case noCMA:
		if cmaOps != 0 || bounceBytes != nbytes || bounceOps < uint64(msgs) {
			return fmt.Errorf("%s with -no-cma: %d CMA ops, %d bounce ops of %d bytes; want 0 CMA, bounce of %d bytes", side, cmaOps, bounceOps, bounceBytes, nbytes)
		}
	case cmaWorks:
		if cmaOps != uint64(msgs) || cmaBytes != nbytes || bounceOps != 0 {
			return fmt.Errorf("%s: %d CMA ops of %d bytes, %d bounce ops; want %d CMA ops of %d bytes", side, cmaOps, cmaBytes, bounceOps, msgs, nbytes)
		}
	default: // the kernel refused cross-memory attach: bounce buffers
		if bounceBytes != nbytes {
			return fmt.Errorf("%s (CMA denied by the kernel): %d bounce bytes, want %d", side, bounceBytes, nbytes)
		}
	}
	return nil
}

// ---- barrier ----

func scenarioBarrier(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	// Every rank tells every other that it reached iteration i before
	// entering barrier i; after the barrier those messages are there.
	rounds, loops := 30, 200
	if raceEnabled {
		rounds, loops = 15, 50
	}
	for i := range rounds {
		if me == i%n {
			time.Sleep(2 * time.Millisecond) // be late
		}
		for p := range n {
			if p != me {
				if err := mpi.Send(w, []int32{int32(i)}, p, i); err != nil {
					return err
				}
			}
		}
		if err := mpi.Barrier(w); err != nil {
			return fmt.Errorf("barrier %d: %w", i, err)
		}
		for p := range n {
			if p == me {
				continue
			}
			found := false
			for try := 0; try < 1000 && !found; try++ {
				ok, _, err := w.Iprobe(p, i)
				if err != nil {
					return err
				}
				found = ok
			}
			if !found {
				return fmt.Errorf("after barrier %d, the message rank %d sent before entering it is not there", i, p)
			}
			v := []int32{-1}
			if _, err := mpi.Recv(w, v, p, i); err != nil || v[0] != int32(i) {
				return fmt.Errorf("iteration %d from %d: %v, %v", i, p, v, err)
			}
		}
	}
	start := time.Now()
	for i := range loops {
		if err := mpi.Barrier(w); err != nil {
			return fmt.Errorf("barrier loop %d: %w", i, err)
		}
	}
	if me == 0 {
		fmt.Printf("barrier: %d ranks: %v per barrier\n", n, time.Since(start)/time.Duration(loops))
	}
	return nil
}

// ---- a job of one ----

func scenarioSelf(w *mpi.Comm) error {
	if w.Size() != 1 || w.Rank() != 0 {
		return fmt.Errorf("rank %d of %d, want 0 of 1", w.Rank(), w.Size())
	}
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	for _, size := range []int{0, 1, E, E + 1, 2 << 20} {
		buf := make([]byte, size)
		r, err := mpi.Irecv(w, buf, 0, 4)
		if err != nil {
			return err
		}
		if err := mpi.Send(w, pattern[byte](size, 9), 0, 4); err != nil {
			return fmt.Errorf("Send of %d bytes to itself: %w", size, err)
		}
		st, err := r.Wait()
		if err != nil {
			return err
		}
		if err := checkStatus("from itself", st, 0, 4, size, size); err != nil {
			return err
		}
		if d := diff(buf, pattern[byte](size, 9)); d != "" {
			return fmt.Errorf("%d bytes from itself: %s", size, d)
		}
		got := make([]byte, size)
		if _, err := mpi.Sendrecv(w, buf, 0, 5, got, 0, 5); err != nil {
			return fmt.Errorf("Sendrecv of %d bytes with itself: %w", size, err)
		}
		if d := diff(got, buf); d != "" {
			return fmt.Errorf("Sendrecv with itself, %d bytes: %s", size, d)
		}
	}
	// Eager messages to itself without a receive posted.
	for i := range 100 {
		if err := mpi.Send(w, []int{i}, 0, 6); err != nil {
			return err
		}
	}
	for i := range 100 {
		v := []int{-1}
		if _, err := mpi.Recv(w, v, mpi.AnySource, 6); err != nil || v[0] != i {
			return fmt.Errorf("message %d to itself: %v, %v", i, v, err)
		}
	}
	return mpi.Barrier(w)
}

// ---- failures, run with mpirun expecting it to fail ----

// blockInRecv reports on stdout, then blocks in a Recv from rank from that
// never comes.
func blockInRecv(w *mpi.Comm, from int) error {
	fmt.Printf("rank %d blocked in Recv (pid %d)\n", w.Rank(), os.Getpid())
	_, err := mpi.Recv(w, make([]byte, 8), from, 0)
	return fmt.Errorf("Recv returned: %v", err)
}

func rawFailPanic() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 1 {
		time.Sleep(300 * time.Millisecond)
		panic("scenario fail-panic: rank 1 panics on purpose")
	}
	return blockInRecv(w, 1)
}

func rawFailAbort(code int) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 1 {
		time.Sleep(300 * time.Millisecond)
		w.Abort(code)
		return errors.New("Abort returned")
	}
	return blockInRecv(w, 1)
}

// rawFailNoFinalize: rank 1 returns from main without Finalize; the others
// finalize, as a correct program does.
func rawFailNoFinalize() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 1 {
		os.Exit(0)
	}
	return mpi.Finalize()
}

// rawFailUnreceived: rank 0 starts a rendezvous send to rank 1 that rank
// 1 never receives, and both call Finalize: rank 1's Finalize fails,
// naming the message, instead of the job hanging.
func rawFailUnreceived() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	if w.Rank() == 0 {
		if _, err := mpi.Isend(w, make([]byte, E+1), 1, 5); err != nil {
			return err
		}
	}
	return mpi.Finalize()
}

// rawFailDeadlock: both ranks receive first.
func rawFailDeadlock() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	return blockInRecv(w, right(w))
}

func rawAbortInFinalize() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	if w.Rank() == 0 {
		go func() {
			time.Sleep(300 * time.Millisecond)
			w.Abort(4)
		}()
		// Rank 1 never finalizes: this waits until the Abort.
		err := mpi.Finalize()
		return fmt.Errorf("Finalize returned: %v", err)
	}
	return blockInRecv(w, 0)
}

// ---- resource exhaustion and engine failure ----

// scenarioExhaust (2 ranks, pull rendezvous): more rendezvous Isends than
// the NIC has SIDs to register their buffers. The excess fail with a clear
// error; a Sendrecv whose send cannot register fails too, instead of
// waiting for a reply that the partner, in the same state, cannot send;
// and once the pending messages are received everything works again.
func scenarioExhaust(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	if n != 2 {
		return fmt.Errorf("needs 2 ranks, not %d", n)
	}
	st, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	if st.Rendezvous != "pull" {
		return fmt.Errorf("needs pull rendezvous, not %s", st.Rendezvous)
	}
	partner := 1 - me
	size := st.EagerLimit + 1
	msg := pattern[byte](size, 77)
	// Connect both ways first: a process whose SID table is full cannot
	// register the ring a new connection needs (see scenarioSIDsFirst).
	got := make([]byte, size)
	if _, err := mpi.Sendrecv(w, msg, partner, 5, got, partner, 5); err != nil {
		return err
	}
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	sent, err := exhaustSIDs(w, partner, msg)
	if err != nil {
		return err
	}
	defer exhaustWatchdog(me)()
	if err := exhaustedStillTalks(w, partner, msg, got, sent); err != nil {
		return err
	}
	return exhaustRecovered(w, partner, msg, got)
}

// exhaustSIDs makes more rendezvous Isends of msg to partner than the NIC
// has SIDs: the excess must fail, naming the full SID table. It returns
// the Isends that registered their buffers.
func exhaustSIDs(w *mpi.Comm, partner int, msg []byte) ([]*mpi.Request, error) {
	const N = nicemu.NumSIDs + 50
	var sent []*mpi.Request
	var failed int
	var firstErr error
	for i := range N {
		r, err := mpi.Isend(w, msg, partner, 1)
		if err != nil {
			return nil, fmt.Errorf("Isend %d: %w", i, err)
		}
		switch done, _, err := r.Test(); {
		case done && err != nil:
			failed++
			if firstErr == nil {
				firstErr = err
			}
		case done:
			return nil, fmt.Errorf("rendezvous Isend %d completed before the partner received it", i)
		default:
			sent = append(sent, r)
		}
	}
	if failed == 0 {
		return nil, fmt.Errorf("all %d rendezvous Isends registered their buffers, with %d SIDs", N, nicemu.NumSIDs)
	}
	if !strings.Contains(firstErr.Error(), "SID table full") {
		return nil, fmt.Errorf("the first failed Isend: %v; want an error naming the full SID table", firstErr)
	}
	return sent, nil
}

// exhaustWatchdog stops the process if the rest of scenarioExhaust, up to
// a call of the function it returns, takes more than 20 seconds: a
// Sendrecv whose send cannot register must not hang.
func exhaustWatchdog(me int) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			fmt.Fprintf(os.Stderr, "rank %d: Sendrecv with a send that cannot register hangs\n", me)
			os.Exit(1)
		}
	}()
	return func() { close(done) }
}

// exhaustedStillTalks checks, with the SID table full, that a rendezvous
// Sendrecv fails instead of waiting and that eager messages, which need
// no registration, work; then the pending messages are received and the
// Isends sent complete.
func exhaustedStillTalks(w *mpi.Comm, partner int, msg, got []byte, sent []*mpi.Request) error {
	if _, err := mpi.Sendrecv(w, msg, partner, 2, got, partner, 2); err == nil {
		return errors.New("a rendezvous Sendrecv succeeded with the SID table full")
	}
	// Eager messages need no registration.
	other := []int{-1}
	if _, err := mpi.Sendrecv(w, []int{len(sent)}, partner, 3, other, partner, 3); err != nil {
		return fmt.Errorf("eager Sendrecv with the SID table full: %w", err)
	}
	for i := range other[0] {
		if _, err := mpi.Recv(w, got, partner, 1); err != nil {
			return fmt.Errorf("receiving pending message %d of %d: %w", i, other[0], err)
		}
		if d := diff(got, msg); d != "" {
			return fmt.Errorf("pending message %d: %s", i, d)
		}
	}
	if _, err := mpi.Waitall(sent); err != nil {
		return fmt.Errorf("the Isends that registered: %w", err)
	}
	return mpi.Barrier(w)
}

// exhaustRecovered checks that the SIDs are free again: a rendezvous
// Sendrecv works.
func exhaustRecovered(w *mpi.Comm, partner int, msg, got []byte) error {
	clear(got)
	if _, err := mpi.Sendrecv(w, msg, partner, 4, got, partner, 4); err != nil {
		return fmt.Errorf("rendezvous Sendrecv after the exhaustion: %w", err)
	}
	if d := diff(got, msg); d != "" {
		return fmt.Errorf("rendezvous Sendrecv after the exhaustion: %s", d)
	}
	return mpi.Barrier(w)
}

// bootReqOff is where a connection request lands in a process's bootstrap
// area (llc/connect.go).
const bootReqOff = 64

// scenarioEngineFail (2 ranks): rank 1 writes a corrupt connection request
// (from a process that does not exist) into rank 0's bootstrap area, which
// stops rank 0's protocol engine. Every call of rank 0 must then report
// the failure instead of waiting for messages that cannot come. Rank 1
// sends rank 0 nothing before: a process watches its request slot only
// until every other process has asked it for a connection.
func scenarioEngineFail(w *mpi.Comm) error {
	me := w.Rank()
	if w.Size() != 2 {
		return fmt.Errorf("needs 2 ranks, not %d", w.Size())
	}
	if me == 1 {
		return engineFailCorrupt(w)
	}
	// Rank 0's connection to rank 1, with a message through it, then the
	// word that has rank 1 write the request.
	if err := mpi.Send(w, pattern[byte](8, 1), 1, 1); err != nil {
		return err
	}
	if err := mpi.Send(w, []byte{1}, 1, 2); err != nil {
		return err
	}
	return engineFailChecks(w)
}

// engineFailCorrupt, on rank 1, receives rank 0's message and word and
// then writes the corrupt connection request into rank 0's bootstrap
// area.
func engineFailCorrupt(w *mpi.Comm) error {
	got := make([]byte, 8)
	if _, err := mpi.Recv(w, got, 0, 1); err != nil {
		return err
	}
	if d := diff(got, pattern[byte](8, 1)); d != "" {
		return fmt.Errorf("rank 0's message: %s", d)
	}
	if _, err := mpi.Recv(w, []byte{0}, 0, 2); err != nil {
		return err
	}
	var err error
	mpi.WithNICForTest(func(nic *nicemu.NIC, boot []nicemu.SID) {
		var b [8]byte
		b[0], b[1] = 0xad, 0xde // process 0xdeac + 1
		err = nic.Push(0, boot[0], bootReqOff, b[:], nil)
	})
	return err
}

// engineFailChecks, on rank 0, checks that Probe, Iprobe, Send, Recv and
// Barrier each report the failed engine, and exits the process if one
// hangs for 20 seconds.
func engineFailChecks(w *mpi.Comm) error {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			fmt.Fprintln(os.Stderr, "rank 0: a call hangs after the engine failed")
			os.Exit(1)
		}
	}()
	const want = "corrupt connection request"
	check := func(what string, err error) error {
		if err == nil || !strings.Contains(err.Error(), want) {
			return fmt.Errorf("%s after the engine failed: error %v, want one naming the %s", what, err, want)
		}
		return nil
	}
	_, err := w.Probe(1, 9)
	if err := check("Probe", err); err != nil {
		return err
	}
	_, _, err = w.Iprobe(mpi.AnySource, mpi.AnyTag)
	if err := check("Iprobe", err); err != nil {
		return err
	}
	if err := check("Send", mpi.Send(w, []byte{1}, 1, 9)); err != nil {
		return err
	}
	_, err = mpi.Recv(w, []byte{0}, 1, 9)
	if err := check("Recv", err); err != nil {
		return err
	}
	return check("Barrier", mpi.Barrier(w))
}

// scenarioSIDsFirst (2 ranks) reproduces an llc limitation: rank 0 fills
// its SID table before rank 1 first sends to it, so rank 0 cannot
// register a ring for rank 1 and refuses the connection ("ring cap
// reached", although the cap is not the cause); once rank 0 has freed its
// SIDs, rank 1's sends should work again, but the connection stays failed.
func scenarioSIDsFirst(w *mpi.Comm) error {
	if w.Size() != 2 {
		return fmt.Errorf("needs 2 ranks, not %d", w.Size())
	}
	if w.Rank() == 1 {
		time.Sleep(500 * time.Millisecond) // rank 0 fills its SID table
		err := mpi.Send(w, []byte{1}, 0, 1)
		fmt.Printf("rank 1: Send while rank 0's SID table is full: %v\n", err)
		time.Sleep(time.Second) // rank 0 frees its SIDs
		if err := mpi.Send(w, []byte{2}, 0, 1); err != nil {
			return fmt.Errorf("Send once rank 0 has free SIDs again: %w", err)
		}
		return nil
	}
	var sids []nicemu.SID
	var regErr error
	buf := make([]byte, 64)
	mpi.WithNICForTest(func(nic *nicemu.NIC, _ []nicemu.SID) {
		for {
			sid, err := nic.RegisterMemory(buf)
			if err != nil {
				regErr = err
				return
			}
			sids = append(sids, sid)
		}
	})
	fmt.Printf("rank 0: registered %d SIDs, then: %v\n", len(sids), regErr)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		w.Iprobe(1, 1) // serve the connection request
	}
	mpi.WithNICForTest(func(nic *nicemu.NIC, _ []nicemu.SID) {
		for _, sid := range sids {
			nic.Deregister(sid)
		}
	})
	got := []byte{0}
	for {
		if _, err := mpi.Recv(w, got, 1, 1); err != nil {
			return err
		}
		if got[0] == 2 {
			return nil
		}
	}
}

// scenarioBarrierRefused: every rank fills its SID table before any
// communication, so that no rank can register the ring a peer's first
// message needs and every barrier token's send fails. Barrier must then
// return (an error, or success if the connections are retried once the
// SIDs are freed a second later), not wait for tokens that cannot come.
func scenarioBarrierRefused(w *mpi.Comm) error {
	var sids []nicemu.SID
	buf := make([]byte, 64)
	mpi.WithNICForTest(func(nic *nicemu.NIC, _ []nicemu.SID) {
		for {
			sid, err := nic.RegisterMemory(buf)
			if err != nil {
				return
			}
			sids = append(sids, sid)
		}
	})
	done := make(chan error, 1)
	go func() { done <- mpi.Barrier(w) }()
	time.Sleep(time.Second)
	mpi.WithNICForTest(func(nic *nicemu.NIC, _ []nicemu.SID) {
		for _, sid := range sids {
			nic.Deregister(sid)
		}
	})
	select {
	case err := <-done:
		fmt.Printf("rank %d: Barrier with no ring to be had: %v\n", w.Rank(), err)
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("Barrier hangs when its token cannot be sent")
	}
}

// rawFinalizeSettles ends a job with a Bcast whose counts differ (the
// last rank's): the root's part is done before the others arrive, and
// every rank must report the difference, from the Bcast or from Finalize.
func rawFinalizeSettles() error { return finalizeSettles(false) }

// rawFinalizeSettlesDup is rawFinalizeSettles on a duplicate of World that
// is never freed: Finalize settles every communicator.
func rawFinalizeSettlesDup() error { return finalizeSettles(true) }

func finalizeSettles(dup bool) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if dup {
		d, err := w.Dup()
		if err != nil {
			return err
		}
		w = d
	}
	// A broadcast that matches first: the root's connections exist, so
	// that its part of the next one needs no one else.
	if err := mpi.Bcast(w, make([]int32, 4), 0); err != nil {
		return err
	}
	n := 4
	if w.Rank() == w.Size()-1 {
		n = 5
	}
	if w.Rank() != 0 {
		time.Sleep(20 * time.Millisecond)
	}
	berr := mpi.Bcast(w, make([]int32, n), 0)
	ferr := mpi.Finalize()
	switch {
	case berr == nil && !errors.Is(ferr, mpi.ErrMismatch):
		return fmt.Errorf("rank %d: Bcast of differing counts: no error, and Finalize returned %v", w.Rank(), ferr)
	case berr != nil && !errors.Is(berr, mpi.ErrMismatch):
		return fmt.Errorf("rank %d: Bcast of differing counts: %v, want ErrMismatch", w.Rank(), berr)
	case berr != nil && ferr != nil:
		return fmt.Errorf("rank %d: Finalize after the Bcast's error: %v", w.Rank(), ferr)
	}
	return nil
}

// rawFinalizePending calls Finalize while another goroutine is blocked in
// a Recv that no one will match and a third keeps calling Iprobe: the
// blocked call returns ErrFinalized, later calls ErrNotInitialized, and
// nothing crashes.
func rawFinalizePending() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	peer := (w.Rank() + 1) % w.Size()
	blocked := make(chan error, 1)
	go func() {
		_, err := mpi.Recv(w, make([]byte, 8), peer, 77)
		blocked <- err
	}()
	stop := make(chan struct{})
	probing := make(chan error, 1)
	go func() {
		for {
			if _, _, err := w.Iprobe(peer, 78); err != nil {
				probing <- err
				return
			}
			select {
			case <-stop:
				probing <- nil
				return
			default:
			}
		}
	}()
	if err := mpi.Barrier(w); err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond)
	if err := mpi.Finalize(); err != nil {
		return err
	}
	select {
	case err := <-blocked:
		if !errors.Is(err, mpi.ErrFinalized) {
			return fmt.Errorf("Recv pending at Finalize returned %v, want ErrFinalized", err)
		}
	case <-time.After(5 * time.Second):
		return errors.New("Recv pending at Finalize did not return")
	}
	select {
	case err := <-probing:
		// ErrFinalized if it was inside the call during Finalize.
		if !errors.Is(err, mpi.ErrNotInitialized) && !errors.Is(err, mpi.ErrFinalized) {
			return fmt.Errorf("Iprobe after Finalize returned %v, want ErrNotInitialized or ErrFinalized", err)
		}
	case <-time.After(5 * time.Second):
		close(stop)
		return errors.New("Iprobe after Finalize did not fail")
	}
	if _, err := mpi.Recv(w, make([]byte, 8), peer, 77); !errors.Is(err, mpi.ErrNotInitialized) {
		return fmt.Errorf("Recv after Finalize returned %v, want ErrNotInitialized", err)
	}
	return nil
}
