package takeover

// Counters count what the modules and the firmware did since the NIC was
// created or its counters reset.
type Counters struct {
	// Transitions counts hardware transitions per module, SoftSteps the
	// steps firmware did in their place, Waits the steps spent waiting.
	Transitions [NumModules]uint64
	SoftSteps   [NumModules]uint64
	Waits       [NumModules]uint64
	// Exceptions counts suspensions by module and cause (breakpoint hits
	// included).
	Exceptions [NumModules][NumCauses]uint64
	// Takeovers counts firmware invocations (a held module is offered to
	// firmware again on every NIC operation).
	Takeovers uint64
	// Resumes counts Resume (ModeHard) and CompleteSoft (ModeSoft).
	Resumes [NumResumeModes]uint64
	// Cancellations counts Cancel actions, Holds counts Hold actions.
	Cancellations uint64
	Holds         uint64
	// BreakpointHits counts suspensions with CauseBreakpoint.
	BreakpointHits uint64
	// Refusals counts refused requests and packets by reason.
	Refusals [NumRefusals]uint64
}

// TotalRefusals is the number of refusals of any reason.
func (c *Counters) TotalRefusals() uint64 {
	var n uint64
	for _, v := range c.Refusals {
		n += v
	}
	return n
}
