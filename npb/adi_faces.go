package npb

// The exchange of the cells' faces (NPB3.4-MPI BT/copy_faces.f90, the same
// in SP): before the right-hand side is computed, the two outermost planes
// of u of every cell go to the ghost layers of its neighbours. A process
// sends all its cells' faces of one direction in one message to the one
// process that holds all their neighbours in that direction.

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// adiFaces are the buffers of the face exchange: [axis][0] travels towards
// the predecessor on the axis, [axis][1] towards the successor.
//
// The sends of an exchange complete at the next one, before its faces are
// packed into their buffers (or at drain): a process goes on to compute
// as soon as its neighbours' faces have come, without waiting for its
// neighbours to take its own.
type adiFaces struct {
	send, recv [3][2][]float64
	recvs      []*mpi.Request
	sends      []*mpi.Request
}

// adiNewFaces allocates the buffers of grid g's face exchange.
func adiNewFaces(g *adiGrid) *adiFaces {
	f := &adiFaces{recvs: make([]*mpi.Request, 0, 6), sends: make([]*mpi.Request, 0, 6)}
	for d := range 3 {
		a, b := adiOther(d)
		for side := range 2 {
			var ns, nr int
			for _, c := range g.cells {
				face := 2 * 5 * c.size[a] * c.size[b]
				// A cell sends towards the predecessor unless it is first
				// on the axis, towards the successor unless it is last;
				// what travels towards the successor fills the ghosts of
				// the cells that are not first, and the reverse. The
				// cells of a process differ in size when the grid does
				// not divide evenly (class A on 9 processes): a
				// neighbour's face has the size of the receiving cell's.
				if (side == 0 && c.start[d] == 0) || (side == 1 && c.end[d] == 0) {
					ns += face
				}
				if (side == 1 && c.start[d] == 0) || (side == 0 && c.end[d] == 0) {
					nr += face
				}
			}
			f.send[d][side] = make([]float64, ns)
			f.recv[d][side] = make([]float64, nr)
		}
	}
	return f
}

// drain completes the sends of the last exchange.
func (f *adiFaces) drain() error {
	for _, r := range f.sends {
		if _, err := r.Wait(); err != nil {
			return fmt.Errorf("copy_faces: %w", err)
		}
	}
	f.sends = f.sends[:0]
	return nil
}

// adiFaceTag is the tag of the face messages travelling along axis d
// towards side (0: the predecessor, 1: the successor).
func adiFaceTag(d, side int) int { return 100 + 2*d + side }

// exchange copies the faces of every cell of g into its neighbours' ghost
// layers.
func (f *adiFaces) exchange(comm *mpi.Comm, g *adiGrid) error {
	if g.ncells == 1 {
		return nil
	}
	if err := f.drain(); err != nil {
		return err
	}
	for d := range 3 {
		for side := range 2 {
			f.pack(g, d, side)
		}
	}
	f.recvs = f.recvs[:0]
	for d := range 3 {
		// What travels towards the successor comes from the predecessor.
		peers := [2]int{g.pred[d], g.succ[d]}
		for side := range 2 {
			r, err := mpi.Irecv(comm, f.recv[d][side], peers[1-side], adiFaceTag(d, side))
			if err != nil {
				return fmt.Errorf("copy_faces: %w", err)
			}
			f.recvs = append(f.recvs, r)
		}
		for side := range 2 {
			r, err := mpi.Isend(comm, f.send[d][side], peers[side], adiFaceTag(d, side))
			if err != nil {
				return fmt.Errorf("copy_faces: %w", err)
			}
			f.sends = append(f.sends, r)
		}
	}
	for _, r := range f.recvs {
		if _, err := r.Wait(); err != nil {
			return fmt.Errorf("copy_faces: %w", err)
		}
	}
	for d := range 3 {
		for side := range 2 {
			f.unpack(g, d, side)
		}
	}
	return nil
}

// adiPlanes returns the ranges [lo, hi) on each axis of the two planes
// next to face side of a cell on axis d: inside the cell when inner, in
// its ghost layers otherwise.
func adiPlanes(c *adiCell, d, side int, inner bool) (lo, hi [3]int) {
	hi = c.size
	switch {
	case side == 0 && inner:
		lo[d], hi[d] = 0, 2
	case side == 0:
		lo[d], hi[d] = -2, 0
	case inner:
		lo[d], hi[d] = c.size[d]-2, c.size[d]
	default:
		lo[d], hi[d] = c.size[d], c.size[d]+2
	}
	return lo, hi
}

// pack copies the planes that travel along axis d towards side into the
// send buffer, cell by cell.
func (f *adiFaces) pack(g *adiGrid, d, side int) {
	buf := f.send[d][side]
	p := 0
	for ci := range g.cells {
		c := &g.cells[ci]
		if (side == 0 && c.start[d] == 1) || (side == 1 && c.end[d] == 1) {
			continue
		}
		lo, hi := adiPlanes(c, d, side, true)
		p += adiCopyBox(c, lo, hi, buf[p:], true)
	}
}

// unpack copies the planes that travelled along axis d towards side into
// the ghost layers on the other side of the receiving cells.
func (f *adiFaces) unpack(g *adiGrid, d, side int) {
	buf := f.recv[d][side]
	p := 0
	for ci := range g.cells {
		c := &g.cells[ci]
		// Planes travelling towards the successor fill the ghosts before
		// the first plane, and the reverse.
		if (side == 1 && c.start[d] == 1) || (side == 0 && c.end[d] == 1) {
			continue
		}
		lo, hi := adiPlanes(c, d, 1-side, false)
		p += adiCopyBox(c, lo, hi, buf[p:], false)
	}
}

// adiCopyBox copies the points of u in the box [lo, hi) to buf (out) or
// from it and returns the number of values copied.
func adiCopyBox(c *adiCell, lo, hi [3]int, buf []float64, out bool) int {
	row := 5 * (hi[0] - lo[0])
	p := 0
	for k := lo[2]; k < hi[2]; k++ {
		for j := lo[1]; j < hi[1]; j++ {
			u := c.u[c.uAt(lo[0], j, k):][:row]
			if out {
				copy(buf[p:p+row], u)
			} else {
				copy(u, buf[p:p+row])
			}
			p += row
		}
	}
	return p
}
