package nicemu

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// The model run: the timing model alone, on virtual clocks, without
// processes, segments or data. Senders issue their requests back to back
// against the NICs' shared resources, the sender whose clock is earliest
// first (as virtual time orders the processes of a job), so that the
// figures of streams between several NICs (thesis Fig 6.4, 7.8, 7.11)
// come from the same model the emulated NIC charges, in microseconds of
// computing.

// FlowKind is what a flow of a model run sends.
type FlowKind int

// Kinds of flow.
const (
	// FlowPush: PUSHes, each into the destination's memory.
	FlowPush FlowKind = iota
	// FlowBOTF: BOTF packet images.
	FlowBOTF
	// FlowVPUSH: VPUSHes of at most one packet, taken over by the
	// receiver's firmware at RVA and resumed there (Fig 7.10).
	FlowVPUSH
	// FlowVPUSHSoftware: VPUSHes whose receive the firmware finishes
	// alone once it has taken RFend over (Fig 7.11's VPUSH/Software):
	// it does RBend's work itself (Profile.SoftCompletion, as on the
	// Initiator, Fig 7.9), waits for the DMA write instead of
	// overlapping it, then publishes the receive pointer.
	FlowVPUSHSoftware
	// FlowFault: packets that fault at the receiver's RFend (state RVA)
	// and that its firmware discards (Fig 7.8 (4)): they hold the receive
	// FIFO for RFend and the firmware's handler, and write nothing.
	FlowFault
)

// Flow is one sender's stream in a model run: Count requests of Size
// bytes from process From, to the processes of To in turn.
type Flow struct {
	Kind  FlowKind
	From  int
	To    []int
	Size  int
	Count int
}

// ModelRun is a set of flows between Procs NICs.
type ModelRun struct {
	Procs int
	Flows []Flow
	// Discard lists the processes whose NIC drops every packet as it
	// arrives (Fig 6.4, "Sending"): their receive path is never busy.
	Discard []int
	// BusyInitiator lists the processes whose Initiator the firmware
	// holds throughout (Fig 7.8 (5'): a request that faults at IPA2 over
	// and over).
	BusyInitiator []int
}

// RunModel runs m under p and returns each flow's throughput in MB/s
// (10^6 bytes a second), from the start until its last request's data
// was visible at its target (for FlowFault, until it left the sender).
func (p *Profile) RunModel(m ModelRun) ([]float64, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	res := make([]*nicResources, m.Procs)
	for i := range res {
		res[i] = new(nicResources)
	}
	const start = int64(1e9)
	for _, b := range m.BusyInitiator {
		res[b].initiator = math.MaxInt64 / 2
	}
	senders := make([]*modelSender, len(m.Flows))
	for i, f := range m.Flows {
		senders[i] = newModelSender(p, res, f, m.Discard, start)
	}
	for {
		s := nextSender(senders)
		if s == nil {
			break
		}
		s.step()
	}
	out := make([]float64, len(senders))
	for i, s := range senders {
		bytes := float64(s.flow.Size * s.flow.Count)
		out[i] = bytes / (float64(s.last-start) / 1e9) / 1e6
	}
	return out, nil
}

func (m *ModelRun) check() error {
	if m.Procs < 2 || len(m.Flows) == 0 {
		return errors.New("nicemu: model run: want two processes or more and a flow")
	}
	inRange := func(p int) bool { return p >= 0 && p < m.Procs }
	for _, f := range m.Flows {
		if !inRange(f.From) || len(f.To) == 0 || f.Size < 1 || f.Count < 1 {
			return fmt.Errorf("nicemu: model run: bad flow %+v", f)
		}
		for _, d := range f.To {
			if !inRange(d) || d == f.From {
				return fmt.Errorf("nicemu: model run: flow from %d to %d", f.From, d)
			}
		}
	}
	for _, d := range append(append([]int{}, m.Discard...), m.BusyInitiator...) {
		if !inRange(d) {
			return fmt.Errorf("nicemu: model run: no process %d", d)
		}
	}
	return nil
}

// modelSender is a flow's sender: its NIC's timing on a clock of its own.
type modelSender struct {
	flow    Flow
	t       *timing
	clock   int64
	sent    int
	last    int64 // when the last request's data became visible
	discard map[int]bool
}

func newModelSender(p *Profile, res []*nicResources, f Flow, discard []int, start int64) *modelSender {
	s := &modelSender{flow: f, clock: start, discard: map[int]bool{}}
	for _, d := range discard {
		s.discard[d] = true
	}
	// A process of its own: the resources of every process, its own
	// NIC's among them.
	procs := append([]*nicResources(nil), res...)
	s.t = newTiming(p, res[f.From], procs, 0)
	s.t.now = func() int64 { return s.clock }
	s.t.wait = func(until int64) { s.clock = max(s.clock, until) }
	return s
}

// nextSender returns the sender with requests left that issues its next
// one first, nil when all are done.
func nextSender(ss []*modelSender) *modelSender {
	var next *modelSender
	for _, s := range ss {
		if s.sent < s.flow.Count && (next == nil || s.nextIssue() < next.nextIssue()) {
			next = s
		}
	}
	return next
}

// nextIssue is when the sender issues its next request: back to back,
// when its host went on after the last one.
func (s *modelSender) nextIssue() int64 {
	if s.sent == 0 {
		return s.clock
	}
	return s.t.hostAt
}

// step issues the sender's next request.
func (s *modelSender) step() {
	dst := s.flow.To[s.sent%len(s.flow.To)]
	t := s.t
	if s.discard[dst] {
		// A NIC that drops what arrives: its receive path is always free.
		t.procs[dst] = new(nicResources)
	}
	t.begin()
	switch s.flow.Kind {
	case FlowPush:
		s.last = t.write(OpPush, dst, s.flow.Size, false)
	case FlowBOTF:
		s.last = t.write(OpBOTF, dst, s.flow.Size, false)
	case FlowVPUSH:
		s.last = t.vpush(dst, s.flow.Size)
	case FlowVPUSHSoftware:
		s.last = t.vpushSoftware(dst, s.flow.Size)
	case FlowFault:
		s.last = t.faultAtRVA(dst, s.flow.Size)
	}
	t.settle()
	s.sent++
}

// vpushSoftware times a VPUSH of n bytes whose receive the target's
// firmware finishes alone (FlowVPUSHSoftware), and returns when the
// published receive pointer became visible at the target.
func (t *timing) vpushSoftware(dst int, n int) (published int64) {
	p := t.p
	self, tgt := t.self, t.procs[dst]
	ready, hostAt := t.pushSource(n)
	lt := t.linkTime(n)
	head := reserve(&self.link, ready, lt) + int64(p.WireLatency)
	tail := head + lt
	dma := int64(p.DMAOverhead) + t.pciTime(n)
	// The firmware's handlers, and RBend's work done in firmware.
	taken := int64(p.RFend + p.VPUSHRFend + p.VPUSHOverlap + p.SoftCompletion)
	r := reserve(&tgt.rx, head, taken+dma)
	end, _ := t.dmaWrite(tgt, max(r+taken, tail-dma), n)
	pend, published := t.dmaWrite(tgt, end+int64(p.VPUSHReplier), 8)
	extend(&tgt.rx, pend)
	t.due(published)
	t.finish(hostAt, published)
	return published
}

// faultAtRVA times a packet of n bytes that faults at the target's RFend
// and that its firmware discards (FlowFault); it returns when the packet
// left the sender.
func (t *timing) faultAtRVA(dst int, n int) int64 {
	p := t.p
	self, tgt := t.self, t.procs[dst]
	ready, hostAt := t.pushSource(n)
	lt := t.linkTime(n)
	send := reserve(&self.link, ready, lt)
	reserve(&tgt.rx, send+int64(p.WireLatency), int64(p.RFend+p.VPUSHRFend))
	t.finish(hostAt, hostAt)
	return send + lt
}

// pushSource is the sender's part of a one-packet PUSH of n bytes issued
// at begin: it returns when the packet is ready to leave and when the
// host sees the Window's contflag.
func (t *timing) pushSource(n int) (ready, hostAt int64) {
	p := t.p
	acc := t.issuedAt + t.pio(writeWords(OpPush, n))
	next := reserve(&t.self.initiator, acc, int64(p.InitiatorPush)) + int64(p.InitiatorPush)
	_, ready = t.dmaRead(t.self, next, n)
	_, hostAt = t.dmaWrite(t.self, ready+int64(p.ContFlag), 8)
	t.wait(ready)
	return ready, hostAt
}

// WriteCompletion is the modelled time of a lone write of n bytes by op
// under p from the host's first store until the host sees that its Window
// is free again: the Window's contflag (on DIMMnet-2, the request's
// status, polled), or at once for AOTF's posted store. The host waits for
// it as with one Window.
func (p *Profile) WriteCompletion(op Op, n int) time.Duration {
	one := *p
	one.WriteWindows = 1
	res := []*nicResources{new(nicResources), new(nicResources)}
	t := newTiming(&one, res[0], res, 0)
	const start = 1e9
	clock := int64(start)
	t.now = func() int64 { return clock }
	t.wait = func(until int64) { clock = max(clock, until) }
	t.begin()
	t.write(op, 1, n, false)
	return time.Duration(t.hostAt - start)
}
