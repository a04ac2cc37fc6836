package npb

import (
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// The halo exchanges of LU (NPB3.4-MPI LU/exchange_1.f90, exchange_3.f90,
// exchange_4.f90, exchange_5.f90, exchange_6.f90), with NPB's tags: a
// message travelling south carries luFromN, and so on.
const (
	luFromS = 1
	luFromN = 2
	luFromE = 3
	luFromW = 4
)

// luCommBufs are the exchanges' send and receive buffers.
type luCommBufs struct {
	send, recv []float64 // two ghost planes (exchange_3)
	line       []float64 // one line of a k-plane (exchange_1)
	dum        []float64 // exchange_4, 5, 6
}

func newLUCommBufs(g *luGrid) luCommBufs {
	n := 10 * max(g.nx, g.ny) * g.nz
	return luCommBufs{
		send: make([]float64, n),
		recv: make([]float64, n),
		line: make([]float64, 5*(max(g.nx, g.ny)+2)),
		dum:  make([]float64, 2*(max(g.nx, g.ny, g.nz)+2)),
	}
}

// luPeer maps NPB's −1 (no neighbour) to ProcNull.
func luPeer(r int) int {
	if r < 0 {
		return mpi.ProcNull
	}
	return r
}

// exchange3 fills the two ghost layers of field w on each side with the
// neighbours' border layers: in i (north and south) for every j and k,
// then in j (west and east) for i in 1..nx (exchange_3 with iex 0 and 1).
func (s *luSolver) exchange3(w []float64) error {
	g := &s.g
	// In i the last two planes travel south into the north ghosts of the
	// next process, the first two north; then the same in j.
	if err := s.swapPlanes(w, true, g.south, g.nx-1, g.north, -1, luFromN); err != nil {
		return err
	}
	if err := s.swapPlanes(w, true, g.north, 1, g.south, g.nx+1, luFromS); err != nil {
		return err
	}
	if err := s.swapPlanes(w, false, g.east, g.ny-1, g.west, -1, luFromW); err != nil {
		return err
	}
	return s.swapPlanes(w, false, g.west, 1, g.east, g.ny+1, luFromE)
}

// swapPlanes sends planes from and from+1 of w (planes of i when inI, of
// j otherwise) to rank to and receives planes into and into+1 from rank
// src: one step of exchange_3.
func (s *luSolver) swapPlanes(w []float64, inI bool, to, from, src, into, tag int) error {
	g := &s.g
	n := g.ny * g.nz
	if !inI {
		n = g.nx * g.nz
	}
	sb, rb := s.comm.send[:10*n], s.comm.recv[:10*n]
	if to >= 0 {
		s.packPlanes(w, inI, from, sb, true)
	}
	if _, err := mpi.Sendrecv(s.c, sb, luPeer(to), tag, rb, luPeer(src), tag); err != nil {
		return fmt.Errorf("exchange_3: %w", err)
	}
	if src >= 0 {
		s.packPlanes(w, inI, into, rb, false)
	}
	return nil
}

// packPlanes copies the planes p and p+1 (of i when inI, of j otherwise;
// for every k and every point of the other axis) into buf, or out of it
// when pack is false.
func (s *luSolver) packPlanes(w []float64, inI bool, p int, buf []float64, pack bool) {
	g := &s.g
	n := 0
	for k := 1; k <= g.nz; k++ {
		if inI {
			for j := 1; j <= g.ny; j++ {
				o := s.at(p, j, k)
				n += luMove(w[o:o+10], buf[n:n+10], pack)
			}
			continue
		}
		for q := p; q <= p+1; q++ {
			o := s.at(1, q, k)
			m := 5 * g.nx
			n += luMove(w[o:o+m], buf[n:n+m], pack)
		}
	}
}

// luMove copies b into a, or a into b when toB, and returns the length.
func luMove(a, b []float64, toB bool) int {
	if toB {
		return copy(b, a)
	}
	return copy(a, b)
}

// recvLines receives plane k's border lines of the residual from the
// neighbours that precede this process in a sweep (north and west for the
// lower sweep, south and east for the upper) into its ghost lines
// (exchange_1 with iex 0 and 1).
func (s *luSolver) recvLines(k int, upper bool) error {
	g := &s.g
	fromI, gi, tagI := g.north, 0, luFromN
	fromJ, gj, tagJ := g.west, 0, luFromW
	if upper {
		fromI, gi, tagI = g.south, g.nx+1, luFromS
		fromJ, gj, tagJ = g.east, g.ny+1, luFromE
	}
	if fromI >= 0 {
		buf := s.comm.line[:5*(g.jend-g.jst+1)]
		if _, err := mpi.Recv(s.c, buf, fromI, tagI); err != nil {
			return fmt.Errorf("exchange_1: %w", err)
		}
		for j := g.jst; j <= g.jend; j++ {
			o := s.at(gi, j, k)
			copy(s.rsd[o:o+5], buf[5*(j-g.jst):])
		}
	}
	if fromJ >= 0 {
		buf := s.comm.line[:5*(g.iend-g.ist+1)]
		if _, err := mpi.Recv(s.c, buf, fromJ, tagJ); err != nil {
			return fmt.Errorf("exchange_1: %w", err)
		}
		o := s.at(g.ist, gj, k)
		copy(s.rsd[o:o+len(buf)], buf)
	}
	return nil
}

// sendLines sends plane k's border lines of the residual to the
// neighbours that follow this process in a sweep (exchange_1 with iex 2
// and 3).
func (s *luSolver) sendLines(k int, upper bool) error {
	g := &s.g
	toI, bi, tagI := g.south, g.nx, luFromN
	toJ, bj, tagJ := g.east, g.ny, luFromW
	if upper {
		toI, bi, tagI = g.north, 1, luFromS
		toJ, bj, tagJ = g.west, 1, luFromE
	}
	if toI >= 0 {
		buf := s.comm.line[:5*(g.jend-g.jst+1)]
		for j := g.jst; j <= g.jend; j++ {
			o := s.at(bi, j, k)
			copy(buf[5*(j-g.jst):], s.rsd[o:o+5])
		}
		if err := mpi.Send(s.c, buf, toI, tagI); err != nil {
			return fmt.Errorf("exchange_1: %w", err)
		}
	}
	if toJ >= 0 {
		o := s.at(g.ist, bj, k)
		buf := s.rsd[o : o+5*(g.iend-g.ist+1)]
		if err := mpi.Send(s.c, buf, toJ, tagJ); err != nil {
			return fmt.Errorf("exchange_1: %w", err)
		}
	}
	return nil
}

// exchange4 completes the two k-planes of pintgr's first integral: row
// ny+1 from the east neighbour, then column nx+1 (rows 0..ny+1) from the
// south one (exchange_4). The phi arrays are indexed i + ld·j.
func (s *luSolver) exchange4(phi1, phi2 []float64, ld, ibeg, ifin1, jbeg, jfin1 int) error {
	g := &s.g
	dum := s.comm.dum
	if jfin1 == g.ny {
		d := dum[:2*g.nx]
		if _, err := mpi.Recv(s.c, d, g.east, luFromE); err != nil {
			return fmt.Errorf("exchange_4: %w", err)
		}
		for i := 1; i <= g.nx; i++ {
			phi1[i+ld*(g.ny+1)] = d[i-1]
			phi2[i+ld*(g.ny+1)] = d[i-1+g.nx]
		}
	}
	if jbeg == 1 {
		d := dum[:2*g.nx]
		for i := 1; i <= g.nx; i++ {
			d[i-1] = phi1[i+ld]
			d[i-1+g.nx] = phi2[i+ld]
		}
		if err := mpi.Send(s.c, d, g.west, luFromE); err != nil {
			return fmt.Errorf("exchange_4: %w", err)
		}
	}
	ny2 := g.ny + 2
	if ifin1 == g.nx {
		d := dum[:2*ny2]
		if _, err := mpi.Recv(s.c, d, g.south, luFromS); err != nil {
			return fmt.Errorf("exchange_4: %w", err)
		}
		for j := 0; j <= g.ny+1; j++ {
			phi1[g.nx+1+ld*j] = d[j]
			phi2[g.nx+1+ld*j] = d[j+ny2]
		}
	}
	if ibeg == 1 {
		d := dum[:2*ny2]
		for j := 0; j <= g.ny+1; j++ {
			d[j] = phi1[1+ld*j]
			d[j+ny2] = phi2[1+ld*j]
		}
		if err := mpi.Send(s.c, d, g.north, luFromS); err != nil {
			return fmt.Errorf("exchange_4: %w", err)
		}
	}
	return nil
}

// exchangeEdge completes one k-column set of pintgr's second or third
// integral: phi(last+1, k) for k in 1..nz from the next process (south
// for the second, exchange_5; east for the third, exchange_6), and
// phi(1, k) to the previous one.
func (s *luSolver) exchangeEdge(phi []float64, ld int, alongI bool, beg, fin1 int) error {
	g := &s.g
	last, next, prev, tag, name := g.nx, g.south, g.north, luFromS, "exchange_5"
	if !alongI {
		last, next, prev, tag, name = g.ny, g.east, g.west, luFromE, "exchange_6"
	}
	d := s.comm.dum[:g.nz]
	if fin1 == last {
		if _, err := mpi.Recv(s.c, d, next, tag); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for k := 1; k <= g.nz; k++ {
			phi[last+1+ld*k] = d[k-1]
		}
	}
	if beg == 1 {
		for k := 1; k <= g.nz; k++ {
			d[k-1] = phi[1+ld*k]
		}
		if err := mpi.Send(s.c, d, prev, tag); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
