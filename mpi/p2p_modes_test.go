package mpi_test

// Multi-process tests of the send modes, matched probes, cancellation,
// persistent requests and Waitsome, in the style of MPICH's test suite
// (pt2pt/sendflood, ssendtest, bsendfrag, mprobe, cancelrecv, persistent,
// waitsome). Each runs at 2, 3, 4 and 8 ranks (8: more ranks than cores).

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["ssend-order"] = scenarioSsendOrder
	scenarios["ssend-sync"] = scenarioSsendSync
	scenarios["bsend"] = scenarioBsend
	scenarios["mprobe"] = scenarioMprobe
	scenarios["cancel"] = scenarioCancel
	scenarios["completed-requests"] = scenarioCompletedRequests
	scenarios["shared-completion"] = scenarioSharedCompletion
	scenarios["done-at-start"] = scenarioDoneAtStart
	scenarios["persistent"] = scenarioPersistent
	scenarios["waitsome"] = scenarioWaitsome
	scenarios["sendrecv-replace"] = scenarioSendrecvReplace
	scenarios["p2p-allocs"] = scenarioP2PAllocs
	// An eager Issend that no receive matches before Finalize.
	rawScenarios["fail-unreceived-ssend"] = rawFailUnreceivedSsend
}

func TestSsendOrder(t *testing.T) {
	t.Parallel()
	runAt(t, "ssend-order", nps(false))
	t.Run("queue-eager/np=3", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 3, "ssend-order", "-eager", "vp")
	})
}

func TestSsendSync(t *testing.T) {
	t.Parallel()
	runAt(t, "ssend-sync", nps(false))
	t.Run("push/np=2", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 2, "ssend-sync", "-rndv", "push")
	})
	t.Run("tcp/np=2", func(t *testing.T) {
		t.Parallel()
		runScenarioJob(t, 2, "ssend-sync", "-transport", "tcp")
	})
}

// The receiver of a synchronous message that no receive matched fails
// its Finalize naming it, as for a rendezvous message, instead of leaving
// the sender waiting forever.
func TestUnreceivedSsend(t *testing.T) {
	t.Parallel()
	r := runFailure(t, 2, "fail-unreceived-ssend", 1,
		`(?m)^mpirun: rank 1 \(pid \d+\) exited with status 1`, 10*time.Second)
	if !regexp.MustCompile(`rank 1: 1 message\(s\) sent to rank 1 were never received.* 8 bytes from rank 0 of World with tag 5`).MatchString(r.stderr) {
		t.Errorf("no diagnostic naming the message:\n%v", r)
	}
}

func rawFailUnreceivedSsend() error {
	if err := mpi.Init(); err != nil {
		return err
	}
	w := mpi.World()
	if w.Rank() == 0 {
		if _, err := mpi.Issend(w, make([]byte, 8), 1, 5); err != nil {
			return err
		}
	}
	return mpi.Finalize()
}

// Sendrecv and Ssend do not allocate on the eager path.
func TestP2PAllocs(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	runScenarioJob(t, 2, "p2p-allocs")
}

func TestBsend(t *testing.T) {
	t.Parallel()
	runAt(t, "bsend", nps(false))
}

func TestMprobe(t *testing.T) {
	t.Parallel()
	runAt(t, "mprobe", nps(false))
}

func TestCancel(t *testing.T) {
	t.Parallel()
	runAt(t, "cancel", nps(false))
}

func TestCompletedRequests(t *testing.T) {
	t.Parallel()
	runAt(t, "completed-requests", []int{2, 3})
}

func TestSharedCompletion(t *testing.T) {
	t.Parallel()
	runAt(t, "shared-completion", []int{2, 3})
}

// Requests whose operation is done as it starts (an eager send, a
// receive of a message already there) complete as any other.
func TestDoneAtStart(t *testing.T) {
	t.Parallel()
	runAt(t, "done-at-start", []int{2, 3})
}

func TestPersistent(t *testing.T) {
	t.Parallel()
	runAt(t, "persistent", nps(false))
}

func TestWaitsome(t *testing.T) {
	t.Parallel()
	runAt(t, "waitsome", nps(false))
}

func TestSendrecvReplace(t *testing.T) {
	t.Parallel()
	runAt(t, "sendrecv-replace", nps(false))
}

// modeSizes are message sizes in int32 elements around the eager limit E
// (in bytes): empty, small, the largest eager and the smallest rendezvous
// message.
func modeSizes(E int) []int { return []int{0, 3, E / 4, E/4 + 1} }

// ---- Ssend ----

// scenarioSsendOrder: every rank sends to its right neighbour a stream of
// messages of one tag in every mode (Ssend, Send, Issend, Rsend, Bsend),
// eager and rendezvous, and receives its left neighbour's; they arrive in
// the order sent.
func scenarioSsendOrder(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	sizes := modeSizes(E)
	const rounds, tag = 4, 7
	count := rounds * 5 * len(sizes)
	total := 0
	for _, n := range sizes {
		total += n*4 + mpi.BsendOverhead
	}
	if err := mpi.BufferAttach(make([]byte, rounds*total)); err != nil {
		return err
	}
	recvErr := make(chan error, 1)
	go func() { recvErr <- receiveStream(w, sizes, count, tag) }()
	var reqs []*mpi.Request
	for seq := range count {
		buf := pattern[int32](sizes[seq%len(sizes)], w.Rank(), seq)
		r, err := sendInMode((seq/len(sizes))%5, w, buf, right(w), tag)
		if err != nil {
			return fmt.Errorf("send %d: %w", seq, err)
		}
		if r != nil {
			reqs = append(reqs, r)
		}
	}
	if _, err := mpi.Waitall(reqs); err != nil {
		return err
	}
	if err := <-recvErr; err != nil {
		return err
	}
	if _, err := mpi.BufferDetach(); err != nil {
		return err
	}
	return mpi.Barrier(w)
}

// sendInMode sends buf in mode 0-4: Ssend, Send, Issend (whose request it
// returns), Rsend, Bsend.
func sendInMode(mode int, w *mpi.Comm, buf []int32, dest, tag int) (*mpi.Request, error) {
	switch mode {
	case 0:
		return nil, mpi.Ssend(w, buf, dest, tag)
	case 1:
		return nil, mpi.Send(w, buf, dest, tag)
	case 2:
		return mpi.Issend(w, buf, dest, tag)
	case 3:
		return nil, mpi.Rsend(w, buf, dest, tag)
	}
	return nil, mpi.Bsend(w, buf, dest, tag)
}

// receiveStream receives the left neighbour's count messages of
// scenarioSsendOrder and checks their order.
func receiveStream(w *mpi.Comm, sizes []int, count, tag int) error {
	for seq := range count {
		n := sizes[seq%len(sizes)]
		buf := make([]int32, n)
		st, err := mpi.Recv(w, buf, left(w), tag)
		if err != nil {
			return err
		}
		if err := checkStatus(fmt.Sprintf("message %d", seq), st, left(w), tag, n, 4*n); err != nil {
			return err
		}
		if d := diff(buf, pattern[int32](n, left(w), seq)); d != "" {
			return fmt.Errorf("message %d (%d elements) from rank %d: %s", seq, n, left(w), d)
		}
	}
	return nil
}

// scenarioSsendSync: an Issend is not complete while its message has
// arrived at the receiver but no receive has matched it, and completes once
// one has, for eager and rendezvous messages; also when Mprobe matches it.
func scenarioSsendSync(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	for k, n := range modeSizes(E) {
		for _, mprobe := range []bool{false, true} {
			if err := ssendOnce(w, k, n, mprobe); err != nil {
				return fmt.Errorf("%d elements, mprobe=%v: %w", n, mprobe, err)
			}
		}
	}
	return mpi.Barrier(w)
}

// ssendOnce: every rank Issends message k of n elements to its right
// neighbour. The receiver tells the sender when the message has arrived
// (it probes it), and posts the receive only on the sender's go, so that
// the sender knows the receive is not posted when it tests.
func ssendOnce(w *mpi.Comm, k, n int, mprobe bool) error {
	const dataTag, arrivedTag, goTag = 1, 2, 3
	r, err := mpi.Issend(w, pattern[int32](n, w.Rank(), k), right(w), dataTag)
	if err != nil {
		return err
	}
	// As the receiver: wait for the message without receiving it.
	if _, err := w.Probe(left(w), dataTag); err != nil {
		return err
	}
	if err := mpi.Send(w, []byte{1}, left(w), arrivedTag); err != nil {
		return err
	}
	// As the sender: the message is at the receiver, unmatched.
	if _, err := mpi.Recv(w, []byte{0}, right(w), arrivedTag); err != nil {
		return err
	}
	for range 100 {
		if done, _, err := r.Test(); done || err != nil {
			return fmt.Errorf("Issend completed (error %v) before any receive matched its message", err)
		}
	}
	if err := mpi.Send(w, []byte{1}, right(w), goTag); err != nil {
		return err
	}
	// As the receiver: receive on the go.
	if _, err := mpi.Recv(w, []byte{0}, left(w), goTag); err != nil {
		return err
	}
	buf := make([]int32, n)
	var st mpi.Status
	if mprobe {
		var m *mpi.Message
		if m, _, err = w.Mprobe(left(w), dataTag); err == nil {
			st, err = mpi.Mrecv(m, buf)
		}
	} else {
		st, err = mpi.Recv(w, buf, left(w), dataTag)
	}
	if err != nil {
		return err
	}
	if err := checkStatus("received", st, left(w), dataTag, n, 4*n); err != nil {
		return err
	}
	if d := diff(buf, pattern[int32](n, left(w), k)); d != "" {
		return errors.New(d)
	}
	_, err = r.Wait()
	return err
}

// ---- Bsend ----

// scenarioBsend: buffered sends copy their data, so the caller's buffer is
// free at once; a message that does not fit beside those that have not
// left fails with ErrBuffer and sends nothing; BufferDetach waits for the
// buffered messages and returns the buffer.
func scenarioBsend(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	if err := mpi.Bsend(w, []byte{1}, right(w), 1); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("Bsend without a buffer: %v, want ErrBuffer", err)
	}
	if _, err := mpi.BufferDetach(); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("BufferDetach without a buffer: %v, want ErrBuffer", err)
	}
	// Rendezvous messages stay in the buffer until they are received,
	// which the right neighbour does only on our go: two fit, a third
	// does not.
	n := E/4 + 1 // int32 elements
	size := 4*n + mpi.BsendOverhead
	attachedBuf := make([]byte, 2*size+size/2)
	if err := mpi.BufferAttach(attachedBuf); err != nil {
		return err
	}
	if err := mpi.BufferAttach(make([]byte, 10)); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("second BufferAttach: %v, want ErrBuffer", err)
	}
	if err := fillBuffer(w, n, len(attachedBuf)); err != nil {
		return err
	}
	if err := receiveBuffered(w, n); err != nil {
		return err
	}
	got, err := mpi.BufferDetach()
	if err != nil {
		return err
	}
	if &got[0] != &attachedBuf[0] || len(got) != len(attachedBuf) {
		return errors.New("BufferDetach did not return the attached buffer")
	}
	if err := mpi.Bsend(w, []byte{1}, right(w), bsendTag); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("Bsend after BufferDetach: %v, want ErrBuffer", err)
	}
	if err := bsendPersistent(w); err != nil {
		return err
	}
	return mpi.Barrier(w)
}

// bsendPersistent: a BsendInit request sends a copy of its buffer at each
// Start, and fails Start with ErrBuffer without an attached buffer.
func bsendPersistent(w *mpi.Comm) error {
	buf := make([]int64, 3)
	r, err := mpi.BsendInit(w, buf, right(w), bsendTag)
	if err != nil {
		return err
	}
	if err := r.Start(); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("Start of a BsendInit request without a buffer: %v, want ErrBuffer", err)
	}
	if err := mpi.BufferAttach(make([]byte, 3*(24+mpi.BsendOverhead))); err != nil {
		return err
	}
	for i := range 3 {
		fill(buf, w.Rank(), 10+i)
		if err := r.Start(); err != nil {
			return err
		}
		fill(buf, 999) // copied by Start
		if _, err := r.Wait(); err != nil {
			return err
		}
	}
	got := make([]int64, 3)
	for i := range 3 {
		if _, err := mpi.Recv(w, got, left(w), bsendTag); err != nil {
			return err
		}
		if d := diff(got, pattern[int64](3, left(w), 10+i)); d != "" {
			return fmt.Errorf("persistent buffered message %d: %s", i, d)
		}
	}
	_, err = mpi.BufferDetach()
	return err
}

const bsendTag, bsendGoTag = 5, 6

// fillBuffer Bsends two rendezvous messages of n elements to the right
// neighbour, which fill the attached buffer of bufLen bytes but for a
// little room, and checks that a third, and a message larger than the
// buffer, do not fit while a small one does.
func fillBuffer(w *mpi.Comm, n, bufLen int) error {
	for i := range 2 {
		buf := pattern[int32](n, w.Rank(), i)
		if err := mpi.Bsend(w, buf, right(w), bsendTag); err != nil {
			return fmt.Errorf("Bsend %d: %w", i, err)
		}
		fill(buf, 999) // the data was copied: this must not be what arrives
	}
	if err := mpi.Bsend(w, pattern[int32](n, w.Rank(), 2), right(w), bsendTag); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("third Bsend into a full buffer: %v, want ErrBuffer", err)
	}
	if _, err := mpi.Ibsend(w, make([]byte, bufLen), right(w), bsendTag); !errors.Is(err, mpi.ErrBuffer) {
		return fmt.Errorf("Ibsend larger than the buffer: %v, want ErrBuffer", err)
	}
	r, err := mpi.Ibsend(w, pattern[int32](3, w.Rank(), 3), right(w), bsendTag)
	if err != nil {
		return fmt.Errorf("Ibsend of a small message into the rest: %w", err)
	}
	if done, _, err := r.Test(); !done || err != nil {
		return fmt.Errorf("Ibsend request: done=%v err=%v, want complete", done, err)
	}
	if err := mpi.Bsend(w, []byte{1}, mpi.ProcNull, bsendTag); err != nil {
		return fmt.Errorf("Bsend to ProcNull: %w", err)
	}
	return nil
}

// receiveBuffered tells the right neighbour to go, and receives the left
// neighbour's buffered messages on its go.
func receiveBuffered(w *mpi.Comm, n int) error {
	if err := mpi.Send(w, []byte{1}, right(w), bsendGoTag); err != nil {
		return err
	}
	if _, err := mpi.Recv(w, []byte{0}, left(w), bsendGoTag); err != nil {
		return err
	}
	for i, key := range []int{0, 1, 3} {
		count := n
		if key == 3 {
			count = 3
		}
		buf := make([]int32, count)
		if _, err := mpi.Recv(w, buf, left(w), bsendTag); err != nil {
			return err
		}
		if d := diff(buf, pattern[int32](count, left(w), key)); d != "" {
			return fmt.Errorf("buffered message %d: %s", i, d)
		}
	}
	return nil
}

// ---- Mprobe ----

// scenarioMprobe: goroutines that Mprobe and Mrecv concurrently (Improbe
// and Imrecv in half of them) receive every message exactly once, eager
// and rendezvous alike; a matched message is invisible to probes and
// receives; receiving a message twice is an error.
func scenarioMprobe(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	sizes := modeSizes(E)
	const tag, perSize, workers = 4, 6, 4
	total := perSize * len(sizes)
	var sends []*mpi.Request
	for i := range total {
		n := sizes[i%len(sizes)]
		buf := make([]int32, n+1)
		buf[0] = int32(i)
		fill(buf[1:], w.Rank(), i)
		r, err := mpi.Isend(w, buf, right(w), tag)
		if err != nil {
			return err
		}
		sends = append(sends, r)
	}
	var mu sync.Mutex
	seen := make([]int, total)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range total / workers {
				i, err := mprobeOne(w, tag, g%2 == 1)
				if err != nil {
					errs[g] = err
					return
				}
				mu.Lock()
				seen[i]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, k := range seen {
		if k != 1 {
			return fmt.Errorf("message %d received %d times", i, k)
		}
	}
	if _, err := mpi.Waitall(sends); err != nil {
		return err
	}
	if err := mprobeErrors(w, tag); err != nil {
		return err
	}
	return mpi.Barrier(w)
}

// mprobeOne takes one message of tag from the left neighbour with Mprobe
// and Mrecv (or Improbe and Imrecv), checks it and returns its index.
func mprobeOne(w *mpi.Comm, tag int, nonblocking bool) (int, error) {
	var m *mpi.Message
	var st mpi.Status
	var err error
	if nonblocking {
		for ok := false; !ok && err == nil; {
			if ok, m, st, err = w.Improbe(left(w), tag); !ok {
				runtime.Gosched()
			}
		}
	} else {
		m, st, err = w.Mprobe(left(w), tag)
	}
	if err != nil {
		return 0, err
	}
	buf := make([]int32, st.Bytes/4)
	var rst mpi.Status
	if nonblocking {
		var r *mpi.Request
		if r, err = mpi.Imrecv(m, buf); err == nil {
			rst, err = r.Wait()
		}
	} else {
		rst, err = mpi.Mrecv(m, buf)
	}
	if err != nil {
		return 0, err
	}
	if err := checkStatus("Mrecv", rst, left(w), tag, len(buf), st.Bytes); err != nil {
		return 0, err
	}
	if len(buf) == 0 {
		return 0, errors.New("a message without its index")
	}
	i := int(buf[0])
	if d := diff(buf[1:], pattern[int32](len(buf)-1, left(w), i)); d != "" {
		return 0, fmt.Errorf("message %d: %s", i, d)
	}
	if _, err := mpi.Mrecv(m, buf); !errors.Is(err, mpi.ErrRequest) {
		return 0, fmt.Errorf("second Mrecv of message %d: %v, want ErrRequest", i, err)
	}
	return i, nil
}

// mprobeErrors: a matched message is out of the matching, a truncated
// Mrecv reports it, and ProcNull gives the no-process message.
func mprobeErrors(w *mpi.Comm, tag int) error {
	if err := mpi.Send(w, pattern[int32](5, 1), right(w), tag); err != nil {
		return err
	}
	m, st, err := w.Mprobe(left(w), tag)
	if err != nil {
		return err
	}
	if st.Bytes != 20 || st.Source != left(w) {
		return fmt.Errorf("Mprobe status %+v", st)
	}
	if ok, _, err := w.Iprobe(left(w), tag); ok || err != nil {
		return fmt.Errorf("Iprobe after Mprobe: %v %v, want nothing", ok, err)
	}
	if ok, _, _, err := w.Improbe(left(w), tag); ok || err != nil {
		return fmt.Errorf("Improbe after Mprobe: %v %v, want nothing", ok, err)
	}
	if _, err := mpi.Mrecv(m, make([]int32, 2)); !errors.Is(err, mpi.ErrTruncate) {
		return fmt.Errorf("short Mrecv: %v, want ErrTruncate", err)
	}
	m, st, err = w.Mprobe(mpi.ProcNull, tag)
	if err != nil || st.Source != mpi.ProcNull {
		return fmt.Errorf("Mprobe(ProcNull): %+v %v", st, err)
	}
	if st, err := mpi.Mrecv(m, make([]int32, 2)); err != nil || st.Source != mpi.ProcNull || st.Count != 0 {
		return fmt.Errorf("Mrecv of the no-process message: %+v %v", st, err)
	}
	return nil
}

// ---- Cancel and Free ----

// scenarioCancel: a pending receive is cancelled and a later message goes
// to the next receive; a completed receive is not cancelled; a send that
// has left is delivered; collectives cannot be cancelled; freed requests
// still complete and cannot be used again.
func scenarioCancel(w *mpi.Comm) error {
	const tag, readyTag = 8, 9
	buf := make([]int64, 4)
	r, err := mpi.Irecv(w, buf, left(w), tag)
	if err != nil {
		return err
	}
	if err := r.Cancel(); err != nil {
		return err
	}
	st, err := r.Wait()
	if err != nil || !st.Cancelled {
		return fmt.Errorf("cancelled receive: %+v %v, want Cancelled", st, err)
	}
	if err := r.Cancel(); err != nil {
		return fmt.Errorf("Cancel of a completed request: %w", err)
	}
	// The right neighbour sends only once we have cancelled.
	if err := mpi.Send(w, []byte{1}, left(w), readyTag); err != nil {
		return err
	}
	if _, err := mpi.Recv(w, []byte{0}, right(w), readyTag); err != nil {
		return err
	}
	s, err := mpi.Isend(w, pattern[int64](4, w.Rank()), right(w), tag)
	if err != nil {
		return err
	}
	if st, err := mpi.Recv(w, buf, left(w), tag); err != nil || st.Cancelled {
		return fmt.Errorf("receive after the cancelled one: %+v %v", st, err)
	}
	if d := diff(buf, pattern[int64](4, left(w))); d != "" {
		return fmt.Errorf("message after the cancelled receive: %s", d)
	}
	// Once the right neighbour has received it, the send has left: Cancel
	// cannot take it back.
	if err := mpi.Send(w, []byte{1}, left(w), readyTag); err != nil {
		return err
	}
	if _, err := mpi.Recv(w, []byte{0}, right(w), readyTag); err != nil {
		return err
	}
	if err := s.Cancel(); err != nil {
		return err
	}
	if st, err := s.Wait(); err != nil || st.Cancelled {
		return fmt.Errorf("send that had left: %+v %v, want not cancelled", st, err)
	}
	b, err := mpi.Ibarrier(w)
	if err != nil {
		return err
	}
	if err := b.Cancel(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Cancel of Ibarrier: %v, want ErrRequest", err)
	}
	if _, err := b.Wait(); err != nil {
		return err
	}
	return freeRequests(w)
}

// scenarioDoneAtStart has the odd rank of each pair send eagerly (Isend,
// done as it starts), and the even one receive messages that are already
// there when it posts the receive (Iprobe first): into a plain buffer,
// and with IrecvType into a strided column, whose unpacking the request
// still does at Wait though it is set after the receive is done. Each
// request is then waited for twice and tested.
func scenarioDoneAtStart(w *mpi.Comm) error {
	partner := w.Rank() ^ 1
	if partner >= w.Size() {
		return nil
	}
	col, err := mpi.Vector(doneRows, 1, doneCols)
	if err != nil {
		return err
	}
	if w.Rank()%2 == 1 {
		return doneAtStartSend(w, partner)
	}
	return doneAtStartRecv(w, partner, col)
}

// The column of scenarioDoneAtStart, of a doneRows by doneCols matrix,
// and the tags of its plain message and of its column.
const doneRows, doneCols, doneTagPlain, doneTagCol = 6, 4, 1, 2

// doneAtStartSend sends the plain message and the column's elements,
// each by an Isend waited for twice.
func doneAtStartSend(w *mpi.Comm, partner int) error {
	for _, m := range []struct {
		tag  int
		data []int64
	}{{doneTagPlain, pattern[int64](5, 1)}, {doneTagCol, pattern[int64](doneRows, 2)}} {
		r, err := mpi.Isend(w, m.data, partner, m.tag)
		if err != nil {
			return err
		}
		if err := waitTwice("Isend", r, mpi.Status{}); err != nil {
			return err
		}
	}
	return nil
}

// doneAtStartRecv probes until both messages are there, then receives
// the plain one into a buffer and the other into the column col of a
// matrix, each by a request waited for twice, and checks both.
func doneAtStartRecv(w *mpi.Comm, partner int, col *mpi.Datatype) error {
	const rows, cols, tagPlain, tagCol = doneRows, doneCols, doneTagPlain, doneTagCol
	for _, tag := range []int{tagPlain, tagCol} {
		for {
			ok, _, err := w.Iprobe(partner, tag)
			if err != nil {
				return err
			}
			if ok {
				break
			}
		}
	}
	plain := make([]int64, 5)
	r, err := mpi.Irecv(w, plain, partner, tagPlain)
	if err != nil {
		return err
	}
	if err := waitTwice("Irecv", r, mpi.Status{Source: partner, Tag: tagPlain, Count: 5}); err != nil {
		return err
	}
	if d := diff(plain, pattern[int64](5, 1)); d != "" {
		return fmt.Errorf("Irecv of a message already there: %s", d)
	}
	matrix := make([]int64, rows*cols)
	r, err = mpi.IrecvType(w, matrix, 1, col, partner, tagCol)
	if err != nil {
		return err
	}
	if err := waitTwice("IrecvType", r, mpi.Status{Source: partner, Tag: tagCol, Count: rows}); err != nil {
		return err
	}
	want := make([]int64, rows*cols)
	for i, v := range pattern[int64](rows, 2) {
		want[i*cols] = v
	}
	if d := diff(matrix, want); d != "" {
		return fmt.Errorf("IrecvType of a column already there: %s", d)
	}
	return nil
}

// waitTwice waits for r twice and tests it, and checks that each returns
// want (its Source, Tag and Count, for a receive) and no error.
func waitTwice(what string, r *mpi.Request, want mpi.Status) error {
	for i := range 3 {
		var st mpi.Status
		var err error
		if i < 2 {
			st, err = r.Wait()
		} else {
			var ok bool
			if ok, st, err = r.Test(); !ok {
				return fmt.Errorf("%s: Test after Wait reports it not done", what)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if st.Source != want.Source || st.Tag != want.Tag || st.Count != want.Count || st.Cancelled {
			return fmt.Errorf("%s: status %+v, want source %d, tag %d, count %d", what, st, want.Source, want.Tag, want.Count)
		}
	}
	return nil
}

// scenarioSharedCompletion: goroutines that Wait for and Test the same
// nonblocking receives and sends at once all get the one result, and the
// communicators freed after them and made again still match their own
// messages. (TestFinishOnce checks that the result is recorded once.)
func scenarioSharedCompletion(w *mpi.Comm) error {
	const rounds = 50
	for round := range rounds {
		if err := sharedCompletionRound(w, round); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}

// The receives (and sends) of a round of scenarioSharedCompletion, and
// the goroutines that complete each.
const sharedPer, sharedWaiters = 4, 4

// sharedCompletionRound posts the receives and sends of a round on a
// duplicate of w, has every waiter complete them all, checks the data and
// what each waiter got, and frees the duplicate.
func sharedCompletionRound(w *mpi.Comm, round int) error {
	c, err := w.Dup()
	if err != nil {
		return err
	}
	var reqs []*mpi.Request
	bufs := make([][]int32, sharedPer)
	for i := range sharedPer {
		bufs[i] = make([]int32, i+1)
		r, err := mpi.Irecv(c, bufs[i], left(c), i)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	for i := range sharedPer {
		out := make([]int32, i+1)
		fill(out, c.Rank(), round)
		r, err := mpi.Isend(c, out, right(c), i)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	sts, err := completeShared(reqs)
	if err != nil {
		return err
	}
	for i := range sharedPer {
		want := make([]int32, i+1)
		fill(want, left(c), round)
		if !slices.Equal(bufs[i], want) {
			return fmt.Errorf("round %d, receive %d: got %v, want %v", round, i, bufs[i], want)
		}
		for g := range sharedWaiters {
			if st := sts[i][g]; st.Source != left(c) || st.Tag != i || st.Count != i+1 {
				return fmt.Errorf("round %d, receive %d, waiter %d: status %+v", round, i, g, st)
			}
		}
	}
	return c.Free()
}

// completeShared completes every request of reqs from each of
// sharedWaiters goroutines at once, the even ones by Wait and the odd
// ones by Test, and returns the status each got of each.
func completeShared(reqs []*mpi.Request) ([][sharedWaiters]mpi.Status, error) {
	sts := make([][sharedWaiters]mpi.Status, len(reqs))
	errs := make([]error, sharedWaiters)
	var wg sync.WaitGroup
	for g := range sharedWaiters {
		wg.Go(func() {
			for k, r := range reqs {
				if g%2 == 1 {
					for done := false; !done && errs[g] == nil; {
						done, sts[k][g], errs[g] = r.Test()
					}
				} else {
					sts[k][g], errs[g] = r.Wait()
				}
				if errs[g] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return sts, errors.Join(errs...)
}

// scenarioCompletedRequests: a completed request keeps its own result,
// and a Cancel of it touches nothing else, while later requests run on
// the operations it gave back (a nonblocking call's operation goes back
// to a pool once done): the even rank of each pair receives twice, the
// odd one sends twice.
func scenarioCompletedRequests(w *mpi.Comm) error {
	partner := w.Rank() ^ 1
	if partner >= w.Size() {
		return nil
	}
	if w.Rank()%2 == 1 {
		return completedSender(w, partner)
	}
	return completedReceiver(w, partner)
}

// The tags of scenarioCompletedRequests: its first message, its second,
// and the receiver's go-ahead for the second.
const completedTagA, completedTagB, completedGoTag = 1, 2, 3

// completedSender completes a send, and once the partner says go sends
// again and cancels the completed send, which must not cancel the new one.
func completedSender(w *mpi.Comm, partner int) error {
	s, err := mpi.Isend(w, pattern[int32](3, 0), partner, completedTagA)
	if err != nil {
		return err
	}
	if _, err := s.Wait(); err != nil {
		return err
	}
	if _, err := mpi.Recv(w, []byte{0}, partner, completedGoTag); err != nil {
		return err
	}
	s2, err := mpi.Isend(w, pattern[int32](5, 1), partner, completedTagB)
	if err != nil {
		return err
	}
	if err := s.Cancel(); err != nil {
		return fmt.Errorf("Cancel of a completed send: %w", err)
	}
	if st, err := s2.Wait(); err != nil || st.Cancelled {
		return fmt.Errorf("the send after a completed one was cancelled: %+v %v", st, err)
	}
	return nil
}

// completedReceiver completes a receive, posts another, cancels the
// completed one, and checks that the new one receives in full and that
// the completed one keeps its status and data through Wait and Test.
func completedReceiver(w *mpi.Comm, partner int) error {
	const tagA, tagB = completedTagA, completedTagB
	bufA, bufB := make([]int32, 3), make([]int32, 5)
	r1, err := mpi.Irecv(w, bufA, partner, tagA)
	if err != nil {
		return err
	}
	st1, err := r1.Wait()
	if err != nil {
		return err
	}
	r2, err := mpi.Irecv(w, bufB, partner, tagB)
	if err != nil {
		return err
	}
	if err := r1.Cancel(); err != nil {
		return fmt.Errorf("Cancel of a completed receive: %w", err)
	}
	if err := mpi.Send(w, []byte{1}, partner, completedGoTag); err != nil {
		return err
	}
	st2, err := r2.Wait()
	switch {
	case err != nil:
		return err
	case st2.Cancelled || st2.Tag != tagB || st2.Count != 5:
		return fmt.Errorf("the receive posted after a completed one: %+v, want tag %d, 5 elements, not cancelled", st2, tagB)
	}
	if d := diff(bufB, pattern[int32](5, 1)); d != "" {
		return fmt.Errorf("the receive posted after a completed one: %s", d)
	}
	again, err := r1.Wait()
	if err != nil || again != st1 || st1.Tag != tagA || st1.Count != 3 || st1.Cancelled {
		return fmt.Errorf("a completed receive waited for again: %+v %v, first %+v; want tag %d, 3 elements", again, err, st1, tagA)
	}
	if ok, tested, err := r1.Test(); !ok || err != nil || tested != st1 {
		return fmt.Errorf("a completed receive tested: %v %+v %v, want %+v", ok, tested, err, st1)
	}
	if d := diff(bufA, pattern[int32](3, 0)); d != "" {
		return fmt.Errorf("the first receive: %s", d)
	}
	return nil
}

// freeRequests: Free of a pending send still delivers it, and a freed
// pending receive still takes its message; a freed request cannot be
// waited for or freed again.
func freeRequests(w *mpi.Comm) error {
	const tag, freedTag = 10, 11
	fr, err := mpi.Irecv(w, make([]int64, 4), left(w), freedTag)
	if err != nil {
		return err
	}
	if err := fr.Free(); err != nil {
		return err
	}
	if err := mpi.Send(w, pattern[int64](4, w.Rank(), 2), right(w), freedTag); err != nil {
		return err
	}
	s, err := mpi.Isend(w, pattern[int64](4, w.Rank(), 1), right(w), tag)
	if err != nil {
		return err
	}
	if err := s.Free(); err != nil {
		return err
	}
	if _, err := s.Wait(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Wait of a freed request: %v, want ErrRequest", err)
	}
	if err := s.Free(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("second Free: %v, want ErrRequest", err)
	}
	buf := make([]int64, 4)
	if _, err := mpi.Recv(w, buf, left(w), tag); err != nil {
		return err
	}
	if d := diff(buf, pattern[int64](4, left(w), 1)); d != "" {
		return fmt.Errorf("message of a freed send: %s", d)
	}
	return mpi.Barrier(w)
}

// ---- persistent requests ----

// scenarioPersistent: persistent sends (standard and synchronous) and
// receives are started again and again in a loop, eager and rendezvous,
// and carry each iteration's data; an active request cannot be started,
// and an inactive one completes at once.
func scenarioPersistent(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	sizes := modeSizes(E)
	var reqs []*mpi.Request
	sbufs, rbufs := make([][]int32, len(sizes)), make([][]int32, len(sizes))
	for k, n := range sizes {
		sbufs[k], rbufs[k] = make([]int32, n), make([]int32, n)
		init := mpi.SendInit[int32]
		if k%2 == 1 {
			init = mpi.SsendInit[int32]
		}
		s, err := init(w, sbufs[k], right(w), k)
		if err != nil {
			return err
		}
		r, err := mpi.RecvInit(w, rbufs[k], left(w), k)
		if err != nil {
			return err
		}
		reqs = append(reqs, r, s)
	}
	if st, err := reqs[0].Wait(); err != nil || st != (mpi.Status{Source: mpi.AnySource, Tag: mpi.AnyTag}) {
		return fmt.Errorf("Wait of a persistent request never started: %+v %v", st, err)
	}
	for iter := range 20 {
		for k := range sizes {
			fill(sbufs[k], w.Rank(), iter, k)
		}
		if err := mpi.Startall(reqs); err != nil {
			return err
		}
		if iter == 0 {
			if err := reqs[1].Start(); !errors.Is(err, mpi.ErrRequest) {
				return fmt.Errorf("Start of an active request: %v, want ErrRequest", err)
			}
		}
		sts, err := mpi.Waitall(reqs)
		if err != nil {
			return fmt.Errorf("iteration %d: %w", iter, err)
		}
		for k, n := range sizes {
			if err := checkStatus(fmt.Sprintf("iteration %d receive %d", iter, k), sts[2*k], left(w), k, n, 4*n); err != nil {
				return err
			}
			if d := diff(rbufs[k], pattern[int32](n, left(w), iter, k)); d != "" {
				return fmt.Errorf("iteration %d, %d elements: %s", iter, n, d)
			}
		}
	}
	return persistentErrors(w, reqs)
}

// persistentErrors: Start of a non-persistent request fails, ProcNull
// persistent requests complete at once, and freed ones cannot start.
func persistentErrors(w *mpi.Comm, reqs []*mpi.Request) error {
	r, err := mpi.Isend(w, []byte{1}, mpi.ProcNull, 0)
	if err != nil {
		return err
	}
	if err := r.Start(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Start of an Isend request: %v, want ErrRequest", err)
	}
	pn, err := mpi.RecvInit(w, make([]byte, 1), mpi.ProcNull, 0)
	if err != nil {
		return err
	}
	for range 2 {
		if err := pn.Start(); err != nil {
			return err
		}
		if st, err := pn.Wait(); err != nil || st.Source != mpi.ProcNull {
			return fmt.Errorf("ProcNull persistent receive: %+v %v", st, err)
		}
	}
	for _, r := range reqs {
		if err := r.Free(); err != nil {
			return err
		}
	}
	if err := reqs[0].Start(); !errors.Is(err, mpi.ErrRequest) {
		return fmt.Errorf("Start of a freed request: %v, want ErrRequest", err)
	}
	return mpi.Barrier(w)
}

// ---- Waitsome and Testsome ----

// scenarioWaitsome: every rank receives from every other rank (and
// itself) a message per size with its own tag; Waitsome, then Testsome,
// complete them all, each exactly once with its status.
func scenarioWaitsome(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	sizes := modeSizes(E)
	for _, useTest := range []bool{false, true} {
		p, err := postFromAll(w, sizes)
		if err != nil {
			return err
		}
		var sends []*mpi.Request
		for d := range w.Size() {
			dest := (w.Rank() + d) % w.Size()
			for k := len(sizes) - 1; k >= 0; k-- {
				r, err := mpi.Isend(w, pattern[int32](sizes[k], w.Rank(), dest, k), dest, k)
				if err != nil {
					return err
				}
				sends = append(sends, r)
			}
		}
		if err := p.completeSome(w, useTest); err != nil {
			return err
		}
		if _, err := mpi.Waitall(sends); err != nil {
			return err
		}
	}
	return mpi.Barrier(w)
}

// posted are the receives of scenarioWaitsome: from every source, a
// message of every size, with the size's index as tag.
type posted struct {
	reqs []*mpi.Request // and a nil entry at the end
	bufs [][]int32
	srcs []int
	tags []int
}

func postFromAll(w *mpi.Comm, sizes []int) (*posted, error) {
	p := &posted{}
	for src := range w.Size() {
		for k, n := range sizes {
			buf := make([]int32, n)
			r, err := mpi.Irecv(w, buf, src, k)
			if err != nil {
				return nil, err
			}
			p.reqs, p.bufs = append(p.reqs, r), append(p.bufs, buf)
			p.srcs, p.tags = append(p.srcs, src), append(p.tags, k)
		}
	}
	p.reqs = append(p.reqs, nil) // skipped
	return p, nil
}

// completeSome completes p's receives with Waitsome (or Testsome) and
// checks that each completes once, with its status and data.
func (p *posted) completeSome(w *mpi.Comm, useTest bool) error {
	seen := make([]bool, len(p.bufs))
	for left := len(p.bufs); left > 0; {
		some := mpi.Waitsome
		if useTest {
			some = mpi.Testsome
		}
		idx, sts, err := some(p.reqs)
		switch {
		case err != nil:
			return err
		case len(idx) == 0 && !useTest:
			return errors.New("Waitsome returned no index while requests were pending")
		case !slices.IsSorted(idx) || len(sts) != len(idx):
			return fmt.Errorf("indices %v with %d statuses", idx, len(sts))
		}
		for k, i := range idx {
			if seen[i] || p.reqs[i] != nil {
				return fmt.Errorf("request %d completed twice, or its entry was left", i)
			}
			seen[i] = true
			n := len(p.bufs[i])
			if err := checkStatus(fmt.Sprintf("request %d", i), sts[k], p.srcs[i], p.tags[i], n, 4*n); err != nil {
				return err
			}
			if d := diff(p.bufs[i], pattern[int32](n, p.srcs[i], w.Rank(), p.tags[i])); d != "" {
				return fmt.Errorf("request %d: %s", i, d)
			}
			left--
		}
	}
	if idx, _, err := mpi.Waitsome(p.reqs); len(idx) != 0 || err != nil {
		return fmt.Errorf("Waitsome of completed requests: %v %v, want none", idx, err)
	}
	return nil
}

// ---- SendrecvReplace and GetElements ----

// scenarioSendrecvReplace shifts a buffer around the ring in place, eager
// and rendezvous, and checks GetElements.
func scenarioSendrecvReplace(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	for k, n := range modeSizes(E) {
		buf := pattern[float64](n, w.Rank(), k)
		st, err := mpi.SendrecvReplace(w, buf, right(w), k, mpi.AnySource, mpi.AnyTag)
		if err != nil {
			return err
		}
		if err := checkStatus(fmt.Sprintf("%d elements", n), st, left(w), k, n, 8*n); err != nil {
			return err
		}
		if d := diff(buf, pattern[float64](n, left(w), k)); d != "" {
			return fmt.Errorf("%d elements: %s", n, d)
		}
		if got := mpi.GetElements[float64](st); got != n {
			return fmt.Errorf("GetElements = %d, want %d", got, n)
		}
		if got := mpi.GetElements[byte](st); got != 8*n {
			return fmt.Errorf("GetElements as bytes = %d, want %d", got, 8*n)
		}
	}
	buf := []int16{1, 2}
	if st, err := mpi.SendrecvReplace(w, buf, mpi.ProcNull, 0, mpi.ProcNull, 0); err != nil || st.Source != mpi.ProcNull || buf[0] != 1 {
		return fmt.Errorf("SendrecvReplace with ProcNull: %+v %v %v", st, err, buf)
	}
	return mpi.Barrier(w)
}

// scenarioP2PAllocs: both ranks measure the same number of eager Sendrecv
// exchanges, and of Ssend and Recv round trips, with testing.AllocsPerRun.
func scenarioP2PAllocs(w *mpi.Comm) error {
	const runs = 1000
	peer := w.Rank() ^ 1
	if peer >= w.Size() {
		return mpi.Barrier(w)
	}
	sbuf, rbuf := make([]float64, 4), make([]float64, 4)
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"Sendrecv", func() error {
			_, err := mpi.Sendrecv(w, sbuf, peer, 1, rbuf, peer, 1)
			return err
		}},
		{"Ssend and Recv", func() error {
			if w.Rank() == 0 {
				if err := mpi.Ssend(w, sbuf, peer, 2); err != nil {
					return err
				}
			}
			if _, err := mpi.Recv(w, rbuf, peer, 2); err != nil {
				return err
			}
			if w.Rank() == 1 {
				return mpi.Ssend(w, sbuf, peer, 2)
			}
			return nil
		}},
	} {
		var failure error
		allocs := testing.AllocsPerRun(runs, func() {
			if err := c.f(); err != nil && failure == nil {
				failure = err
			}
		})
		if failure != nil {
			return failure
		}
		if allocs != 0 {
			return fmt.Errorf("%s allocates %.2f times per call, want 0", c.name, allocs)
		}
	}
	return mpi.Barrier(w)
}
