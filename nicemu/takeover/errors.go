package takeover

import "errors"

// Errors for invalid use of the model. They are returned wrapped with
// context; match them with errors.Is.
var (
	// ErrNotSuspended: a firmware action on a module that is not in MISS.
	ErrNotSuspended = errors.New("takeover: module is not suspended")
	// ErrInvalidState: a state that does not belong to the module, or
	// MISS as the target of an action.
	ErrInvalidState = errors.New("takeover: state not valid for this module")
	// ErrInvalidAction: an Action of unknown kind.
	ErrInvalidAction = errors.New("takeover: invalid firmware action")
	// ErrBusy: the module that should accept a request or a packet is not
	// idle.
	ErrBusy = errors.New("takeover: module busy")
	// ErrInvalidRequest: a request the hardware cannot hold (negative
	// length, a BOTF image beyond the MTU).
	ErrInvalidRequest = errors.New("takeover: invalid request")
	// ErrInvalidPacket: a packet the network cannot carry (negative
	// length, payload beyond the MTU).
	ErrInvalidPacket = errors.New("takeover: invalid packet")
	// ErrRunaway: the NIC's StepLimit was exceeded; the module hangs
	// (typically after firmware resumed it somewhere it cannot continue).
	ErrRunaway = errors.New("takeover: step limit exceeded")
	// ErrDetached: a Module not created by NewNIC, or a nil environment or
	// firmware.
	ErrDetached = errors.New("takeover: module without NIC, environment or firmware")
	// ErrQueueFull: a ReceiveQueue has no room for the message now.
	ErrQueueFull = errors.New("takeover: receive queue full")
	// ErrNoQueue: a ReceiveQueue cannot take the message at all.
	ErrNoQueue = errors.New("takeover: no receive queue for the message")
)
