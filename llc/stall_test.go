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
	never := errors.New("never")
	var (
		mu   sync.Mutex
		seen []Stall
		fail = true
	)
	ep.Stalled = func(st Stall) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, st)
		if fail && st.Quiet > 10*time.Millisecond {
			return never
		}
		return nil
	}
	last := func() Stall {
		mu.Lock()
		defer mu.Unlock()
		return seen[len(seen)-1]
	}
	within(t, 10*time.Second, func() {
		if _, err := ep.RecvWait(1, 7, 2, make([]byte, 8)); !errors.Is(err, never) {
			t.Errorf("RecvWait: %v, want %v", err, never)
		}
	})
	if st := last(); st.Kind != StallRecv || st.Peer != 1 || st.Tag != 7 || st.Ctx != 2 {
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
	if st := last(); st.Kind != StallProbe || st.Peer != 1 || st.Tag != 3 {
		t.Errorf("mprobe's stall %+v", st)
	}
	if err := ep.Err(); err != nil {
		t.Fatalf("a failed receive or probe failed the engine: %v", err)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	go func() {
		time.Sleep(50 * time.Millisecond)
		eps[1].SendWait(0, 5, 0, []byte("late"))
	}()
	within(t, 10*time.Second, func() {
		if st, err := ep.RecvWait(1, 5, 0, make([]byte, 8)); err != nil || st.Len != 4 {
			t.Errorf("RecvWait of a late message: %+v, %v", st, err)
		}
	})
	mu.Lock()
	fail = true
	mu.Unlock()
	within(t, 10*time.Second, func() {
		ep.WaitFunc(func() bool { return ep.eng.State().Err != nil })
	})
	if st := last(); st.Kind != StallOther {
		t.Errorf("other wait's stall %+v", st)
	}
	if err := ep.Err(); !errors.Is(err, never) {
		t.Errorf("engine's error %v, want %v", err, never)
	}
}
