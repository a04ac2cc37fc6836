package npb

import (
	"fmt"
	"math/bits"

	"github.com/rhinet-go/martini/mpi"
)

// The process grid, the grid hierarchy and the halo exchange of MG
// (mg.f90's setup, comm3, comm3_ex, give3/take3 and give3_ex/take3_ex).
//
// Arrays are flat []float64 in Fortran order: a level of local extents
// n1×n2×n3 (interior points plus one ghost layer on each side) holds point
// (i1, i2, i3), 0-based, at i1 + n1·(i2 + n2·i3). Ghost layers are index 0
// and n−1 on each axis; NPB's index i is i−1 here.

// mgLevel is one level of the grid hierarchy as seen by one process.
type mgLevel struct {
	n  [3]int // local extents with ghosts (NPB's m1, m2, m3)
	ng [3]int // global extents (NPB's nx, ny, nz of the level)
	// nbr are the neighbour ranks on each axis, [ax][0] in direction −1
	// and [ax][1] in direction +1 (NPB's nbr(ax, dir, k)).
	nbr [3][2]int
	// dead: the process holds no point of this level on some axis, so its
	// arrays there are zero and it takes no part in comm3.
	dead bool
	// giveEx, takeEx: after interp onto this level, comm3_ex sends the
	// process's border planes to (takes them from) the neighbours that
	// were dead on the coarser level.
	giveEx, takeEx [3]bool
}

// size returns the number of points of the level's local array.
func (l *mgLevel) size() int { return l.n[0] * l.n[1] * l.n[2] }

// mgGrid is the decomposition of the problem over the processes.
type mgGrid struct {
	np, me int
	lt     int    // the finest level; levels are 1..lt
	pi     [3]int // processes on each axis
	idi    [3]int // this process's coordinates in the process grid
	lev    []mgLevel
	// is, ie are the global indices of the first and last interior
	// points of the finest level held here (NPB's is1..ie3), in the
	// indexing of a single process's array: the grid's points are
	// 2..nx+1, 1 and nx+2 being the ghosts.
	is, ie [3]int
}

// mgSetup decomposes a grid of nx^3 points (nx = 2^lt) over np processes
// (a power of two) as mg.f90's setup: the process grid is pi1×pi2×pi3
// with pi1 = 2^(log2(np)/3), pi2 = 2^((log2(np)−log2(pi1))/2), rank
// me = idi1 + pi1·(idi2 + pi2·idi3); each level halves the global extents.
// On coarse levels with fewer points than processes on an axis, some
// processes hold no point (dead), neighbours are found further away
// (next), and the expansion flags say who must send the interpolated
// borders to them.
func mgSetup(np, me, lt int) (mgGrid, error) {
	g := mgGrid{np: np, me: me, lt: lt, lev: make([]mgLevel, lt+1)}
	logp := bits.TrailingZeros(uint(np))
	dx := logp / 3
	dy := (logp - dx) / 2
	g.pi = [3]int{1 << dx, 1 << dy, np >> (dx + dy)}
	g.idi = [3]int{me % g.pi[0], (me / g.pi[0]) % g.pi[1], me / (g.pi[0] * g.pi[1])}
	nx := 1 << lt
	for ax := range 3 {
		if g.pi[ax] > nx {
			return g, fmt.Errorf("npb: mg: %d processes for a %d^3 grid: %w", np, nx, ErrUnsupported)
		}
	}

	for k := lt; k >= 1; k-- {
		g.lev[k].ng = [3]int{nx >> (lt - k), nx >> (lt - k), nx >> (lt - k)}
	}
	next := [3]int{1, 1, 1}
	for k := lt; k >= 1; k-- {
		l := &g.lev[k]
		for ax := range 3 {
			p, id, ng := g.pi[ax], g.idi[ax], l.ng[ax]
			mi := 2 + ((id+1)*ng)/p - (id*ng)/p
			mip := 2 + ((next[ax]+id+1)*ng)/p - ((next[ax]+id)*ng)/p
			if mip == 2 || mi == 2 {
				next[ax] *= 2
			}
			if k+1 <= lt {
				if mip == 2 && mi == 3 {
					g.lev[k+1].giveEx[ax] = true
				}
				if mip == 3 && mi == 2 {
					g.lev[k+1].takeEx[ax] = true
				}
			}
			l.n[ax] = mi
			if mi == 2 {
				l.dead = true
			}
		}
		var idin [3][2]int
		for ax := range 3 {
			p := g.pi[ax]
			idin[ax][0] = (g.idi[ax] - next[ax] + p) % p
			idin[ax][1] = (g.idi[ax] + next[ax] + p) % p
		}
		for d := range 2 {
			l.nbr[0][d] = idin[0][d] + g.pi[0]*(g.idi[1]+g.pi[1]*g.idi[2])
			l.nbr[1][d] = g.idi[0] + g.pi[0]*(idin[1][d]+g.pi[1]*g.idi[2])
			l.nbr[2][d] = g.idi[0] + g.pi[0]*(g.idi[1]+g.pi[1]*idin[2][d])
		}
	}
	for ax := range 3 {
		p, id := g.pi[ax], g.idi[ax]
		g.is[ax] = 2 + nx - ((p-id)*nx)/p
		g.ie[ax] = 1 + nx - ((p-1-id)*nx)/p
	}
	return g, nil
}

// mgBox is a box of points [lo, hi) of a level's local array.
type mgBox struct{ lo, hi [3]int }

func (b mgBox) len() int {
	return (b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2])
}

// mgFace returns the slab of planes [p0, p1) of axis ax of level l, as
// give3 and take3 send and fill them: the axes before ax span their full
// extent (their ghosts are already exchanged, so edges and corners
// propagate), the axes after ax their interior only. With full set,
// every other axis spans its full extent (give3_ex, take3_ex).
func mgFace(l *mgLevel, ax, p0, p1 int, full bool) mgBox {
	var b mgBox
	for d := range 3 {
		switch {
		case d == ax:
			b.lo[d], b.hi[d] = p0, p1
		case full || d < ax:
			b.lo[d], b.hi[d] = 0, l.n[d]
		default:
			b.lo[d], b.hi[d] = 1, l.n[d]-1
		}
	}
	return b
}

// mgSlab returns the part of u that box b occupies when that part is
// contiguous (b spans the full extents of the axes below its outermost
// one), or nil.
func mgSlab(u []float64, n *[3]int, b mgBox) []float64 {
	contiguous := false
	switch {
	case b.lo[0] == 0 && b.hi[0] == n[0] && b.lo[1] == 0 && b.hi[1] == n[1]:
		contiguous = true
	case b.lo[0] == 0 && b.hi[0] == n[0] && b.hi[2]-b.lo[2] == 1:
		contiguous = true
	}
	if !contiguous {
		return nil
	}
	from := b.lo[0] + n[0]*(b.lo[1]+n[1]*b.lo[2])
	return u[from : from+b.len()]
}

// mgPack copies box b of u into buf in i1-fastest order and returns the
// filled part of buf.
func mgPack(buf, u []float64, n *[3]int, b mgBox) []float64 {
	return buf[:mgTransferBox(u, buf, n, b, true)]
}

// mgUnpack copies buf into box b of u, in mgPack's order.
func mgUnpack(u, buf []float64, n *[3]int, b mgBox) { mgTransferBox(u, buf, n, b, false) }

// mgTransferBox copies between box b of u and buf, whose elements are in
// i1-fastest order: into buf when pack is set, out of it otherwise. It
// returns the number of elements copied.
func mgTransferBox(u, buf []float64, n *[3]int, b mgBox, pack bool) int {
	k := 0
	w := b.hi[0] - b.lo[0]
	for i3 := b.lo[2]; i3 < b.hi[2]; i3++ {
		for i2 := b.lo[1]; i2 < b.hi[1]; i2++ {
			o := b.lo[0] + n[0]*(i2+n[1]*i3)
			switch {
			case w == 1 && pack: // a single element: no call to copy
				buf[k] = u[o]
			case w == 1:
				u[o] = buf[k]
			case pack:
				copy(buf[k:k+w], u[o:o+w])
			default:
				copy(u[o:o+w], buf[k:k+w])
			}
			k += w
		}
	}
	return k
}

// mgCopyBox copies box src of u onto box dst of u (same shape, disjoint):
// the exchange with oneself on an axis held by a single process (NPB's
// comm1p, or a message to oneself).
func mgCopyBox(u []float64, n *[3]int, src, dst mgBox) {
	w := src.hi[0] - src.lo[0]
	d2, d3 := dst.lo[1]-src.lo[1], dst.lo[2]-src.lo[2]
	shift := dst.lo[0] - src.lo[0] + n[0]*(d2+n[1]*d3)
	for i3 := src.lo[2]; i3 < src.hi[2]; i3++ {
		for i2 := src.lo[1]; i2 < src.hi[1]; i2++ {
			o := src.lo[0] + n[0]*(i2+n[1]*i3)
			if w == 1 {
				u[o+shift] = u[o]
			} else {
				copy(u[o+shift:o+shift+w], u[o:o+w])
			}
		}
	}
}

// mgTag is NPB's msg_type(axis, dir) for ax 0..2 and dir −1 or +1.
func mgTag(ax, dir int) int { return 100 * (dir + 2 + 10*(ax+1)) }

// mgComm holds the communicator and the preallocated message buffers of
// the halo exchange.
type mgComm struct {
	c    *mpi.Comm
	g    *mgGrid
	send [2][]float64
	recv [2][]float64
}

func newMGComm(c *mpi.Comm, g *mgGrid) *mgComm {
	n := g.lev[g.lt].n
	// The largest message: two planes of the largest face (give3_ex).
	m := 2 * max(n[0]*n[1], n[0]*n[2], n[1]*n[2])
	mc := &mgComm{c: c, g: g}
	for i := range 2 {
		mc.send[i] = make([]float64, m)
		mc.recv[i] = make([]float64, m)
	}
	return mc
}

// comm3 fills the ghost layers of u on level k from the neighbours
// (periodic boundaries), axis by axis as mg.f90's comm3: on each axis the
// last interior plane goes to the +1 neighbour's low ghost and the first
// interior plane to the −1 neighbour's high ghost. A dead process zeroes
// u instead.
func (mc *mgComm) comm3(u []float64, k int) error { return mc.comm3From(u, k, false) }

// wraps reports whether the operators on level k fill the ghosts of axes
// 0 and 1 themselves (mgWrapPlane): the level is live, has interior
// points on every axis, and the process is its own neighbour on both
// axes.
func (mc *mgComm) wraps(k int) bool {
	l := &mc.g.lev[k]
	if l.dead || l.n[0] < 3 || l.n[1] < 3 || l.n[2] < 3 {
		return false
	}
	me := mc.g.me
	return l.nbr[0] == [2]int{me, me} && l.nbr[1] == [2]int{me, me}
}

// comm3From is comm3, without axes 0 and 1 when wrapped is set (the
// operator has filled their ghosts, see wraps).
func (mc *mgComm) comm3From(u []float64, k int, wrapped bool) error {
	l := &mc.g.lev[k]
	if l.dead {
		clear(u[:l.size()])
		return nil
	}
	first := 0
	if wrapped {
		first = 2
	}
	for ax := first; ax < 3; ax++ {
		nn := l.n[ax]
		lo, hi := l.nbr[ax][0], l.nbr[ax][1]
		sendHi := mgFace(l, ax, nn-2, nn-1, false) // give3(+1)
		recvLo := mgFace(l, ax, 0, 1, false)       // take3(+1)
		sendLo := mgFace(l, ax, 1, 2, false)       // give3(−1)
		recvHi := mgFace(l, ax, nn-1, nn, false)   // take3(−1)
		if lo == mc.g.me && hi == mc.g.me {
			mgCopyBox(u, &l.n, sendHi, recvLo)
			mgCopyBox(u, &l.n, sendLo, recvHi)
			continue
		}
		if err := mc.exchange(u, l, ax, [2]mgBox{recvLo, recvHi}, [2]mgBox{sendHi, sendLo}); err != nil {
			return err
		}
	}
	return nil
}

// exchange fills the ghost boxes recv of u on axis ax from the
// neighbours and sends them the boxes send, as comm3 does on one axis
// (ready, give3, take3): recv[0], the low ghost, comes from the −1
// neighbour, which sends its send[0] (its last interior plane) to its +1
// neighbour; recv[1], the high ghost, from the +1 neighbour's send[1].
// Both receives are posted first, then both sends, then all four
// complete together, so that the two directions overlap. Contiguous boxes
// go straight from and into u.
func (mc *mgComm) exchange(u []float64, l *mgLevel, ax int, recv, send [2]mgBox) error {
	var reqs [4]*mpi.Request
	var rbufs [2][]float64
	from := [2]int{l.nbr[ax][0], l.nbr[ax][1]}
	to := [2]int{l.nbr[ax][1], l.nbr[ax][0]}
	tags := [2]int{mgTag(ax, +1), mgTag(ax, -1)}
	for d := range 2 {
		rbufs[d] = mgSlab(u, &l.n, recv[d])
		if rbufs[d] == nil {
			rbufs[d] = mc.recv[d][:recv[d].len()]
		}
		r, err := mpi.Irecv(mc.c, rbufs[d], from[d], tags[d])
		if err != nil {
			return fmt.Errorf("npb: mg: comm3: %w", err)
		}
		reqs[d] = r
	}
	for d := range 2 {
		sbuf := mgSlab(u, &l.n, send[d])
		if sbuf == nil {
			sbuf = mgPack(mc.send[d], u, &l.n, send[d])
		}
		r, err := mpi.Isend(mc.c, sbuf, to[d], tags[d])
		if err != nil {
			return fmt.Errorf("npb: mg: comm3: %w", err)
		}
		reqs[2+d] = r
	}
	st, err := mpi.Waitall(reqs[:])
	if err != nil {
		return fmt.Errorf("npb: mg: comm3: %w", err)
	}
	for d := range 2 {
		if got := mpi.GetCount[float64](st[d]); got != len(rbufs[d]) {
			return fmt.Errorf("npb: mg: comm3: %d values from rank %d, want %d", got, from[d], len(rbufs[d]))
		}
		if mgSlab(u, &l.n, recv[d]) == nil {
			mgUnpack(u, rbufs[d], &l.n, recv[d])
		}
	}
	return nil
}

// comm3ex completes u on level k after interp where processes were dead
// on level k−1 (mg.f90's comm3_ex): on each axis, a process that takes
// receives the +1 neighbour's first interior plane into its high ghost
// and the −1 neighbour's last two planes into its low ghost and first
// interior plane; a process that gives sends them. Every other axis spans
// its full extent.
func (mc *mgComm) comm3ex(u []float64, k int) error {
	l := &mc.g.lev[k]
	for ax := range 3 {
		nn := l.n[ax]
		lo, hi := l.nbr[ax][0], l.nbr[ax][1]
		if l.takeEx[ax] {
			rbHi := mgFace(l, ax, nn-1, nn, true) // take3_ex(−1)
			rbLo := mgFace(l, ax, 0, 2, true)     // take3_ex(+1)
			rHi, err := mpi.Irecv(mc.c, mc.recv[0][:rbHi.len()], hi, mgTag(ax, -1))
			if err != nil {
				return fmt.Errorf("npb: mg: comm3_ex: %w", err)
			}
			rLo, err := mpi.Irecv(mc.c, mc.recv[1][:rbLo.len()], lo, mgTag(ax, +1))
			if err != nil {
				return fmt.Errorf("npb: mg: comm3_ex: %w", err)
			}
			st, err := mpi.Waitall([]*mpi.Request{rHi, rLo})
			if err != nil {
				return fmt.Errorf("npb: mg: comm3_ex: %w", err)
			}
			for i, want := range []int{rbHi.len(), rbLo.len()} {
				if got := mpi.GetCount[float64](st[i]); got != want {
					return fmt.Errorf("npb: mg: comm3_ex: %d values, want %d", got, want)
				}
			}
			mgUnpack(u, mc.recv[0], &l.n, rbHi)
			mgUnpack(u, mc.recv[1], &l.n, rbLo)
		}
		if l.giveEx[ax] {
			sbHi := mgFace(l, ax, nn-2, nn, true) // give3_ex(+1)
			sbLo := mgFace(l, ax, 1, 2, true)     // give3_ex(−1)
			if err := mpi.Send(mc.c, mgPack(mc.send[0], u, &l.n, sbHi), hi, mgTag(ax, +1)); err != nil {
				return fmt.Errorf("npb: mg: comm3_ex: %w", err)
			}
			if err := mpi.Send(mc.c, mgPack(mc.send[1], u, &l.n, sbLo), lo, mgTag(ax, -1)); err != nil {
				return fmt.Errorf("npb: mg: comm3_ex: %w", err)
			}
		}
	}
	return nil
}
