package llc

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// TestEndpointStalled: a wait that sleeps asks Stalled what it waits for;
// the error Stalled returns fails an unmatched receive or a probe alone
// (the engine goes on), and any other wait by the failure of the engine. A
// receive whose message comes while Stalled says nil completes.
func TestEndpointStalled(t *testing.T) {
	eps := newEndpoints(t, 2, nil)
	ep := eps[0]
	r := &stallRecorder{never: errors.New("never"), fail: true}
	ep.Stalled = r.stalled
	checkStallFailsAlone(t, ep, r)
	checkStallLateMessage(t, eps, r)
	checkStallFailsEngine(t, ep, r)
}

// stallRecorder records the stalls Stalled is asked about, and returns
// never for those quiet past 10 ms while fail is set.
type stallRecorder struct {
	never error
	mu    sync.Mutex
	seen  []Stall
	fail  bool
}

// stalled is the Endpoint's Stalled.
func (r *stallRecorder) stalled(st Stall) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, st)
	if r.fail && st.Quiet > 10*time.Millisecond {
		return r.never
	}
	return nil
}

// last returns the last stall recorded.
func (r *stallRecorder) last() Stall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[len(r.seen)-1]
}

// setFail sets whether stalls fail.
func (r *stallRecorder) setFail(fail bool) {
	r.mu.Lock()
	r.fail = fail
	r.mu.Unlock()
}

// checkStallFailsAlone: the error fails an unmatched receive, a probe and
// an mprobe alone, each stalled as it should be, and not the engine.
func checkStallFailsAlone(t *testing.T, ep *Endpoint, r *stallRecorder) {
	t.Helper()
	never := r.never
	within(t, 10*time.Second, func() {
		if _, err := ep.RecvWait(1, 7, 2, make([]byte, 8)); !errors.Is(err, never) {
			t.Errorf("RecvWait: %v, want %v", err, never)
		}
	})
	if st := r.last(); st.Kind != StallRecv || st.Peer != 1 || st.Tag != 7 || st.Ctx != 2 {
		t.Errorf("receive's stall %+v", st)
	}
	within(t, 10*time.Second, func() {
		if _, err := ep.WaitProbe(AnySource, 9, 4); !errors.Is(err, never) {
			t.Errorf("WaitProbe: %v, want %v", err, never)
		}
		if _, err := ep.WaitMprobe(1, 3, 0); !errors.Is(err, never) {
			t.Errorf("WaitMprobe: %v, want %v", err, never)
		}
	})
	if st := r.last(); st.Kind != StallProbe || st.Peer != 1 || st.Tag != 3 {
		t.Errorf("mprobe's stall %+v", st)
	}
	if err := ep.Err(); err != nil {
		t.Fatalf("a failed receive or probe failed the engine: %v", err)
	}
}

// checkStallLateMessage: a receive whose message comes while Stalled says
// nil completes.
func checkStallLateMessage(t *testing.T, eps []*Endpoint, r *stallRecorder) {
	t.Helper()
	ep := eps[0]
	r.setFail(false)
	go func() {
		time.Sleep(50 * time.Millisecond)
		eps[1].SendWait(0, 5, 0, []byte("late"))
	}()
	within(t, 10*time.Second, func() {
		if st, err := ep.RecvWait(1, 5, 0, make([]byte, 8)); err != nil || st.Len != 4 {
			t.Errorf("RecvWait of a late message: %+v, %v", st, err)
		}
	})
}

// checkStallFailsEngine: the error fails any other wait by the failure of
// the engine.
func checkStallFailsEngine(t *testing.T, ep *Endpoint, r *stallRecorder) {
	t.Helper()
	r.setFail(true)
	within(t, 10*time.Second, func() {
		ep.WaitFunc(func() bool { return ep.eng.State().Err != nil })
	})
	if st := r.last(); st.Kind != StallOther {
		t.Errorf("other wait's stall %+v", st)
	}
	if err := ep.Err(); !errors.Is(err, r.never) {
		t.Errorf("engine's error %v, want %v", err, r.never)
	}
}
