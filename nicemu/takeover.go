package nicemu

import (
	"fmt"

	"github.com/rhinet-go/martini/nicemu/takeover"
)

// The takeover mechanism in the emulated NIC.
//
// The hardware paths of the modules run inline in the request paths of
// this package. When a request raises one of the exceptions of Table 7.1
// that the emulation models, the request is handed to the modules' state
// machines of package takeover, whose firmware decides what happens:
//
//   - a PUSH whose source misses in the PATLB: the Initiator suspends at
//     IPA2, firmware refills the PATLB and resumes the hardware at IPA
//     (HARD) or finishes the request in software (SOFT), as SetPATLBMode
//     selects; under a timing profile the Initiator is busy for
//     PATLBRefill, and SoftCompletion more under SOFT, per miss;
//   - a VPUSH packet (vpush.go): RFend misses in the RVATLB on the VPUSH
//     SID, the VPUSH firmware picks the receive address in the target's
//     queue and publishes the message after the Replier breakpoint.
//
// The trace of each takeover is kept (LastTakeover) and the modules'
// counters accumulate (TakeoverCounters).

// jobPGID is the job's PGID as the state machines see it: they only
// compare it, and the emulation's own PGID check (64 bits) runs first.
const jobPGID takeover.PGID = 1

// maxMissingPages bounds the PATLB misses one request hands to the state
// machines; further misses of a very large request are taken as hits.
const maxMissingPages = 32

// tkEnv is the state machines' view of the NIC (takeover.Environment):
// the PGIDTBL and protection of the segment, the PATLB pages that missed,
// and a DMA controller that completes at once (the emulation copies when
// the request's data is due).
type tkEnv struct {
	n       *NIC
	missing [maxMissingPages]uint64 // pages that missed, refilled as firmware refills them
	nmiss   int
}

func (e *tkEnv) LookupPGIDTBL(window int) (takeover.PGID, takeover.PID, bool) {
	return jobPGID, takeover.PID(e.n.pid), window >= 0 && window < NumWindows
}

func (e *tkEnv) SameJob(pgid takeover.PGID, pid takeover.PID) bool {
	return pgid == jobPGID && int(pid) < len(e.n.procs) && e.n.procs[pid].pgid == e.n.ent.pgid
}

func (e *tkEnv) LookupPATLB(_ takeover.PGID, _ takeover.PID, va uint64) (uint64, bool) {
	pg := va / PageSize
	for _, m := range e.missing[:e.nmiss] {
		if m == pg {
			return 0, false
		}
	}
	return va, true
}

func (e *tkEnv) RefillPATLB(_ takeover.PGID, _ takeover.PID, va uint64) bool {
	pg := va / PageSize
	for i, m := range e.missing[:e.nmiss] {
		if m == pg {
			e.nmiss--
			e.missing[i] = e.missing[e.nmiss]
			break
		}
	}
	return true // the emulation's buffers are always resident
}

// LookupRVATLB misses for the VPUSH SID, which is never registered, and
// hits otherwise: the emulation checked the SID before the request.
func (e *tkEnv) LookupRVATLB(_ takeover.PGID, _ takeover.PID, sid takeover.SID) (uint64, uint64, bool) {
	if sid == vpushSID {
		return 0, 0, false
	}
	return 0, 1 << 62, true
}

func (e *tkEnv) RefillRVATLB(_ takeover.PGID, _ takeover.PID, sid takeover.SID) (uint64, uint64, bool) {
	if sid == vpushSID {
		return 0, 0, false
	}
	return 0, 1 << 62, true
}

func (e *tkEnv) RequestInHardware(takeover.RequestKind) bool { return true }
func (e *tkEnv) PacketInHardware(takeover.PacketType) bool   { return true }
func (e *tkEnv) DMADone(takeover.ModuleID) bool              { return true }

// tkState is a NIC's takeover machinery, made on first use: the
// Initiator's model (its firmware's PATLB mode) and a model of a target's
// receive side with VPUSH firmware, which the issuing process runs on the
// target's behalf while it holds the target's receive path.
type tkState struct {
	env   tkEnv
	local *takeover.NIC // this NIC's Initiator
	fw    takeover.StandardFirmware
	rx    *takeover.NIC    // a target's RFend, RBend and Replier
	rxq   sharedQueue      // the target's VPUSH queue, as its firmware sees it
	trace []takeover.Event // the last takeover's trace
}

func (n *NIC) takeoverState() *tkState {
	if n.tk == nil {
		tk := &tkState{}
		tk.env.n = n
		tk.local = takeover.NewNIC(&tk.fw)
		tk.rxq.n = n
		tk.rx = takeover.NewNIC(&takeover.StandardFirmware{
			VPUSH: &takeover.VPUSH{SID: vpushSID, Queue: &tk.rxq, RefuseWhenFull: true},
		})
		tk.trace = make([]takeover.Event, 0, 64)
		n.tk = tk
	}
	return n.tk
}

// SetPATLBMode selects how the firmware completes a request after a PATLB
// refill: takeover.ModeHard (resume the hardware, the default) or
// takeover.ModeSoft (finish in software), as Fig 7.9 compares them.
func (n *NIC) SetPATLBMode(mode takeover.ResumeMode) error {
	if mode >= takeover.NumResumeModes {
		return fmt.Errorf("nicemu: PATLB mode %v: want HARD or SOFT", mode)
	}
	n.takeoverState().fw.PATLBMode = mode
	return nil
}

// FlushPATLB invalidates every entry of the process's PATLB, as the
// driver does when it unpins memory: the next DMA to any page misses.
func (n *NIC) FlushPATLB() { n.patlb.flush() }

// TakeoverCounters returns what the takeover mechanism did for this NIC's
// requests: the Initiator's exceptions, resumes and refusals, and those
// of the targets' receive sides it ran (VPUSH), added together.
func (n *NIC) TakeoverCounters() takeover.Counters {
	if n.tk == nil {
		return takeover.Counters{}
	}
	c, rx := n.tk.local.Counters(), n.tk.rx.Counters()
	for m := range c.Transitions {
		c.Transitions[m] += rx.Transitions[m]
		c.SoftSteps[m] += rx.SoftSteps[m]
		c.Waits[m] += rx.Waits[m]
		for k := range c.Exceptions[m] {
			c.Exceptions[m][k] += rx.Exceptions[m][k]
		}
	}
	c.Takeovers += rx.Takeovers
	for k := range c.Resumes {
		c.Resumes[k] += rx.Resumes[k]
	}
	c.Cancellations += rx.Cancellations
	c.Holds += rx.Holds
	c.BreakpointHits += rx.BreakpointHits
	for k := range c.Refusals {
		c.Refusals[k] += rx.Refusals[k]
	}
	return c
}

// LastTakeover returns the trace of the last request that the state
// machines ran (a PATLB miss or a VPUSH), valid until the next request.
func (n *NIC) LastTakeover() []takeover.Event {
	if n.tk == nil {
		return nil
	}
	return n.tk.trace
}

// pushTakeover is the Initiator's PATLB lookup of a PUSH's source under a
// timing profile: when pages miss, it hands the request to the
// Initiator's state machine and returns the firmware time the takeover
// cost. The request is never refused here: the emulation checked it
// before. In virtual time the source pages hit but after a flush
// (vpatlb.go).
func (n *NIC) pushTakeover(w, dst int, sid SID, off uint64, src []byte) (int64, error) {
	if n.virtualSourceHit(src) {
		return 0, nil
	}
	tk := n.takeoverState()
	tk.env.nmiss = 0
	n.patlb.touchPages(n.pid, addr(src), len(src), tk.env.missing[:], &tk.env.nmiss)
	if tk.env.nmiss == 0 {
		return 0, nil // every page hit: the hardware path
	}
	before := tk.local.Counters()
	req := takeover.Request{Kind: takeover.RequestPush, Window: w, LocalVA: addr(src), Length: len(src),
		Target: takeover.PID(dst), SID: takeover.SID(sid), Offset: off}
	var err error
	tk.trace, err = tk.local.Issue(&tk.env, req, tk.trace[:0])
	if err != nil {
		return 0, fmt.Errorf("nicemu: PUSH takeover: %w", err)
	}
	after := tk.local.Counters()
	if r := after.TotalRefusals() - before.TotalRefusals(); r != 0 {
		return 0, fmt.Errorf("nicemu: PUSH takeover: firmware refused the request")
	}
	if n.timing == nil {
		return 0, nil
	}
	p := n.timing.p
	hard := after.Resumes[takeover.ModeHard] - before.Resumes[takeover.ModeHard]
	soft := after.Resumes[takeover.ModeSoft] - before.Resumes[takeover.ModeSoft]
	return int64(hard+soft)*int64(p.PATLBRefill) + int64(soft)*int64(p.SoftCompletion), nil
}
