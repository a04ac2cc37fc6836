package collectives

import "fmt"

// AlgHierarchical runs a broadcast or a commutative reduction on two
// levels: among the ranks that share a processor (Runner.Processors),
// whose messages stay in that processor's caches, and among one leader
// per processor, whose messages cross between processors. A reduction
// combines each processor's vectors at its leader, the leaders'
// combinations at the root (Reduce) or among themselves (Allreduce,
// then broadcast back to each processor's ranks); a broadcast goes from
// the root to the other leaders, then from each leader to its processor's
// ranks. Only one vector a processor crosses between processors at each
// step, where a flat algorithm crosses with every message between ranks
// pinned apart (mpirun pins rank r to CPU r modulo the CPUs: on 2 CPUs the
// ring of 4 ranks crosses at every step).
const AlgHierarchical = "hierarchical"

// hierarchy is the partition of a communicator's ranks by processor, and
// the scratch of the two levels of a call.
type hierarchy struct {
	group    []int   // group[r] is the index of rank r's processor
	groups   [][]int // the ranks of each processor, ascending; groups in order of their lowest rank
	shared   bool    // some processor has more than one rank
	balanced bool    // every processor has as many ranks
	most     int     // the most ranks a processor has
	// local and leaders are the views of the two levels for the call in
	// progress.
	local, leaders subNet
}

// newHierarchy partitions n ranks by processors (nil: each rank alone).
func newHierarchy(processors []int, n int) *hierarchy {
	h := &hierarchy{group: make([]int, n)}
	index := make(map[int]int)
	for r := range n {
		p := -1 - r // alone
		if len(processors) == n {
			p = processors[r]
		}
		g, ok := index[p]
		if !ok {
			g = len(h.groups)
			index[p] = g
			h.groups = append(h.groups, nil)
		}
		h.group[r] = g
		h.groups[g] = append(h.groups[g], r)
		h.shared = h.shared || ok
	}
	h.balanced = true
	for _, g := range h.groups {
		h.most = max(h.most, len(g))
		h.balanced = h.balanced && len(g) == len(h.groups[0])
	}
	h.local.members = make([]int, 0, n)
	h.leaders.members = make([]int, len(h.groups))
	return h
}

// hierarchy returns the Runner's partition of its ranks by processor.
func (u *Runner) hierarchy() *hierarchy {
	if u.hier == nil || len(u.hier.group) != u.Net.Size() {
		u.hier = newHierarchy(u.Processors, u.Net.Size())
	}
	return u.hier
}

// split sets up the two levels of a call rooted at root, seen from rank
// (a rank of c): the ranks of its processor, its leader first (root on
// root's processor, else the lowest rank), and the leaders, one a
// processor in the order of the groups. It returns the local level, and
// the leaders' with the index of root's leader, or nil if rank leads no
// processor.
func (h *hierarchy) split(c *call, root int) (local, leaders *subNet, top int) {
	rank := c.Rank()
	lead := func(g int) int {
		if h.group[root] == g {
			return root
		}
		return h.groups[g][0]
	}
	g := h.group[rank]
	head := lead(g)
	members := append(h.local.members[:0], head)
	for _, r := range h.groups[g] {
		if r != head {
			members = append(members, r)
		}
	}
	h.local.set(c, members, rank)
	if rank != head {
		return &h.local, nil, 0
	}
	for i := range h.groups {
		h.leaders.members[i] = lead(i)
	}
	h.leaders.set(c, h.leaders.members, rank)
	return &h.local, &h.leaders, h.group[root]
}

// subNet is the Net of some ranks of a call's Net: its rank i is the
// call's rank members[i].
type subNet struct {
	c       *call
	members []int
	rank    int // this process's index in members
}

// set makes s the Net of members of c, seen from c's rank rank (one of
// them).
func (s *subNet) set(c *call, members []int, rank int) {
	s.c, s.members = c, members
	s.rank = s.index(rank)
}

// Rank and Size are the process's index among the members and their number.
func (s *subNet) Rank() int { return s.rank }
func (s *subNet) Size() int { return len(s.members) }

// Send, Recv and Sendrecv are the call's, to and from members.
func (s *subNet) Send(to int, data []byte) error { return s.c.Net.Send(s.members[to], data) }
func (s *subNet) Recv(from int, buf []byte) (int, error) {
	return s.c.Net.Recv(s.members[from], buf)
}
func (s *subNet) Sendrecv(to int, data []byte, from int, buf []byte) (int, error) {
	return s.c.Net.Sendrecv(s.members[to], data, s.members[from], buf)
}

// RecvOperand, SendrecvOperand and SendOperand are the call's
// (OperandNet, else Recv, Sendrecv and Send), to and from members.
func (s *subNet) RecvOperand(from int, buf []byte) (int, error) {
	if o, ok := s.c.Net.(OperandNet); ok {
		return o.RecvOperand(s.members[from], buf)
	}
	return s.Recv(from, buf)
}
func (s *subNet) SendrecvOperand(to int, data []byte, from int, buf []byte) (int, error) {
	if o, ok := s.c.Net.(OperandNet); ok {
		return o.SendrecvOperand(s.members[to], data, s.members[from], buf)
	}
	return s.Sendrecv(to, data, from, buf)
}
func (s *subNet) SendOperand(to int, data []byte) error { return s.c.sendOperand(s.members[to], data) }

// SendAhead is the call's (AheadSender, else Send), to a member.
func (s *subNet) SendAhead(to int, data []byte) error { return s.c.sendAhead(s.members[to], data) }

// index is the index of the call's rank r among the members.
func (s *subNet) index(r int) int {
	for i, m := range s.members {
		if m == r {
			return i
		}
	}
	return -1
}

// level runs f on the call of the ranks of s, which shares c's scratch
// memory; a length mismatch among them becomes c's. Nothing runs on a
// level of one rank.
func (c *call) level(s *subNet, f func(l *call) error) error {
	if s.Size() < 2 {
		return nil
	}
	l := call{Net: s, arena: c.arena, xfer: c.xfer, used: c.used}
	err := f(&l)
	c.used = l.used
	if l.mismatch != nil && c.mismatch == nil {
		c.mismatch = fmt.Errorf("among ranks %v: %w", s.members, l.mismatch)
	}
	return err
}

// bcastHierarchical broadcasts buf from root to the other processors'
// leaders, then from each leader to its processor's ranks.
func bcastHierarchical(c *call, h *hierarchy, buf []byte, root int) error {
	local, leaders, top := h.split(c, root)
	if leaders != nil {
		if err := c.level(leaders, func(l *call) error { return bcastBinomial(l, buf, top) }); err != nil {
			return err
		}
	}
	return c.level(local, func(l *call) error { return bcastBinomial(l, buf, 0) })
}

// reduceLocal combines the vectors of the ranks of local into the
// leader's: in recv at root, else in scratch memory. It returns the
// leader's combination, its input where it leads a processor of its
// own, or nil on the others (only the leader uses it). in is the
// process's input (nil: in place at the root, in recv).
func reduceLocal(c *call, local *subNet, r Reducer, in, recv []byte, length int, isRoot bool) ([]byte, error) {
	if local.Size() < 2 {
		return reduceInput(in, recv, length), nil
	}
	var acc []byte
	switch {
	case local.Rank() == 0 && isRoot:
		acc = recv[:length]
	case local.Rank() == 0:
		acc = c.alloc(length)
	case in == nil:
		in = recv[:length]
	}
	err := c.level(local, func(l *call) error { return reduceBinomial(l, r, in, acc, 0) })
	if local.Rank() != 0 {
		acc = nil
	}
	return acc, err
}

// reduceHierarchical combines the processes' send vectors with r (a
// commutative operation) into recv at root: each processor's at its
// leader, then the leaders' at root, by the algorithm the selection takes
// for their number. send nil means in place at the root.
func reduceHierarchical(c *call, h *hierarchy, r Reducer, send, recv []byte, root int) error {
	length := len(send)
	if send == nil {
		length = len(recv)
	}
	isRoot := c.Rank() == root
	local, leaders, top := h.split(c, root)
	acc, err := reduceLocal(c, local, r, send, recv, length, isRoot)
	if err != nil || leaders == nil {
		return err
	}
	if leaders.Size() < 2 && local.Size() < 2 {
		copyInput(recv[:length], send, recv) // a root alone
		return nil
	}
	in := acc
	if isRoot && (local.Size() > 1 || send == nil) {
		in = nil // the root's combination is in recv
	}
	return c.level(leaders, func(l *call) error {
		switch reduceChoice(leaders.Size(), length, true, false) {
		case AlgReduceScatterGather:
			return reduceScatterGather(l, r, in, recv[:min(len(recv), length)], top)
		case AlgRecursiveHalving:
			return reduceHalving(l, r, in, recv[:min(len(recv), length)], top)
		}
		return reduceBinomial(l, r, in, recv, top)
	})
}

// allreduceHierarchical combines the processes' send vectors with r (a
// commutative operation) into every process's recv: each processor's at
// its leader, among the leaders by a ring (long vectors) or recursive
// doubling, then from each leader to its processor's ranks. send nil
// means in place.
func allreduceHierarchical(c *call, h *hierarchy, r Reducer, send, recv []byte) error {
	local, leaders, _ := h.split(c, 0)
	lead := leaders != nil
	if _, err := reduceLocal(c, local, r, send, recv, len(recv), lead); err != nil {
		return err
	}
	if lead {
		if leaders.Size() < 2 && local.Size() < 2 {
			copyInput(recv, send, recv) // a rank alone
		}
		in := send
		if local.Size() > 1 {
			in = nil // the processor's combination is in recv
		}
		err := c.level(leaders, func(l *call) error {
			if len(recv) >= longVector/8 {
				return allreduceRing(l, r, in, recv)
			}
			return allreduceRecursiveDoubling(l, r, in, recv)
		})
		if err != nil {
			return err
		}
	}
	return c.level(local, func(l *call) error { return bcastBinomial(l, recv, 0) })
}

// hierarchyPays reports whether coll, of bytes and a commutative
// operation or not, runs AlgHierarchical where ranks share processors:
// Reduce from 64 KiB, Allreduce from 512 KiB where every processor has
// as many ranks, Bcast from 1 MiB where no processor has more than two
// (docs/tuning.md, "Hierarchical collectives"). With Tuning.EarlyHierarchy
// the balanced reductions take it from hierarchyEarlyMin, where the
// payload-sized calls' AlgShared stops.
func (u *Runner) hierarchyPays(coll Collective, bytes int, commutative bool) bool {
	if u.Processors == nil || bytes < hierarchyEarlyMin {
		return false
	}
	h := u.hierarchy()
	early := u.Tuning.EarlyHierarchy && h.balanced
	switch {
	case !h.shared:
		return false
	case coll == CollReduce:
		return commutative && (bytes >= 64<<10 || early)
	case coll == CollAllreduce:
		return commutative && h.balanced && (bytes >= 512<<10 || early)
	case coll == CollBcast:
		return bytes >= 1<<20 && h.most <= 2
	}
	return false
}

// Tuning is what the class of host decides in the selection of
// algorithms; package tuning makes it.
type Tuning struct {
	// EarlyHierarchy lets the commutative reductions take
	// AlgHierarchical from hierarchyEarlyMin where every processor has
	// as many ranks, rather than from 64 KiB (Reduce) and 512 KiB
	// (Allreduce): measured to win there on some processors, to lose on
	// others (docs/tuning.md, "Hierarchical collectives").
	EarlyHierarchy bool
	// PairAllgatherShared, if not 0, is the largest block of an
	// allgather that AlgShared carries at two processes, where the two
	// read each other's record at once (the other collectives' bound,
	// sharedPair, otherwise): measured where one pair of messages wins
	// sooner (docs/tuning.md, "AlgShared").
	PairAllgatherShared int
}

// hierarchyEarlyMin is the smallest reduction AlgHierarchical takes.
const hierarchyEarlyMin = 16 << 10
