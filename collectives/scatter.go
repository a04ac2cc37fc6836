package collectives

import "fmt"

// scatterAlgorithms are Scatter's algorithms. Each is called on every rank
// with own, where the rank's block goes, and at the root send, exactly
// size blocks of len(own) bytes (own may be send's block of the root: in
// place).
var scatterAlgorithms = map[string]func(c *call, send, own []byte, root int) error{
	"linear":   scatterLinear,
	"binomial": scatterBinomial,
}

// Scatter sends block i of the root's send, send[i*len(recv):], to rank
// i's recv; it is the inverse of Gather. send is significant at the root
// only, where it must hold at least size*len(recv) bytes. At the root, a
// nil recv means in place: the root's block stays in send, and the block
// size is len(send)/size.
//
// Algorithms: "linear" (the root sends to every rank, the blocks in flight
// together or in turn) and
// "binomial" (a binomial tree rooted at root; inner ranks receive their
// subtree's blocks in one message and pass them on).
func Scatter(n Net, alg string, send, recv []byte, root int) error {
	f, err := lookupAlgorithm("scatter", scatterAlgorithms, alg)
	if err != nil {
		return err
	}
	if err := checkRoot("scatter", n, root); err != nil {
		return err
	}
	size, own := n.Size(), recv
	if n.Rank() == root {
		if recv == nil {
			if len(send)%size != 0 {
				return fmt.Errorf("scatter: in place, the send buffer of %d bytes is no multiple of %d ranks: %w", len(send), size, ErrBuffer)
			}
			blk := len(send) / size
			own = send[root*blk : (root+1)*blk]
		}
		if len(send) < size*len(own) {
			return fmt.Errorf("scatter: the send buffer holds %d bytes, not %d ranks × %d: %w", len(send), size, len(own), ErrBuffer)
		}
		send = send[:size*len(own)]
	} else {
		send = nil
	}
	return f(newCall(n), send, own, root)
}

// scatterLinear: the root sends every block together and copies its own
// while they are in flight, and each rank receives its block as a one-way
// exchange, which the Net may have the receiver read whole, the root
// being busy with its copy and its other sends (see recvExchanged;
// docs/tuning.md, "Scatter, linear").
func scatterLinear(c *call, send, own []byte, root int) error {
	if c.Rank() != root {
		return c.end(c.recvExchanged(root, own))
	}
	blk := len(own)
	return c.end(c.sendEachCopying(func(i int) []byte { return send[i*blk : (i+1)*blk] }, true,
		own, send[root*blk:(root+1)*blk]))
}

// linearTogether reports whether the root of a linear gather, gatherv
// or scatterv moves its blocks of about blk bytes to or from its n-1
// ranks together or one after the other (the linear scatter's root sends
// them together, see scatterLinear). With the blocks in flight together,
// a rank whose turn comes late does not wait for those the scheduler runs
// before it, but the ranks' copies then share the memory's bandwidth:
// together from 5 processes, and for blocks up to 64 KiB
// (docs/tuning.md, "Linear gathers and scatters").
func linearTogether(n, blk int) bool { return n > 4 || blk <= 64<<10 }

// scatterBinomial uses the tree of gatherBinomial, the other way: each
// rank receives its subtree's blocks from its parent and sends each child
// its subtree's, the largest subtree first.
func scatterBinomial(c *call, send, own []byte, root int) error {
	size, blk := c.Size(), len(own)
	v := (c.Rank() - root + size) % size
	if v == 0 {
		return c.end(scatterRoot(c, send, own, root))
	}
	parent := (v - lowBit(v) + root) % size
	sub := min(lowBit(v), size-v)
	if sub == 1 {
		return c.end(c.recv(parent, own))
	}
	tmp := c.alloc(sub * blk)
	if err := c.recv(parent, tmp); err != nil {
		return c.end(err)
	}
	m := 1
	for 2*m < sub {
		m <<= 1
	}
	for ; m >= 1 && m < sub; m >>= 1 {
		if err := c.pass((v+m+root)%size, tmp[m*blk:min(2*m, sub)*blk]); err != nil {
			return c.end(err)
		}
	}
	copy(own, tmp[:blk])
	return c.end(nil)
}

// scatterRoot is scatterBinomial's root: each child's subtree, the ranks
// root+m, …, root+min(2m, size)-1 (modulo size), the largest first, is
// sent from where those ranks' blocks lie in send, gathered into scratch
// memory only where the range wraps past rank size-1 to rank 0
// (subtreeRange); then the root copies its own block.
func scatterRoot(c *call, send, own []byte, root int) error {
	size, blk := c.Size(), len(own)
	m := 1
	for 2*m < size {
		m <<= 1
	}
	for ; m >= 1 && m < size; m >>= 1 {
		to, k := (root+m)%size, min(2*m, size)-m
		src, ok := subtreeRange(send, to, k, blk)
		if !ok {
			src = c.alloc(k * blk)
			copy(src[copy(src, send[to*blk:]):], send)
		}
		if err := c.pass(to, src); err != nil {
			return err
		}
	}
	copy(own, send[root*blk:(root+1)*blk]) // nothing to do in place
	return nil
}

// subtreeRange returns the blocks of the k ranks from rank from on in
// buf, blk bytes each, where they lie in one piece (ok); it reports false
// where they wrap past the last rank to rank 0.
func subtreeRange(buf []byte, from, k, blk int) (blocks []byte, ok bool) {
	if end := (from + k) * blk; end <= len(buf) {
		return buf[from*blk : end], true
	}
	return nil, false
}

// scattervAlgorithms are Scatterv's algorithms; send, counts and displs
// are significant at the root only, and own is nil there when in place.
var scattervAlgorithms = map[string]func(c *call, send []byte, counts, displs []int, own []byte, root int) error{
	"linear": scattervLinear,
}

// Scatterv is Scatter with a block of its own size per rank: rank i's recv
// receives the counts[i] bytes at send[displs[i]:] of the root. send,
// counts and displs (len size, in bytes) are significant at the root
// only. At the root, a nil recv means in place: the root's block stays in
// send. A rank whose recv differs in length from the root's counts makes
// the operation fail with ErrMismatch.
//
// Algorithm: "linear".
func Scatterv(n Net, alg string, send []byte, counts, displs []int, recv []byte, root int) error {
	f, err := lookupAlgorithm("scatterv", scattervAlgorithms, alg)
	if err != nil {
		return err
	}
	if err := checkRoot("scatterv", n, root); err != nil {
		return err
	}
	if n.Rank() == root {
		if err := checkVector("scatterv", "send", n.Size(), counts, displs, len(send)); err != nil {
			return err
		}
	} else {
		send, counts, displs = nil, nil, nil
	}
	return f(newCall(n), send, counts, displs, recv, root)
}

func scattervLinear(c *call, send []byte, counts, displs []int, own []byte, root int) error {
	if c.Rank() != root {
		return c.end(c.recv(root, own))
	}
	block := func(i int) []byte { return send[displs[i] : displs[i]+counts[i]] }
	var src []byte
	if own != nil {
		c.checkLen(root, counts[root], len(own))
		src = block(root)
	}
	return c.end(c.sendEachCopying(block, linearTogether(c.Size(), len(send)/c.Size()), own, src))
}
