package npb

// The pipeline of BT's and SP's line solves (x_solve, y_solve, z_solve
// of NPB3.4-MPI BT and SP): along an axis, each process solves its cells
// in turn, stage by stage, receiving the boundary values of the cell
// before from its predecessor and passing its own to its successor
// (forward elimination), and then the other way (back substitution).

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// adiPipe is the message side of the line solves: the buffers of the
// values passed along an axis and the sends in flight. Sends alternate
// between two buffers, so that a process waits for a send to complete
// only when it packs the send after next into its buffer, not before its
// next stage: a successor that has not yet taken the values (its
// process not running, when processes outnumber cores) holds up no
// computing.
type adiPipe struct {
	comm     *mpi.Comm
	recv     []float64
	sends    [2][]float64
	sendReqs [2]*mpi.Request
	next     int // the index in sends of the next send's buffer
}

// newBuffers allocates the pipe's buffers for messages of n values.
func (p *adiPipe) newBuffers(n int) {
	p.sends = [2][]float64{make([]float64, n), make([]float64, n)}
	p.recv = make([]float64, n)
}

// adiStages are one benchmark's solves of a cell along axis d: forward
// eliminates cell ci given the predecessor's values in (nil for the
// first cell) and sendForward passes its values on; backward substitutes
// given the successor's values and sendBackward passes its solution back.
// solveLast does both for the last cell on the axis, which has no
// successor: it may finish each line before starting the next, while
// the line's eliminated rows are still in cache.
type adiStages interface {
	forward(ci, d int, in []float64)
	sendForward(c *adiCell, ci, d int) error
	backward(ci, d int, in []float64)
	sendBackward(c *adiCell, d int) error
	solveLast(ci, d int, in []float64)
}

// adiMessages names a benchmark's pipeline messages: the benchmark, the
// base tags (plus the axis) and the values per line forward and back.
type adiMessages struct {
	name                string
	fwdTag, backTag     int
	fwdWords, backWords int
}

// run solves along axis d over all cells of g with s; after, if not nil,
// runs on each cell once its solution is complete.
func (p *adiPipe) run(g *adiGrid, s adiStages, m adiMessages, d int, after func(c *adiCell)) error {
	n := g.ncells
	for stage := range n {
		ci := g.slice[d][stage]
		c := &g.cells[ci]
		var in []float64
		if stage > 0 {
			var err error
			if in, err = p.receive(g.pred[d], m.fwdTag+d, adiLines(c, d)*m.fwdWords); err != nil {
				return fmt.Errorf("%s: solve along axis %d, forward: %w", m.name, d, err)
			}
		}
		if stage == n-1 {
			s.solveLast(ci, d, in)
			break
		}
		s.forward(ci, d, in)
		if err := s.sendForward(c, ci, d); err != nil {
			return fmt.Errorf("%s: solve along axis %d, forward: %w", m.name, d, err)
		}
	}
	for stage := n - 1; stage >= 0; stage-- {
		ci := g.slice[d][stage]
		c := &g.cells[ci]
		if stage < n-1 {
			in, err := p.receive(g.succ[d], m.backTag+d, adiLines(c, d)*m.backWords)
			if err != nil {
				return fmt.Errorf("%s: solve along axis %d, backward: %w", m.name, d, err)
			}
			s.backward(ci, d, in)
		}
		if stage > 0 {
			if err := s.sendBackward(c, d); err != nil {
				return fmt.Errorf("%s: solve along axis %d, backward: %w", m.name, d, err)
			}
		}
		if after != nil {
			after(c)
		}
	}
	return nil
}

// receive receives n values from peer into the receive buffer.
func (p *adiPipe) receive(peer, tag, n int) ([]float64, error) {
	buf := p.recv[:n]
	r, err := mpi.Irecv(p.comm, buf, peer, tag)
	if err != nil {
		return nil, err
	}
	if _, err := r.Wait(); err != nil {
		return nil, err
	}
	return buf, nil
}

// claim returns the buffer of the next send, once the send that last
// used it has completed.
func (p *adiPipe) claim() ([]float64, error) {
	buf := p.sends[p.next]
	r := p.sendReqs[p.next]
	if r == nil {
		return buf, nil
	}
	p.sendReqs[p.next] = nil
	_, err := r.Wait()
	return buf, err
}

// post starts sending the first n values of the claimed buffer to peer.
func (p *adiPipe) post(n, peer, tag int) error {
	r, err := mpi.Isend(p.comm, p.sends[p.next][:n], peer, tag)
	if err != nil {
		return err
	}
	p.sendReqs[p.next] = r
	p.next = 1 - p.next
	return nil
}

// drain completes the sends in flight.
func (p *adiPipe) drain() error {
	for i, r := range p.sendReqs {
		if r == nil {
			continue
		}
		p.sendReqs[i] = nil
		if _, err := r.Wait(); err != nil {
			return err
		}
	}
	return nil
}
