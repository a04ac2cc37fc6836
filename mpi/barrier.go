package mpi

import "github.com/rhinet-go/martini/llc"

// barrierTag is the tag of barrier messages in a communicator's collective
// context, which user point-to-point traffic cannot reach.
const barrierTag = 1

// Barrier blocks until every process of c has called it. It uses the
// dissemination algorithm: ceil(log2 n) rounds, in round k each process
// signals rank+2^k and waits for rank-2^k.
func (c *Comm) Barrier() error {
	if err := c.check("Barrier"); err != nil {
		return err
	}
	c.barrierMu.Lock() // one barrier of c at a time per process
	defer c.barrierMu.Unlock()
	ep := c.rt.ep
	var token [1]byte
	var rop llc.RecvOp
	var sop llc.SendOp
	for dist := 1; dist < c.size; dist *= 2 {
		to := (c.rank + dist) % c.size
		from := (c.rank - dist + c.size) % c.size
		rop = llc.RecvOp{Source: c.toWorld(from), Tag: barrierTag, Ctx: c.ctx + 1, Buf: token[:]}
		ep.Recv(&rop)
		sop = llc.SendOp{Peer: c.toWorld(to), Tag: barrierTag, Ctx: c.ctx + 1, Data: token[:]}
		if !ep.Send(&sop) {
			ep.Wait(&sop)
		}
		if err := sop.Err(); err != nil {
			// Do not wait for a token that the peers, which have not had
			// this one, may never send.
			if !ep.Cancel(&rop) {
				ep.Wait(&rop)
			}
			return wrap("Barrier", to, err)
		}
		ep.Wait(&rop)
		if err := rop.Err(); err != nil {
			return wrap("Barrier", from, err)
		}
	}
	return nil
}
