package martini

import (
	"fmt"

	"github.com/rhinet-go/martini/internal/spinwait"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// SyncGroup is one communicator's view of the NIC's synchronisation
// network and multicast: a barrier controller shared by the group's
// processes and their multicast buffers. Its blocking calls wait through
// the endpoint, which keeps the process's own protocols progressing and
// sleeps on the doorbell that the NIC rings on release and delivery. It
// is the network.SyncGroup of the martini network's Offload (the
// collectives' Hardware). One collective at a time may use it.
type SyncGroup struct {
	tr     *Translator
	nic    *nicemu.NIC
	port   *nicemu.BarrierPort // the member's port to the controller; nil if refused
	ep     *llc.Endpoint
	id     int   // barrier controller
	member int   // the caller's index in procs
	procs  []int // job-wide process ids of the members
	dests  []int // procs without the caller
	tag    uint64
	seq    uint64 // multicasts made in the group
	gen    uint64 // generation of the last barrier
	at     uint64 // the generation WaitReleasedAt and WaitArrivedAt wait for
	atOf   int    // the member WaitArrivedAt waits for

	// state of the operation being waited for (Done)
	mcData  []byte
	mcRoot  int
	mcTag   uint64
	mcLen   int
	mcOK    bool
	mcErr   error
	waiting func(g *SyncGroup) bool
	done    bool
}

// syncSpin is how many times a member looks for a release (or a
// multicast) before it waits through the endpoint: about a microsecond.
// While processes outnumber cores, where the endpoint does not spin
// either, only while no process that may run on this one's CPU could do
// anything (lookWhileIdle): otherwise the member waited for may need this
// one's core: spinning there regardless made small collectives
// markedly slower than not (docs/decisions.md, syncSpin).
const syncSpin = 256

// NewSyncGroup returns the view of barrier controller id of the NIC t
// drives, for the group of processes procs (the caller is procs[member]).
// tag tells this group's multicasts apart from those of other groups the
// same processes belong to.
func NewSyncGroup(t *Translator, ep *llc.Endpoint, id, member int, procs []int, tag uint32) *SyncGroup {
	g := &SyncGroup{tr: t, nic: t.nic, ep: ep, id: id, member: member, procs: procs, tag: uint64(tag) << 32}
	// Without a port (the NIC refused the group), the requests go to the
	// NIC, which refuses them.
	g.port, _ = t.nic.OpenBarrierPort(id, member, procs)
	for i, p := range procs {
		if i != member {
			g.dests = append(g.dests, p)
		}
	}
	return g
}

// ID returns the barrier controller's id.
func (g *SyncGroup) ID() int { return g.id }

// Done reports whether the operation being waited for has completed; the
// endpoint calls it while waiting.
func (g *SyncGroup) Done() bool {
	if !g.done {
		g.done = g.waiting(g)
	}
	return g.done || g.ep.Failed()
}

// wait waits for the operation cond tells done, or for the engine to
// fail. cond may act (post a multicast, take one): it is not called again
// once it has reported true.
func (g *SyncGroup) wait(cond func(g *SyncGroup) bool) error {
	// The other members are usually close behind: look at the
	// synchronisation network alone for a moment (one cache line, no
	// lock) before waiting through the endpoint, whose rounds of
	// progress would delay noticing the release.
	g.done = false
	if g.ep.Spin == 0 {
		if g.done = g.lookWhileIdle(cond); g.done {
			return nil
		}
	} else {
		for range syncSpin {
			if g.done = cond(g); g.done {
				return nil
			}
		}
	}
	g.waiting = cond
	g.ep.Wait(g)
	if !g.done {
		return g.ep.Err()
	}
	return nil
}

// lookWhileIdle is wait's look at the synchronisation network while
// processes outnumber cores: it looks up to syncSpin times, but only while
// no process that may run on this one's CPU could do anything (the
// translator's YieldHelps, asked every idleLookEvery looks, which under
// the Martini model and in virtual time always says a yield helps, so that
// the model's waits stay as they were), so that the
// look takes no core from a process that could use it: what this one waits
// for comes from another core. It reports whether cond came true.
// Looking so made small broadcasts at 4 and 8 processes slightly faster
// than not looking and left the rest within the noise (docs/decisions.md,
// lookWhileIdle).
func (g *SyncGroup) lookWhileIdle(cond func(g *SyncGroup) bool) bool {
	for i := range syncSpin {
		if cond(g) {
			return true
		}
		if i%idleLookEvery == 0 && g.tr.YieldHelps() {
			return false
		}
		spinwait.Pause()
	}
	return false
}

// idleLookEvery is how many looks of lookWhileIdle pass between two
// questions whether a yield would help.
const idleLookEvery = 8

func barrierReleased(g *SyncGroup) bool {
	if g.port != nil {
		return g.port.Released(g.gen)
	}
	return g.nic.BarrierReleased(g.id, len(g.procs), g.gen)
}

func multicastPosted(g *SyncGroup) bool {
	g.mcOK, g.mcErr = g.nic.TryMulticast(g.dests, g.mcTag, g.mcData)
	return g.mcOK || g.mcErr != nil
}

func multicastDelivered(g *SyncGroup) bool {
	g.mcLen, g.mcOK, g.mcErr = g.nic.TryDeliver(g.procs[g.mcRoot], g.mcTag, g.mcData)
	return g.mcOK || g.mcErr != nil
}

// Barrier publishes payload, adds key to the controller's sum, passes
// *datum (none if nil) through the controller, and waits until every
// member has arrived.
func (g *SyncGroup) Barrier(key uint64, datum *[nicemu.DatumSize]byte, payload []byte) error {
	return g.BarrierParts(key, datum, payload, nil)
}

// BarrierParts is Barrier with the payload given in two parts, head then
// tail, which the others' Payload returns joined
// (collectives.PartsBarrier).
func (g *SyncGroup) BarrierParts(key uint64, datum *[nicemu.DatumSize]byte, head, tail []byte) error {
	released, err := g.arrive(key, datum, head, tail)
	if err != nil || released {
		return err // released: the last to arrive need not wait
	}
	return g.WaitReleased()
}

// Arrive is Barrier's first half (collectives.SplitBarrier): it enters
// the barrier as Barrier does and returns at once; Released and
// WaitReleased are its second half.
func (g *SyncGroup) Arrive(key uint64, datum *[nicemu.DatumSize]byte, payload []byte) error {
	_, err := g.arrive(key, datum, payload, nil)
	return err
}

// arrive enters the barrier with the payload head then tail, and reports
// whether the arrival found every member arrived (through the port; false
// without one).
func (g *SyncGroup) arrive(key uint64, datum *[nicemu.DatumSize]byte, head, tail []byte) (released bool, err error) {
	var gen uint64
	if g.port != nil {
		gen, released, err = g.port.Enter(key, datum, head, tail)
	} else {
		gen, err = g.nic.BarrierArriveParts(g.id, g.member, g.procs, key, datum, head, tail)
	}
	if err != nil {
		return false, fmt.Errorf("barrier controller %d: %w", g.id, err)
	}
	g.gen = gen
	return released, nil
}

// Released reports whether every member has arrived at the barrier the
// last Arrive entered.
func (g *SyncGroup) Released() bool { return barrierReleased(g) }

// WaitReleased waits until every member has arrived at the barrier the
// last Arrive entered, or the engine fails.
func (g *SyncGroup) WaitReleased() error {
	g.publishRelease(g.gen)
	return g.waitPublished(barrierReleased)
}

// waitPublished is wait for what this process has published it waits for
// (nicemu's WaitingForArrival, WaitingForRelease), and publishes that it
// no longer does.
func (g *SyncGroup) waitPublished(cond func(g *SyncGroup) bool) error {
	err := g.wait(cond)
	g.nic.DoneWaiting()
	return err
}

// publishRelease publishes that this process waits for the release of
// generation gen (nicemu.NIC.WaitingForRelease), so that the processes
// sharing its CPU know whether a yield to it would help. A port's
// arrivals are the NIC's, in the same members' areas: the NIC sees their
// releases (BarrierReleased) as the port does.
func (g *SyncGroup) publishRelease(gen uint64) {
	g.nic.WaitingForRelease(g.id, len(g.procs), gen)
}

// ArriveRecord enters the barrier as Arrive does, publishing key, rec and
// datum in the ring of the last nicemu.RecordRingDepth generations
// (collectives.RunAheadBarrier), and returns the generation it entered.
func (g *SyncGroup) ArriveRecord(key uint64, rec [nicemu.RecordSize]byte, datum *[nicemu.DatumSize]byte) (uint64, error) {
	gen, err := g.nic.BarrierArriveRecord(g.id, g.member, g.procs, key, rec, datum)
	if err != nil {
		return 0, fmt.Errorf("barrier controller %d: %w", g.id, err)
	}
	g.gen = gen
	return gen, nil
}

// Generation returns the generation the last arrival entered.
func (g *SyncGroup) Generation() uint64 { return g.gen }

// ReleasedAt reports whether every member has arrived at generation gen.
func (g *SyncGroup) ReleasedAt(gen uint64) bool {
	if g.port != nil {
		return g.port.Released(gen)
	}
	return g.nic.BarrierReleased(g.id, len(g.procs), gen)
}

// LastReleased returns the newest generation every member has arrived at.
func (g *SyncGroup) LastReleased() uint64 { return g.nic.BarrierLastReleased(g.id, len(g.procs)) }

// WaitReleasedAt waits until every member has arrived at generation gen,
// or the engine fails. Unlike WaitReleased it publishes no wait: the
// waits of calls that ran ahead (a reduction's root settling its check,
// a process the ring holds back) published, the processes sharing its CPU
// polled instead of yielding to it, and small reductions and gathers at
// 4 processes on 2 cores took 1.4 times as long (docs/decisions.md,
// "Barrier waits published through the port").
func (g *SyncGroup) WaitReleasedAt(gen uint64) error {
	if g.ReleasedAt(gen) {
		return nil
	}
	g.at = gen
	return g.wait(releasedAt)
}

func releasedAt(g *SyncGroup) bool { return g.ReleasedAt(g.at) }

// WaitArrivedAt waits until member r has arrived at generation gen,
// whether or not the others have, or the engine fails. (An arrival with a
// record rings the members that may be asleep, so a member asleep here
// wakes at r's arrival.)
func (g *SyncGroup) WaitArrivedAt(r int, gen uint64) error {
	if g.nic.BarrierArrived(g.id, r, gen) {
		return nil
	}
	g.at, g.atOf = gen, r
	g.nic.WaitingForArrival(g.id, r, gen)
	return g.waitPublished(arrivedAt)
}

func arrivedAt(g *SyncGroup) bool { return g.nic.BarrierArrived(g.id, g.atOf, g.at) }

// DatumAt points at the data word member r passed for generation gen,
// once r has arrived there and while the ring holds it; the caller must
// not write it.
func (g *SyncGroup) DatumAt(r int, gen uint64) *[nicemu.DatumSize]byte {
	return g.nic.BarrierDatumRef(g.id, r, gen)
}

// KeyAt returns the key member r passed for generation gen, while the
// ring holds it.
func (g *SyncGroup) KeyAt(r int, gen uint64) uint64 { return g.nic.BarrierKey(g.id, r, gen) }

// KeyWindowAt returns member r's key window at generation gen
// (nicemu.NIC.BarrierKeyWindow), while the ring holds it.
func (g *SyncGroup) KeyWindowAt(r int, gen uint64) uint64 {
	return g.nic.BarrierKeyWindow(g.id, r, gen)
}

// KeyWindow is how many generations a key window covers.
func (g *SyncGroup) KeyWindow() int { return nicemu.KeyWindow }

// RecordAt returns the record member r passed to ArriveRecord for
// generation gen, while the ring holds it.
func (g *SyncGroup) RecordAt(r int, gen uint64) [nicemu.RecordSize]byte {
	return g.nic.BarrierRecord(g.id, r, gen)
}

// PayloadAt returns the payload member r passed for generation gen
// while its slot holds it (the last two of its arrivals with a
// payload), else nil.
func (g *SyncGroup) PayloadAt(r int, gen uint64) []byte {
	if g.port != nil {
		return g.port.Payload(r, gen)
	}
	return g.nic.BarrierPayload(g.id, r, gen)
}

// RingDepth is how many generations of keys and records the ring keeps.
func (g *SyncGroup) RingDepth() int { return nicemu.RecordRingDepth }

// Datum points at the datum member r passed to the last barrier, which
// stays the same until this process arrives at the next.
func (g *SyncGroup) Datum(r int) *[nicemu.DatumSize]byte {
	if g.port != nil {
		return g.port.DatumRef(r, g.gen)
	}
	return g.nic.BarrierDatumRef(g.id, r, g.gen)
}

// InlineRanks is how many members' data words travel with the barrier:
// every member's.
func (g *SyncGroup) InlineRanks() int { return len(g.procs) }

// KeyBits is the width of the keys and of their sum.
func (g *SyncGroup) KeyBits() int { return nicemu.KeyBits }

// KeySum returns the sum of the members' keys at the last barrier, modulo
// 2^KeyBits.
func (g *SyncGroup) KeySum() uint64 {
	if g.port != nil {
		return g.port.Sum(g.gen)
	}
	return g.nic.BarrierSum(g.id, len(g.procs), g.gen)
}

// Payload returns what member r published at the last barrier, to a
// caller that reads no more than n bytes of it from offset off (n 0: all
// of it): through the port, their lines are fetched at once.
func (g *SyncGroup) Payload(r, off, n int) []byte {
	if g.port != nil {
		return g.port.PayloadPart(r, g.gen, off, n)
	}
	return g.nic.BarrierPayload(g.id, r, g.gen)
}

// PayloadSize is the most bytes a barrier carries from each member.
func (g *SyncGroup) PayloadSize() int {
	if g.nic.Profile() != nil {
		return ModelPayloadSize
	}
	return nicemu.BarrierPayloadSize
}

// ModelPayloadSize is the payload PayloadSize offers under a timing
// profile. The synchronisation network is no part of the thesis's Martini
// and its payloads move outside the model, so under the model they carry
// records of arguments and a few words of data, as the thesis's runs were
// calibrated with; the messages of the model carry the rest.
const ModelPayloadSize = 120

// MulticastSize is the most bytes one multicast carries.
func (g *SyncGroup) MulticastSize() int { return nicemu.MulticastSize }

// Multicast sends data to every other member; it waits only for a free
// multicast buffer.
func (g *SyncGroup) Multicast(data []byte) error {
	g.mcTag, g.mcData = g.tag|g.seq&0xffffffff, data
	g.seq++
	err := g.wait(multicastPosted)
	g.mcData = nil
	if err != nil {
		return err
	}
	if g.mcErr != nil {
		return fmt.Errorf("multicast: %w", g.mcErr)
	}
	return nil
}

// Deliver receives the next multicast of member root into buf and returns
// its length.
func (g *SyncGroup) Deliver(root int, buf []byte) (int, error) {
	g.mcTag, g.mcData, g.mcRoot = g.tag|g.seq&0xffffffff, buf, root
	g.seq++
	err := g.wait(multicastDelivered)
	g.mcData = nil
	if err != nil {
		return 0, err
	}
	if g.mcErr != nil {
		return 0, fmt.Errorf("multicast from member %d: %w", root, g.mcErr)
	}
	return g.mcLen, nil
}

// Free releases the barrier controller; one member calls it once no
// member uses the group any more.
func (g *SyncGroup) Free() error { return g.nic.FreeBarrier(g.id) }
