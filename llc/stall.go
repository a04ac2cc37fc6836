package llc

import "time"

// StallKind says what a stalled wait waits for (Stall).
type StallKind int

const (
	// StallOther is a wait the endpoint cannot describe (a collective's,
	// a request's, a window's).
	StallOther StallKind = iota
	// StallRecv is a receive that no message has matched.
	StallRecv
	// StallProbe is a probe (WaitProbe, WaitMprobe).
	StallProbe
	// StallSend is a send that has not completed.
	StallSend
)

// Stall describes a wait that has had nothing to do for a while, as
// Endpoint.Stalled sees it.
type Stall struct {
	Kind StallKind
	// Peer is the process a receive or probe waits for a message from
	// (or AnySource), or the one a send goes to; Tag and Ctx are theirs.
	Peer int
	Tag  int32
	Ctx  uint32
	// Quiet is how long nothing has happened in the wait.
	Quiet time.Duration
}

// stall asks Stalled about op, whose wait has had nothing to do for quiet,
// and ends the wait with the error Stalled returns, if any: a receive or
// probe fails alone, any other wait by the failure of the engine. It
// reports whether it ended the wait. A receive that has matched (its data
// is on the way) is not asked about. The caller does not hold ep.mu.
func (ep *Endpoint) stall(op Completion, quiet time.Duration) bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if op.Done() {
		return true
	}
	st := Stall{Quiet: quiet}
	switch w := op.(type) {
	case *RecvOp:
		if w.matched { // its data is on the way
			return false
		}
		st.Kind, st.Peer, st.Tag, st.Ctx = StallRecv, w.Source, w.Tag, w.Ctx
	case *probeWait:
		st.Kind, st.Peer, st.Tag, st.Ctx = StallProbe, w.probe.Source, w.probe.Tag, w.probe.Ctx
	case *SendOp:
		st.Kind, st.Peer, st.Tag, st.Ctx = StallSend, w.Peer, w.Tag, w.Ctx
	}
	err := ep.Stalled(st)
	if err == nil {
		return false
	}
	switch w := op.(type) {
	case *RecvOp:
		ep.cancel(CancelOp{Recv: w, Err: err})
	case *probeWait:
		w.stalled = err
	default:
		ep.eng.Submit(Stop{err})
		ep.failed.Store(true)
	}
	return true
}
