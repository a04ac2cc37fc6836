package takeover

import "fmt"

// EventKind says what an Event records.
type EventKind uint8

// The kinds of events in a trace.
const (
	// EventTransition: the module moved From -> To, doing the work of
	// From. Soft marks a step firmware did in place of the hardware.
	EventTransition EventKind = iota + 1
	// EventWait: the module stayed in From waiting for its partner (a DMA
	// completion, a busy module); each wait is one step towards a timeout.
	EventWait
	// EventException: the module entered MISS from From (its last state)
	// with Cause.
	EventException
	// EventTakeover: firmware took over the suspended module and read its
	// last state (From) and Cause. Every firmware invocation starts with
	// one.
	EventTakeover
	// EventFirmware: a piece of firmware work (Op) on behalf of Module.
	EventFirmware
	// EventAction: firmware's decision (Action) for the suspension with
	// Cause; To is where the module continues (IDLE for Cancel, MISS for
	// Hold).
	EventAction
	// EventEffect: the module (or firmware in its place, Soft) acted on
	// the outside world: Effect.
	EventEffect
	// EventRefused: firmware refused the module's request or packet
	// (Refusal): it is never performed.
	EventRefused
)

// String returns the event kind's name.
func (k EventKind) String() string {
	switch k {
	case 0:
		return "none"
	case EventTransition:
		return "transition"
	case EventWait:
		return "wait"
	case EventException:
		return "exception"
	case EventTakeover:
		return "takeover"
	case EventFirmware:
		return "firmware"
	case EventAction:
		return "action"
	case EventEffect:
		return "effect"
	case EventRefused:
		return "refused"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// EffectOp is the kind of an Effect.
type EffectOp uint8

// The effects of the modules on the world outside the model.
const (
	// EffectDMARead: a DMA read of one piece of host memory (VA, PA,
	// Length) of process PID into the packet payload at Offset.
	EffectDMARead EffectOp = iota + 1
	// EffectDMAWrite: a DMA write of one piece into host memory at (VA,
	// PA, Length): bytes Offset.. of the received payload, or of the
	// 8-byte flag value 1 when Flag is set.
	EffectDMAWrite
	// EffectSendPacket: Packet (with the payload read just before) is
	// handed to the network.
	EffectSendPacket
	// EffectContFlag: the contflag of Window is written; the process may
	// reuse the Window.
	EffectContFlag
)

// String returns the effect's name.
func (op EffectOp) String() string {
	switch op {
	case EffectDMARead:
		return "dma-read"
	case EffectDMAWrite:
		return "dma-write"
	case EffectSendPacket:
		return "send"
	case EffectContFlag:
		return "contflag"
	}
	return fmt.Sprintf("EffectOp(%d)", uint8(op))
}

// Effect is what a module did outside itself: a DMA request, a packet
// sent, a contflag written. Which fields matter depends on Op.
type Effect struct {
	// Op is what was done.
	Op EffectOp
	// PGID and PID are the process whose memory or Window is concerned.
	PGID PGID
	PID  PID
	// VA, PA and Length describe a DMA piece; it never crosses a page.
	VA     uint64
	PA     uint64
	Length int
	// Offset is the position of the piece within the packet payload (or
	// within the flag word when Flag is set).
	Offset int
	// Flag marks a DMA write of the completion flag instead of payload.
	Flag bool
	// Window is the Window whose contflag is written.
	Window int
	// Packet is the header of the packet sent.
	Packet Header
}

// FirmwareOp is a piece of firmware work recorded in the trace, so that a
// driver can charge time for it.
type FirmwareOp uint8

// The firmware operations.
const (
	// OpLookupPGIDTBL: firmware read the PGIDTBL for a request it serves.
	OpLookupPGIDTBL FirmwareOp = iota + 1
	// OpDispatchRequest: a software request handler ran.
	OpDispatchRequest
	// OpDispatchPacket: a software packet handler ran.
	OpDispatchPacket
	// OpRefillPATLB: firmware walked the page table and replaced a PATLB
	// entry.
	OpRefillPATLB
	// OpRefillRVATLB: firmware read the SID table and replaced an RVATLB
	// entry.
	OpRefillRVATLB
	// OpReserveSlot: VPUSH computed the next receive-queue address.
	OpReserveSlot
	// OpWriteRegisters: firmware wrote a module's registers.
	OpWriteRegisters
	// OpSetBreakpoint and OpClearBreakpoint: firmware changed a
	// breakpoint.
	OpSetBreakpoint
	OpClearBreakpoint
	// OpPublish: VPUSH published a receive pointer (a DMA write of the
	// pointer into host memory in the thesis, l.2006).
	OpPublish
)

// String returns the operation's name.
func (op FirmwareOp) String() string {
	switch op {
	case OpLookupPGIDTBL:
		return "lookup-pgidtbl"
	case OpDispatchRequest:
		return "dispatch-request"
	case OpDispatchPacket:
		return "dispatch-packet"
	case OpRefillPATLB:
		return "refill-patlb"
	case OpRefillRVATLB:
		return "refill-rvatlb"
	case OpReserveSlot:
		return "reserve-slot"
	case OpWriteRegisters:
		return "write-registers"
	case OpSetBreakpoint:
		return "set-breakpoint"
	case OpClearBreakpoint:
		return "clear-breakpoint"
	case OpPublish:
		return "publish"
	}
	return fmt.Sprintf("FirmwareOp(%d)", uint8(op))
}

// Refusal says why firmware refused a request or a packet.
type Refusal uint8

// The reasons for a refusal.
const (
	// RefusedNone: no refusal.
	RefusedNone Refusal = iota
	// RefusedInvalidWindow: the Window has no PGIDTBL entry.
	RefusedInvalidWindow
	// RefusedForeignJob: the target is not in the requester's job.
	RefusedForeignJob
	// RefusedUnmappedPage: the page is not pinned (PATLB refill failed).
	RefusedUnmappedPage
	// RefusedUnknownSegment: no such SID for the process in this job
	// (RVATLB refill failed).
	RefusedUnknownSegment
	// RefusedOutOfRange: the access exceeds the registered segment.
	RefusedOutOfRange
	// RefusedNoHandler: no software handler for the request kind or
	// packet type.
	RefusedNoHandler
	// RefusedByHandler: the software handler returned an error.
	RefusedByHandler
	// RefusedTimeout: dropped after a timeout.
	RefusedTimeout
	// RefusedOversize: a VPUSH message longer than MaxVPUSH.
	RefusedOversize
	// RefusedQueueFull: the VPUSH queue is full and the firmware is
	// configured to refuse rather than wait.
	RefusedQueueFull
	// RefusedNoQueue: no VPUSH receive queue for the process, or it
	// rejected the message.
	RefusedNoQueue
)

// NumRefusals is the number of refusal reasons, RefusedNone included.
const NumRefusals = 12

// String returns the reason.
func (r Refusal) String() string {
	switch r {
	case RefusedNone:
		return "none"
	case RefusedInvalidWindow:
		return "invalid Window (no PGIDTBL entry)"
	case RefusedForeignJob:
		return "target belongs to another job"
	case RefusedUnmappedPage:
		return "page not pinned"
	case RefusedUnknownSegment:
		return "SID not registered in this job"
	case RefusedOutOfRange:
		return "access outside the registered segment"
	case RefusedNoHandler:
		return "no software handler"
	case RefusedByHandler:
		return "software handler failed"
	case RefusedTimeout:
		return "timed out"
	case RefusedOversize:
		return "VPUSH message longer than 2048 bytes"
	case RefusedQueueFull:
		return "VPUSH queue full"
	case RefusedNoQueue:
		return "no VPUSH receive queue"
	}
	return fmt.Sprintf("Refusal(%d)", uint8(r))
}

// Event is one entry of a trace: a transition, an exception, a firmware
// step or decision, an effect or a refusal. Which fields matter depends on
// Kind.
type Event struct {
	// Kind says what the event records.
	Kind EventKind
	// Module is the module concerned (the one firmware works for, for
	// firmware events).
	Module ModuleID
	// From and To are states (see EventKind for their meaning per kind).
	From State
	To   State
	// Soft marks work done by firmware in place of the hardware (the SOFT
	// mode of Fig 7.9, after CompleteSoft).
	Soft bool
	// Cause is the cause of an exception, or the cause firmware handled
	// (EventTakeover, EventAction).
	Cause Cause
	// Action is firmware's decision (EventAction).
	Action ActionKind
	// Op is the firmware work done (EventFirmware).
	Op FirmwareOp
	// Refusal is why a request or packet was refused (EventRefused).
	Refusal Refusal
	// Effect is what was done outside the module (EventEffect).
	Effect Effect
}

// String formats the event for humans.
func (e Event) String() string {
	soft := ""
	if e.Soft {
		soft = " (soft)"
	}
	switch e.Kind {
	case EventTransition:
		return fmt.Sprintf("%v %v->%v%s", e.Module, e.From, e.To, soft)
	case EventWait:
		return fmt.Sprintf("%v wait in %v%s", e.Module, e.From, soft)
	case EventException:
		return fmt.Sprintf("%v %v->MISS [%v]", e.Module, e.From, e.Cause)
	case EventTakeover:
		return fmt.Sprintf("firmware takes over %v (last %v, %v)", e.Module, e.From, e.Cause)
	case EventFirmware:
		return fmt.Sprintf("firmware %v for %v", e.Op, e.Module)
	case EventAction:
		return fmt.Sprintf("firmware %v %v -> %v", e.Action, e.Module, e.To)
	case EventEffect:
		ef := e.Effect
		switch ef.Op {
		case EffectSendPacket:
			p := ef.Packet
			return fmt.Sprintf("%v sends %v %d->%d len %d%s", e.Module, p.Type, p.SrcPID, p.DstPID, p.Length, soft)
		case EffectContFlag:
			return fmt.Sprintf("%v contflag Window %d%s", e.Module, ef.Window, soft)
		}
		flag := ""
		if ef.Flag {
			flag = " flag"
		}
		return fmt.Sprintf("%v %v%s pid %d va %#x pa %#x len %d off %d%s", e.Module, ef.Op, flag, ef.PID, ef.VA, ef.PA, ef.Length, ef.Offset, soft)
	case EventRefused:
		return fmt.Sprintf("%v refused: %v", e.Module, e.Refusal)
	}
	return fmt.Sprintf("%v event %v", e.Module, e.Kind)
}

// Transition is the result of one Step: what the module did.
type Transition struct {
	// Module is the module that stepped.
	Module ModuleID
	// Kind is EventTransition, EventWait or EventException, or 0 when the
	// module had nothing to do (idle, or suspended awaiting firmware).
	Kind EventKind
	// From is the state the step started in, To the state it ended in
	// (MISS after an exception, From after a wait).
	From State
	To   State
	// Soft marks a step done by firmware in place of the hardware.
	Soft bool
	// Cause is set when the step suspended the module.
	Cause Cause
}
