package nicemu

import "sync/atomic"

// BarrierPort is one member's port to a barrier controller for one group:
// what every request of that member needs, found once, as a NIC keeps a
// connection's state instead of translating each request anew: the
// controller's claim, every member's arrival area, the member's payload
// slots. Its requests are the NIC's methods of the same names for the
// group and member it was opened with, with the same effects and the same
// refusals; the group and the member were checked when it was opened, and
// the claim is checked again at each arrival. The reads are safe for
// concurrent use; the arrivals, like the member's, are one at a time.
type BarrierPort struct {
	n      *NIC
	id     int
	member int
	procs  []int
	ctl    *barrierCtl
	lines  []*barrierArrival // every member's arrival area, by member
	slots  [][2][]byte       // every member's payload slots, by member and parity
	last   *uint64           // the member's last generation
}

// OpenBarrierPort returns member's port to controller id for the group
// procs, or false, counting nothing, where BarrierArrive would refuse that
// member and group now (a controller not claimed by the caller's job, a
// bad id or member).
func (n *NIC) OpenBarrierPort(id, member int, procs []int) (*BarrierPort, bool) {
	if uint(id) >= NumBarriers || len(procs) > len(n.procs) || uint(member) >= uint(len(procs)) ||
		procs[member] != n.pid {
		return nil, false
	}
	s := n.seg
	ctl := s.barrierCtl(id)
	if !n.ownsCtl(atomic.LoadUint64(&ctl.owner)) {
		return nil, false
	}
	p := &BarrierPort{n: n, id: id, member: member, procs: procs, ctl: ctl, last: s.last(id, member),
		lines: make([]*barrierArrival, len(procs)), slots: make([][2][]byte, len(procs))}
	for m := range p.lines {
		p.lines[m] = s.arrival(id, m)
		for parity := range p.slots[m] {
			p.slots[m][parity] = s.barrierSlot(id, m, uint64(parity))
		}
	}
	return p, true
}

// claimed checks an arrival of length bytes as BarrierArriveData does:
// the group and the member were checked when the port was opened, the
// claim is the controller's owner word, read each time. What fails goes
// through the NIC's check, which refuses it.
func (p *BarrierPort) claimed(length int) error {
	if length <= BarrierPayloadSize && p.n.ownsCtl(atomic.LoadUint64(&p.ctl.owner)) {
		return nil
	}
	return p.n.checkArrival(p.id, p.member, p.procs, length)
}

// ArriveData is NIC.BarrierArriveData through the port.
func (p *BarrierPort) ArriveData(key uint64, datum *[DatumSize]byte, payload []byte) (gen uint64, err error) {
	return p.ArriveParts(key, datum, payload, nil)
}

// ArriveParts is NIC.BarrierArriveParts through the port.
func (p *BarrierPort) ArriveParts(key uint64, datum *[DatumSize]byte, head, tail []byte) (gen uint64, err error) {
	gen, _, err = p.Enter(key, datum, head, tail)
	return gen, err
}

// Enter is ArriveParts reporting also whether the arrival found every
// member arrived (the generation released): a caller that arrived last
// need not look again before it goes on.
func (p *BarrierPort) Enter(key uint64, datum *[DatumSize]byte, head, tail []byte) (gen uint64, released bool, err error) {
	if err := p.claimed(len(head) + len(tail)); err != nil {
		return 0, false, err
	}
	gen = atomic.LoadUint64(p.last) + 1
	writeArrival(p.lines[p.member], p.slots[p.member][gen&1], gen, key, datum, head, tail)
	publishGen(p.last, gen) // then the looks of publishArrival
	released = p.Released(gen)
	p.n.countArrival()
	if !released {
		released = p.Released(gen)
	}
	p.n.afterArrival(p.member, p.procs, released)
	return gen, released, nil
}

// Released is NIC.BarrierReleased through the port.
func (p *BarrierPort) Released(gen uint64) bool {
	for _, a := range p.lines {
		if !arrivedAt(a, gen) {
			return false
		}
	}
	return true
}

// Sum is NIC.BarrierSum through the port.
func (p *BarrierPort) Sum(gen uint64) uint64 {
	var sum uint64
	for _, a := range p.lines {
		sum += atomic.LoadUint64(&a.ring[gen%RecordRingDepth].key)
	}
	return sum & (1<<KeyBits - 1)
}

// Datum is NIC.BarrierDatum through the port (zeros for a member outside
// the group).
func (p *BarrierPort) Datum(member int, gen uint64) [DatumSize]byte {
	return *p.DatumRef(member, gen)
}

// DatumRef is NIC.BarrierDatumRef through the port.
func (p *BarrierPort) DatumRef(member int, gen uint64) *[DatumSize]byte {
	if uint(member) >= uint(len(p.lines)) {
		return &noDatum
	}
	return &p.lines[member].ring[gen%RecordRingDepth].datum
}

// Payload is NIC.BarrierPayload through the port (nil for a member
// outside the group).
func (p *BarrierPort) Payload(member int, gen uint64) []byte {
	return p.PayloadPart(member, gen, 0, 0)
}

// PayloadPart is Payload for a caller about to read want bytes of the
// payload from offset from (or fewer, if it is shorter): their cache lines
// are fetched together with the one that says whether the slot holds
// generation gen, not after it. It returns the whole payload all the same.
func (p *BarrierPort) PayloadPart(member int, gen uint64, from, want int) []byte {
	if uint(member) >= uint(len(p.slots)) || !p.n.ownsCtl(atomic.LoadUint64(&p.ctl.owner)) {
		return nil
	}
	return slotPayload(p.slots[member][gen&1], gen, from, want)
}
