package takeover

// Environment is what the modules and the firmware consult outside their
// own registers: the tables of the NIC and the DMA controller. The caller
// implements it (the emulated NIC over its shared segment; MapEnv in
// tests). The model calls it synchronously and never retains it.
type Environment interface {
	// LookupPGIDTBL returns the (PGID, PID) bound to a Window; ok is false
	// when the Window has no entry.
	LookupPGIDTBL(window int) (pgid PGID, pid PID, ok bool)
	// SameJob reports whether process pid belongs to job pgid: the
	// protection check of PUSH, PULL and BOTF targets (thesis §4.2.4).
	SameJob(pgid PGID, pid PID) bool
	// LookupPATLB translates va of process pid in job pgid through the
	// PATLB, the cache shared by ICONT and RCONT (thesis l.1219). A miss
	// (hit false) suspends the module that asked.
	LookupPATLB(pgid PGID, pid PID, va uint64) (pa uint64, hit bool)
	// RefillPATLB is firmware's replacement of a PATLB entry from the page
	// tables. It reports false when the page is not pinned for pid or pid
	// is not in job pgid; the access is then refused.
	RefillPATLB(pgid PGID, pid PID, va uint64) bool
	// LookupRVATLB returns the segment (base virtual address, length)
	// registered by process pid of job pgid as sid, if the RVATLB holds it.
	LookupRVATLB(pgid PGID, pid PID, sid SID) (base, length uint64, hit bool)
	// RefillRVATLB is firmware's replacement of an RVATLB entry from the
	// SID table. ok is false when pid has no segment sid or is not in job
	// pgid; the access is then refused.
	RefillRVATLB(pgid PGID, pid PID, sid SID) (base, length uint64, ok bool)
	// RequestInHardware reports whether the Initiator performs requests of
	// this kind itself; otherwise they go to firmware. Kinds other than
	// PUSH, PULL and BOTF always go to firmware.
	RequestInHardware(kind RequestKind) bool
	// PacketInHardware reports whether RFend receives packets of this type
	// itself; otherwise they go to firmware. Control packets and unknown
	// types always go to firmware.
	PacketInHardware(t PacketType) bool
	// DMADone reports whether every DMA transfer module m has issued has
	// completed. A module waiting for it polls once per step.
	DMADone(m ModuleID) bool
}
