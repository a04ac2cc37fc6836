package collectives

import "fmt"

// alltoallAlgorithms are Alltoall's algorithms. Each is called with send
// and recv of exactly size blocks that do not overlap.
var alltoallAlgorithms = map[string]func(c *call, send, recv []byte) error{
	"pairwise": alltoallPairwise,
	"bruck":    alltoallBruck,
	"linear":   alltoallLinear,
}

// Alltoall sends block j of every rank i's send to rank j, where it lands
// as block i of recv. The block size is len(send)/size; recv must hold at
// least len(send) bytes (the rest is left alone). A nil send means in
// place: the blocks to send are taken from recv (a copy of it), and the
// block size is len(recv)/size.
//
// Algorithms: "pairwise" (size-1 exchanges, in step s with ranks rank+s
// and rank-s; any size) and "bruck" (ceil(log2(size)) exchanges of about
// half the data each, packed into one message: for small blocks) and
// "linear" (the pairwise schedule with up to exchangeWindow steps in
// flight at once, when the Net is an Exchanger: for large blocks).
func Alltoall(n Net, alg string, send, recv []byte) error {
	f, err := lookupAlgorithm("alltoall", alltoallAlgorithms, alg)
	if err != nil {
		return err
	}
	size, inPlace := n.Size(), send == nil
	if inPlace {
		if len(recv)%size != 0 {
			return fmt.Errorf("alltoall: in place, the receive buffer of %d bytes is no multiple of %d ranks: %w", len(recv), size, ErrBuffer)
		}
		send = recv
	}
	if len(send)%size != 0 {
		return fmt.Errorf("alltoall: the send buffer of %d bytes is no multiple of %d ranks: %w", len(send), size, ErrBuffer)
	}
	if len(recv) < len(send) {
		return fmt.Errorf("alltoall: the receive buffer holds %d bytes, the send buffer %d: %w", len(recv), len(send), ErrBuffer)
	}
	c := newCall(n)
	if inPlace {
		send = c.copyOf(recv)
	}
	return f(c, send, recv[:len(send)])
}

func alltoallPairwise(c *call, send, recv []byte) error {
	size, rank := c.Size(), c.Rank()
	blk := len(send) / size
	copy(recv[rank*blk:(rank+1)*blk], send[rank*blk:])
	for s := 1; s < size; s++ {
		to, from := (rank+s)%size, (rank-s+size)%size
		if err := c.passrecv(to, send[to*blk:(to+1)*blk], from, recv[from*blk:(from+1)*blk]); err != nil {
			return c.end(err)
		}
	}
	return c.end(nil)
}

func alltoallLinear(c *call, send, recv []byte) error {
	rank := c.Rank()
	blk := len(send) / c.Size()
	copy(recv[rank*blk:(rank+1)*blk], send[rank*blk:])
	block := func(b []byte) func(int) []byte {
		return func(i int) []byte { return b[i*blk : (i+1)*blk] }
	}
	return c.end(c.exchangeSteps(block(send), block(recv)))
}

// alltoallBruck: after a local rotation, tmp[j] is the block for rank+j.
// In the exchange of distance p, every block j with bit p set moves on
// to rank+p, keeping its index; at the end tmp[j] is the block from
// rank-j.
func alltoallBruck(c *call, send, recv []byte) error {
	size, rank := c.Size(), c.Rank()
	blk := len(send) / size
	tmp := c.alloc(len(send))
	copy(tmp, send[rank*blk:])
	copy(tmp[(size-rank)*blk:], send[:rank*blk])
	pack := c.alloc((size/2 + 1) * blk)
	unpack := c.alloc(len(pack))
	for p := 1; p < size; p <<= 1 {
		k := 0
		for j := p; j < size; j++ {
			if j&p != 0 {
				copy(pack[k*blk:], tmp[j*blk:(j+1)*blk])
				k++
			}
		}
		if err := c.passrecv((rank+p)%size, pack[:k*blk], (rank-p+size)%size, unpack[:k*blk]); err != nil {
			return c.end(err)
		}
		k = 0
		for j := p; j < size; j++ {
			if j&p != 0 {
				copy(tmp[j*blk:(j+1)*blk], unpack[k*blk:])
				k++
			}
		}
	}
	for j := range size {
		from := (rank - j + size) % size
		copy(recv[from*blk:(from+1)*blk], tmp[j*blk:])
	}
	return c.end(nil)
}

// alltoallvAlgorithms are Alltoallv's algorithms. Each is called with
// send and recv that do not overlap.
var alltoallvAlgorithms = map[string]func(c *call, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error{
	"pairwise": alltoallvPairwise,
	"linear":   alltoallvLinear,
}

// Alltoallv is Alltoall with blocks of their own sizes: rank i sends the
// scounts[j] bytes at send[sdispls[j]:] to rank j, where they land as the
// rcounts[i] bytes at recv[rdispls[i]:]. Counts and displacements have
// size entries, in bytes. A nil send means in place: the blocks to send
// are taken from (a copy of) recv, with rcounts and rdispls standing for
// scounts and sdispls. A count that differs from its peer's makes the
// operation fail with ErrMismatch.
//
// Algorithms: "pairwise" and "linear", as for Alltoall.
func Alltoallv(n Net, alg string, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	f, err := lookupAlgorithm("alltoallv", alltoallvAlgorithms, alg)
	if err != nil {
		return err
	}
	size := n.Size()
	if err := checkVector("alltoallv", "receive", size, rcounts, rdispls, len(recv)); err != nil {
		return err
	}
	c := newCall(n)
	if send == nil {
		send, scounts, sdispls = c.copyOf(recv), rcounts, rdispls
	} else if err := checkVector("alltoallv", "send", size, scounts, sdispls, len(send)); err != nil {
		return err
	}
	return f(c, send, scounts, sdispls, recv, rcounts, rdispls)
}

func alltoallvPairwise(c *call, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	size, rank := c.Size(), c.Rank()
	out := func(i int) []byte { return send[sdispls[i] : sdispls[i]+scounts[i]] }
	in := func(i int) []byte { return recv[rdispls[i] : rdispls[i]+rcounts[i]] }
	c.checkLen(rank, scounts[rank], rcounts[rank])
	copy(in(rank), out(rank))
	for s := 1; s < size; s++ {
		to, from := (rank+s)%size, (rank-s+size)%size
		if err := c.passrecv(to, out(to), from, in(from)); err != nil {
			return c.end(err)
		}
	}
	return c.end(nil)
}

func alltoallvLinear(c *call, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	rank := c.Rank()
	out := func(i int) []byte { return send[sdispls[i] : sdispls[i]+scounts[i]] }
	in := func(i int) []byte { return recv[rdispls[i] : rdispls[i]+rcounts[i]] }
	c.checkLen(rank, scounts[rank], rcounts[rank])
	copy(in(rank), out(rank))
	return c.end(c.exchangeSteps(out, in))
}
