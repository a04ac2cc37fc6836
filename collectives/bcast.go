package collectives

import "fmt"

// The broadcast algorithms besides AlgBinomial and AlgNIC (multicast).
const (
	// AlgScatterAllgather scatters the message in n pieces along a
	// binomial tree and gathers them everywhere around a ring (van de
	// Geijn): every process sends about twice the message instead of
	// log2 n times.
	AlgScatterAllgather = "scatter-allgather"
)

var bcastAlgorithms = []string{AlgBinomial, AlgScatterAllgather, AlgNIC}

// errNoHardware is the error of a NIC algorithm on a communicator that has
// no offload (one process, -no-offload, or no free barrier controller).
var errNoHardware = fmt.Errorf("no collective offload on this communicator: %w", ErrAlgorithm)

// bcastBinomial broadcasts buf from root along a binomial tree.
func bcastBinomial(c *call, buf []byte, root int) error {
	n := c.Size()
	rel := (c.Rank() - root + n) % n
	mask := 1
	for ; mask < n; mask *= 2 {
		if rel&mask != 0 {
			if err := c.recv((rel-mask+root)%n, buf); err != nil {
				return err
			}
			break
		}
	}
	for mask /= 2; mask > 0; mask /= 2 {
		if rel+mask < n {
			if err := c.sendAhead((rel+mask+root)%n, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// pieces splits length bytes into n pieces of whole units, as equal as
// possible; piece i is [off(i), off(i+1)).
type pieces struct{ length, n, unit int }

func (p pieces) off(i int) int {
	if i >= p.n {
		return p.length // with the remainder of a length that is not whole units
	}
	units := p.length / p.unit
	per, extra := units/p.n, units%p.n
	return (i*per + min(i, extra)) * p.unit
}

func (p pieces) piece(buf []byte, i int) []byte { return buf[p.off(i):p.off(i+1)] }

// bcastScatterAllgather broadcasts buf from root by a binomial scatter of
// n pieces followed by a ring allgather of the pieces.
func bcastScatterAllgather(c *call, buf []byte, root int) error {
	n := c.Size()
	rel := (c.Rank() - root + n) % n
	p := pieces{length: len(buf), n: n, unit: 1}
	// span returns the bytes of the pieces of relative ranks [lo, hi).
	span := func(lo, hi int) []byte { return buf[p.off(min(lo, n)):p.off(min(hi, n))] }
	mask := 1
	for ; mask < n; mask *= 2 {
		if rel&mask != 0 {
			if err := c.recv((rel-mask+root)%n, span(rel, rel+mask)); err != nil {
				return err
			}
			break
		}
	}
	for mask /= 2; mask > 0; mask /= 2 {
		if rel+mask < n {
			if err := c.Send((rel+mask+root)%n, span(rel+mask, rel+2*mask)); err != nil {
				return err
			}
		}
	}
	right, left := (c.Rank()+1)%n, (c.Rank()-1+n)%n
	for s := 0; s < n-1; s++ {
		out, in := (rel-s+n)%n, (rel-s-1+n)%n
		if err := c.sendrecv(right, p.piece(buf, out), left, p.piece(buf, in)); err != nil {
			return err
		}
	}
	return nil
}

// bcastMulticast broadcasts buf from root by the network's multicast, in
// pieces of at most the multicast size.
func bcastMulticast(c *call, hw Hardware, buf []byte, root int) error {
	if hw == nil {
		return errNoHardware
	}
	m := hw.MulticastSize()
	for off := 0; off == 0 || off < len(buf); off += m {
		piece := buf[off:min(off+m, len(buf))]
		if c.Rank() == root {
			if err := hw.Multicast(piece); err != nil {
				return err
			}
			continue
		}
		got, err := hw.Deliver(root, piece)
		if err != nil {
			return err
		}
		c.checkLen(root, got, len(piece))
	}
	return nil
}
