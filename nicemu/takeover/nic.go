package takeover

import "fmt"

// Defaults of a new NIC.
const (
	// DefaultTimeoutSteps is how many steps a module waits for its partner
	// before a Timeout, where its state can time out.
	DefaultTimeoutSteps = 64
	// DefaultStepLimit bounds the steps of one NIC operation or Run.
	DefaultStepLimit = 1 << 16
)

// NIC owns the four modules of one Martini and its firmware, and offers the
// operations the emulator calls: Issue (a Window was kicked), Receive (a
// packet arrived) and Service (give held modules another chance). Each
// operation appends what happened to a caller-provided trace and returns
// it; reusing the trace buffer makes operations without exceptions free of
// allocation.
//
// Within one operation the modules run round-robin, one step each per
// round, so that a module waiting for a partner sees the partner progress.
// An operation returns when every module involved is idle or held
// suspended. The NIC is not safe for concurrent use and not re-entrant
// (firmware must not call NIC operations).
type NIC struct {
	// TimeoutSteps is how many consecutive wait steps a module spends in a
	// state that can time out before it raises CauseTimeout.
	TimeoutSteps int
	// StepLimit bounds the rounds of one operation (and the steps of one
	// Module.Run); exceeding it returns ErrRunaway.
	StepLimit int

	mods     [NumModules]Module
	fw       Firmware
	counters Counters
	trace    []Event
}

// NewNIC returns a NIC with idle modules and firmware fw; nil means a
// zero StandardFirmware.
func NewNIC(fw Firmware) *NIC {
	if fw == nil {
		fw = &StandardFirmware{}
	}
	n := &NIC{TimeoutSteps: DefaultTimeoutSteps, StepLimit: DefaultStepLimit, fw: fw}
	for i := range n.mods {
		n.mods[i].id = ModuleID(i)
		n.mods[i].nic = n
	}
	return n
}

// Module returns module id, or nil when id is not a module.
func (n *NIC) Module(id ModuleID) *Module {
	if !id.valid() {
		return nil
	}
	return &n.mods[id]
}

// Firmware returns the NIC's firmware.
func (n *NIC) Firmware() Firmware { return n.fw }

// Counters returns a copy of the counters.
func (n *NIC) Counters() Counters { return n.counters }

// ResetCounters sets every counter to zero.
func (n *NIC) ResetCounters() { n.counters = Counters{} }

// ResetTrace makes buf[:0] the buffer that Module.Step and Module.Run
// append to when they are called directly; Trace returns it. NIC operations
// use the buffer passed to them instead and leave this one as it was.
func (n *NIC) ResetTrace(buf []Event) { n.trace = buf[:0] }

// Trace returns the events recorded by direct Step and Run calls since the
// last ResetTrace.
func (n *NIC) Trace() []Event { return n.trace }

func (n *NIC) record(e Event) { n.trace = append(n.trace, e) }

// Issue hands a kicked Window's request to the Initiator and runs it until
// it is idle or held suspended. The trace shows what the hardware and the
// firmware did; a refused request shows an EventRefused and no packet.
// Issue fails with ErrBusy when the Initiator is not idle (it is held), and
// with ErrInvalidRequest for a negative length or a BOTF image whose
// payload exceeds the MTU.
func (n *NIC) Issue(env Environment, req Request, trace []Event) ([]Event, error) {
	if env == nil {
		return trace, fmt.Errorf("takeover: issue %v: %w", req.Kind, ErrDetached)
	}
	if req.Length < 0 || (req.Kind == RequestBOTF && carriesPayload(req.PacketType) && req.Length > MTU) {
		return trace, fmt.Errorf("takeover: issue %v of %d bytes on Window %d: %w", req.Kind, req.Length, req.Window, ErrInvalidRequest)
	}
	m := &n.mods[Initiator]
	if !m.Idle() {
		return trace, fmt.Errorf("takeover: issue %v on Window %d: Initiator in %v: %w", req.Kind, req.Window, m.state, ErrBusy)
	}
	m.loadRequest(req)
	return n.operate(env, 1<<Initiator, trace)
}

// Receive hands an arriving packet to RFend and runs the receive side
// (RFend, RBend, Replier) until it is idle or held suspended. Packets the
// Replier sends (acks, pull replies) appear as EffectSendPacket events.
// Receive fails with ErrBusy when RFend is not idle (it is held), and with
// ErrInvalidPacket for a negative length or a payload beyond the MTU.
func (n *NIC) Receive(env Environment, pkt Header, trace []Event) ([]Event, error) {
	if env == nil {
		return trace, fmt.Errorf("takeover: receive %v: %w", pkt.Type, ErrDetached)
	}
	if pkt.Length < 0 || (carriesPayload(pkt.Type) && pkt.Length > MTU) {
		return trace, fmt.Errorf("takeover: receive %v of %d bytes: %w", pkt.Type, pkt.Length, ErrInvalidPacket)
	}
	m := &n.mods[RFend]
	if !m.Idle() {
		return trace, fmt.Errorf("takeover: receive %v from PID %d: RFend in %v: %w", pkt.Type, pkt.SrcPID, m.state, ErrBusy)
	}
	m.loadPacket(pkt)
	return n.operate(env, 1<<RFend|1<<RBend|1<<Replier, trace)
}

// Service offers every held module to the firmware again and runs all
// modules until they are idle or held: firmware that held a module
// waiting for something (VPUSH waiting for queue space) retries here.
func (n *NIC) Service(env Environment, trace []Event) ([]Event, error) {
	if env == nil {
		return trace, fmt.Errorf("takeover: service: %w", ErrDetached)
	}
	return n.operate(env, 1<<Initiator|1<<Replier|1<<RFend|1<<RBend, trace)
}

// operate runs the modules in set round-robin with trace as the buffer.
func (n *NIC) operate(env Environment, set uint8, trace []Event) ([]Event, error) {
	saved := n.trace
	n.trace = trace
	err := n.run(env, set)
	trace, n.trace = n.trace, saved
	return trace, err
}

// run steps the modules in set round-robin until none has anything to do.
// A suspended module is offered to the firmware; one that the firmware
// holds is offered once per operation.
func (n *NIC) run(env Environment, set uint8) error {
	var offered [NumModules]bool
	for round := 0; round < n.StepLimit; round++ {
		active := false
		for id := ModuleID(0); id < NumModules; id++ {
			if set&(1<<id) == 0 {
				continue
			}
			m := &n.mods[id]
			if m.state == StateMiss {
				if m.held && offered[id] {
					continue
				}
				offered[id] = true
				kind, err := m.offer(env, n.fw)
				if err != nil {
					return err
				}
				if kind != ActionHold {
					active = true
				}
				continue
			}
			if !m.Idle() {
				m.Step(env)
				active = true
			}
		}
		if !active {
			return nil
		}
	}
	return fmt.Errorf("takeover: NIC operation: %w (%d rounds)", ErrRunaway, n.StepLimit)
}
