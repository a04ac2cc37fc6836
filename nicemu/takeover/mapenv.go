package takeover

// MapEnv is a deterministic, map-backed Environment for tests of this
// package and of its drivers. It holds a PGIDTBL, the job of every process,
// page tables of pinned pages, SID tables, and the PATLB and RVATLB caches
// (initially empty: first touches miss and are refilled by firmware).
// Exported fields are switches that force misses, defer DMA completions and
// count lookups. The zero value is an empty environment, like NewMapEnv's.
type MapEnv struct {
	// ForcePATLBMisses and ForceRVATLBMisses make that many next lookups
	// miss, whatever the cache holds.
	ForcePATLBMisses  int
	ForceRVATLBMisses int
	// DMAPending makes that many next DMADone polls of each module report
	// false; DMAStuck makes them report false for ever.
	DMAPending [NumModules]int
	DMAStuck   [NumModules]bool
	// PATLBLookups, PATLBMisses, RVATLBLookups and RVATLBMisses count the
	// hardware lookups and their misses.
	PATLBLookups  int
	PATLBMisses   int
	RVATLBLookups int
	RVATLBMisses  int

	windows      map[int]windowEntry
	jobs         map[PID]PGID
	pages        map[procPage]uint64 // pinned: (pid, virtual page) -> physical page
	patlb        map[tlbPage]uint64
	segments     map[procSID]segment
	rvatlb       map[tlbSID]segment
	softRequests map[RequestKind]bool
	softPackets  map[PacketType]bool
}

type windowEntry struct {
	pgid PGID
	pid  PID
}

type procPage struct {
	pid PID
	vpn uint64
}

type tlbPage struct {
	pgid PGID
	pid  PID
	vpn  uint64
}

type procSID struct {
	pid PID
	sid SID
}

type tlbSID struct {
	pgid PGID
	pid  PID
	sid  SID
}

type segment struct{ base, length uint64 }

// NewMapEnv returns an empty environment: no Windows, no processes, cold
// caches, every request kind and packet type with a hardware path handled
// in hardware.
func NewMapEnv() *MapEnv {
	e := &MapEnv{}
	e.init()
	return e
}

// init makes the maps of a zero MapEnv.
func (e *MapEnv) init() {
	if e.windows != nil {
		return
	}
	e.windows = make(map[int]windowEntry)
	e.jobs = make(map[PID]PGID)
	e.pages = make(map[procPage]uint64)
	e.patlb = make(map[tlbPage]uint64)
	e.segments = make(map[procSID]segment)
	e.rvatlb = make(map[tlbSID]segment)
	e.softRequests = make(map[RequestKind]bool)
	e.softPackets = make(map[PacketType]bool)
}

// AddProcess records that process pid belongs to job pgid.
func (e *MapEnv) AddProcess(pgid PGID, pid PID) {
	e.init()
	e.jobs[pid] = pgid
}

// BindWindow writes the PGIDTBL entry of Window w (and records the job of
// pid).
func (e *MapEnv) BindWindow(w int, pgid PGID, pid PID) {
	e.init()
	e.windows[w] = windowEntry{pgid, pid}
	e.jobs[pid] = pgid
}

// Pin pins the pages of process pid covering [va, va+length) and maps them
// to consecutive physical pages, the first being the page containing pa.
func (e *MapEnv) Pin(pid PID, va uint64, length int, pa uint64) {
	e.init()
	if length <= 0 {
		length = 1
	}
	first, last := va/PageSize, (va+uint64(length)-1)/PageSize
	frame := pa &^ (PageSize - 1)
	for vpn := first; vpn <= last; vpn++ {
		e.pages[procPage{pid, vpn}] = frame + (vpn-first)*PageSize
	}
}

// Translate returns the physical address of va of process pid from the
// page tables (not the PATLB).
func (e *MapEnv) Translate(pid PID, va uint64) (uint64, bool) {
	frame, ok := e.pages[procPage{pid, va / PageSize}]
	return frame + va%PageSize, ok
}

// Register enters segment sid of process pid into its SID table.
func (e *MapEnv) Register(pid PID, sid SID, base, length uint64) {
	e.init()
	e.segments[procSID{pid, sid}] = segment{base, length}
}

// WarmPATLB fills the PATLB with the pinned pages of pid covering
// [va, va+length), keyed with job pgid.
func (e *MapEnv) WarmPATLB(pgid PGID, pid PID, va uint64, length int) {
	e.init()
	if length <= 0 {
		length = 1
	}
	for vpn := va / PageSize; vpn <= (va+uint64(length)-1)/PageSize; vpn++ {
		if frame, ok := e.pages[procPage{pid, vpn}]; ok {
			e.patlb[tlbPage{pgid, pid, vpn}] = frame
		}
	}
}

// WarmRVATLB fills the RVATLB entry (pgid, pid, sid) if pid registered sid.
func (e *MapEnv) WarmRVATLB(pgid PGID, pid PID, sid SID) {
	e.init()
	if s, ok := e.segments[procSID{pid, sid}]; ok {
		e.rvatlb[tlbSID{pgid, pid, sid}] = s
	}
}

// FlushTLBs empties the PATLB and the RVATLB.
func (e *MapEnv) FlushTLBs() {
	clear(e.patlb)
	clear(e.rvatlb)
}

// SetRequestInHardware switches the Initiator's hardware path for kind on
// or off.
func (e *MapEnv) SetRequestInHardware(kind RequestKind, on bool) {
	e.init()
	e.softRequests[kind] = !on
}

// SetPacketInHardware switches RFend's hardware path for type t on or off.
func (e *MapEnv) SetPacketInHardware(t PacketType, on bool) {
	e.init()
	e.softPackets[t] = !on
}

// LookupPGIDTBL implements Environment.
func (e *MapEnv) LookupPGIDTBL(window int) (PGID, PID, bool) {
	w, ok := e.windows[window]
	return w.pgid, w.pid, ok
}

// SameJob implements Environment.
func (e *MapEnv) SameJob(pgid PGID, pid PID) bool {
	j, ok := e.jobs[pid]
	return ok && j == pgid
}

// LookupPATLB implements Environment.
func (e *MapEnv) LookupPATLB(pgid PGID, pid PID, va uint64) (uint64, bool) {
	e.PATLBLookups++
	if e.ForcePATLBMisses > 0 {
		e.ForcePATLBMisses--
		e.PATLBMisses++
		return 0, false
	}
	frame, ok := e.patlb[tlbPage{pgid, pid, va / PageSize}]
	if !ok {
		e.PATLBMisses++
		return 0, false
	}
	return frame + va%PageSize, true
}

// RefillPATLB implements Environment.
func (e *MapEnv) RefillPATLB(pgid PGID, pid PID, va uint64) bool {
	if !e.SameJob(pgid, pid) {
		return false
	}
	frame, ok := e.pages[procPage{pid, va / PageSize}]
	if !ok {
		return false
	}
	e.init()
	e.patlb[tlbPage{pgid, pid, va / PageSize}] = frame
	return true
}

// LookupRVATLB implements Environment.
func (e *MapEnv) LookupRVATLB(pgid PGID, pid PID, sid SID) (uint64, uint64, bool) {
	e.RVATLBLookups++
	if e.ForceRVATLBMisses > 0 {
		e.ForceRVATLBMisses--
		e.RVATLBMisses++
		return 0, 0, false
	}
	s, ok := e.rvatlb[tlbSID{pgid, pid, sid}]
	if !ok {
		e.RVATLBMisses++
	}
	return s.base, s.length, ok
}

// RefillRVATLB implements Environment.
func (e *MapEnv) RefillRVATLB(pgid PGID, pid PID, sid SID) (uint64, uint64, bool) {
	if !e.SameJob(pgid, pid) {
		return 0, 0, false
	}
	s, ok := e.segments[procSID{pid, sid}]
	if !ok {
		return 0, 0, false
	}
	e.init()
	e.rvatlb[tlbSID{pgid, pid, sid}] = s
	return s.base, s.length, true
}

// RequestInHardware implements Environment.
func (e *MapEnv) RequestInHardware(kind RequestKind) bool { return !e.softRequests[kind] }

// PacketInHardware implements Environment.
func (e *MapEnv) PacketInHardware(t PacketType) bool { return !e.softPackets[t] }

// DMADone implements Environment.
func (e *MapEnv) DMADone(m ModuleID) bool {
	if !m.valid() {
		return true
	}
	if e.DMAStuck[m] {
		return false
	}
	if e.DMAPending[m] > 0 {
		e.DMAPending[m]--
		return false
	}
	return true
}
