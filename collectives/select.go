package collectives

import (
	"fmt"
	"slices"
	"strings"
)

// Algorithms returns the names of the algorithms of collective c, sorted.
func Algorithms(c Collective) []string {
	var names []string
	switch c {
	case CollBarrier:
		names = slices.Clone(barrierAlgorithms)
	case CollBcast:
		names = append(slices.Clone(bcastAlgorithms), AlgShared, AlgHierarchical)
	case CollReduce:
		names = append(slices.Clone(reduceAlgorithms), AlgShared, AlgHierarchical)
	case CollAllreduce:
		names = append(slices.Clone(allreduceAlgorithms), AlgHierarchical)
	case CollGather:
		names = append(knownAlgorithms(gatherAlgorithms), AlgShared)
	case CollGatherv:
		names = knownAlgorithms(gathervAlgorithms)
	case CollScatter:
		names = append(knownAlgorithms(scatterAlgorithms), AlgShared)
	case CollScatterv:
		names = knownAlgorithms(scattervAlgorithms)
	case CollAllgather:
		names = append(knownAlgorithms(allgatherAlgorithms), AlgShared)
	case CollAllgatherv:
		names = knownAlgorithms(allgathervAlgorithms)
	case CollAlltoall:
		names = append(knownAlgorithms(alltoallAlgorithms), AlgShared)
	case CollAlltoallv:
		names = knownAlgorithms(alltoallvAlgorithms)
	case CollReduceScatterBlock:
		names = append(knownAlgorithms(reduceScatterBlockAlgorithms), AlgShared)
	case CollReduceScatter:
		names = knownAlgorithms(reduceScatterAlgorithms)
	case CollScan, CollExscan:
		names = append(knownAlgorithms(scanAlgorithms), AlgShared)
	}
	slices.Sort(names)
	return names
}

// Selection forces the algorithm of some collectives; the others are
// chosen by message and communicator size.
type Selection map[Collective]string

// ParseSelection parses a selection such as
// "allreduce=ring,bcast=binomial" (the syntax of mpirun -coll and
// MARTINI_COLL), checking every name.
func ParseSelection(spec string) (Selection, error) {
	sel := Selection{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, alg, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("collective selection %q: want collective=algorithm", item)
		}
		c, ok := ParseCollective(strings.ToLower(strings.TrimSpace(name)))
		if !ok {
			return nil, fmt.Errorf("collective selection %q: unknown collective %q", item, name)
		}
		alg = strings.TrimSpace(alg)
		if !slices.Contains(Algorithms(c), alg) {
			return nil, fmt.Errorf("collective selection %q: %s has no algorithm %q (known: %s)",
				item, c, alg, strings.Join(Algorithms(c), ", "))
		}
		sel[c] = alg
	}
	return sel, nil
}

// String formats the selection as ParseSelection reads it.
func (s Selection) String() string {
	var items []string
	for c := CollBarrier; c < numCollectives; c++ {
		if alg, ok := s[c]; ok {
			items = append(items, c.String()+"="+alg)
		}
	}
	return strings.Join(items, ",")
}

// Size thresholds of the default choices, in bytes (docs/tuning.md, "The
// collectives' selection", gives the measurements behind each).
const (
	// sharedMessages and sharedMessageRecord bound the input AlgShared
	// carries without the synchronisation network, where the processes
	// exchange records by messages as long as each call needs
	// (Runner.messageRecords): the inputs a process receives from all
	// the others together, and one record's. The check's exchange then
	// carries the data too, where the messages' algorithms follow it
	// with their own messages (and a rooted call's needless bytes travel
	// with it). A record stays below the eager limit of TCP (64 KiB):
	// at two processes, records past it took twice as long. At 4
	// processes over TCP, calls of 1 to 16 KiB that fit took 0.46 to
	// 0.97 of the time of the check and then the messages; the
	// reductions and gathers to a root take half the total, as with the
	// whole a gather of 16 KiB over martini without the barrier took a
	// third longer (docs/decisions.md).
	sharedMessages      = 64 << 10
	sharedMessageRecord = 32 << 10
	// sharedRecord is the record a process publishes in an exchange
	// without the synchronisation network where the records keep one
	// length (a binomial exchange, forced): its Key and up to
	// sharedRecord-keySize bytes of input.
	sharedRecord = 128
	// sharedPairReduce and sharedPair bound the input AlgShared carries
	// at two processes, for reductions and for the other collectives:
	// beyond them the processes' messages win. With more processes
	// AlgShared replaces rounds of messages by one barrier and wins
	// wherever the input fits the record.
	sharedPairReduce = 2 << 10
	sharedPair       = 4 << 10
	// sharedAllreduceMax bounds the vectors of all processes together
	// that an allreduce on a power of two processes from 4 runs by
	// AlgShared: at 64 KiB or more (16 KiB vectors at 4 processes, 8 KiB
	// at 8 and 16) recursive doubling won.
	sharedAllreduceMax = 64 << 10
	// longVector is where the bandwidth-bound algorithms (ring, scatter-
	// allgather, reduce-scatter-gather) take over.
	longVector = 64 << 10
	// smallBlock is the largest block of Bruck's alltoall. Above it, and
	// below it up to 4 processes, the alltoalls run linear (several steps
	// of the pairwise schedule in flight) from 3 processes, where the
	// Runner lets them (LinearExchanges); at 2 processes the two are one
	// and the same exchange.
	smallBlock = 256
)

// pairLinearMin is the smallest block of an allgather or alltoall that
// runs linear at 2 processes (where the Runner lets it, LinearExchanges):
// its one pair of messages is then an exchange (Exchanger), whose sends
// may take the network's single copy, where the ring, recursive doubling
// and pairwise algorithms send them by Sendrecv. The v-collectives keep
// the ring and the pairwise exchange there.
const pairLinearMin = 8 << 10

// The allgathers run linear (every block sent straight to every rank,
// several steps in flight) where the ring would, from 3 processes, and at
// 3 processes whatever the size: in a ring, a block reaches the last rank
// only after every rank on the way has run, and with ranks outnumbering
// cores each hop waits for the scheduler. The allgatherv, which has no
// other algorithm than the ring, runs linear from 3 processes.

// sharedPays reports whether AlgShared should run collective c when every
// process publishes up to share bytes of input (and they fit its record)
// in the exchange that checks arguments by method (u.method()).
// A broadcast or a scatter whose calls run ahead of their check
// (RunAhead) takes its message algorithms instead: the root then sends
// and returns, where AlgShared is a barrier; a reduction or a gather
// keeps it, its root waiting for everyone's data anyway.
func (u *Runner) sharedPays(c Collective, share int, method string) bool {
	if _, ok := u.runAheadBarrier(c); ok {
		return false
	}
	n := u.Net.Size()
	switch {
	case c == CollAllreduce && u.LinearExchanges && n >= 4 && isPowerOfTwo(n) && n*share >= sharedAllreduceMax:
		// Every process reads every other's vector: n² vectors cross
		// the caches, where recursive doubling moves n·log2(n).
		return false
	case share <= DatumSize:
		return true
	case u.messageRecords(method):
		return share <= u.messageShareMax(c)
	case n > 2:
		return true
	case c == CollReduce || c == CollAllreduce || c == CollReduceScatterBlock || c == CollScan || c == CollExscan:
		return share <= sharedPairReduce
	case c == CollAllgather && u.Tuning.PairAllgatherShared > 0:
		return share <= u.Tuning.PairAllgatherShared
	}
	return share <= sharedPair
}

// choose returns the algorithm of collective c for a call moving bytes
// (the vector of a reduction, the message of a broadcast, one process's
// block otherwise) on the Runner's processes; shared says whether
// AlgShared should run it (the inputs fit the records of an exchange, see
// sharedPays). A forced algorithm comes first, then AlgShared, then
// AlgHierarchical where it pays, then the collective's default (choosers).
func (u *Runner) choose(c Collective, bytes int, commutative, shared bool) string {
	if len(u.Force) > 0 {
		if alg, ok := u.Force[c]; ok {
			return alg
		}
	}
	if shared {
		return AlgShared
	}
	if u.hierarchyPays(c, bytes, commutative) {
		return AlgHierarchical
	}
	if c < 0 || c >= numCollectives || choosers[c] == nil {
		return ""
	}
	return choosers[c](u, choice{n: u.Net.Size(), bytes: bytes, commutative: commutative})
}

// choice is what a collective's default choice depends on, besides the
// Runner: the number of processes, the size (as choose takes it) and
// whether the operation commutes.
type choice struct {
	n, bytes    int
	commutative bool
}

// choosers are the default choices, by collective.
var choosers = [numCollectives]func(*Runner, choice) string{
	CollBarrier:            chooseBarrier,
	CollBcast:              chooseBcast,
	CollReduce:             func(u *Runner, x choice) string { return reduceChoice(x.n, x.bytes, x.commutative, u.LinearExchanges) },
	CollAllreduce:          chooseAllreduce,
	CollGather:             func(u *Runner, x choice) string { return chooseRooted(u, x, pairGatherLinearMin) },
	CollGatherv:            func(*Runner, choice) string { return "linear" },
	CollScatter:            func(u *Runner, x choice) string { return chooseRooted(u, x, pairScatterLinearMin) },
	CollScatterv:           func(*Runner, choice) string { return "linear" },
	CollAllgather:          chooseAllgather,
	CollAllgatherv:         func(u *Runner, x choice) string { return linearOr(u, x, "ring") },
	CollAlltoall:           chooseAlltoall,
	CollAlltoallv:          func(u *Runner, x choice) string { return linearOr(u, x, "pairwise") },
	CollReduceScatterBlock: chooseReduceScatterBlock,
	CollReduceScatter:      chooseReduceScatter,
	CollScan:               chooseScan,
	CollExscan:             chooseScan,
}

// chooseBarrier: the NIC's barrier where there is one.
func chooseBarrier(u *Runner, _ choice) string {
	if u.HW != nil {
		return AlgNIC
	}
	return AlgDissemination
}

// chooseBcast: the NIC's multicast from bcastMulticastMin on more than
// two processes (at two its receiver copies from the root's buffer
// across the caches, and loses), the binomial tree otherwise.
func chooseBcast(u *Runner, x choice) string {
	if u.BcastMulticast && u.HW != nil && x.n > 2 && x.bytes >= bcastMulticastMin(x.n) {
		return AlgNIC
	}
	return AlgBinomial
}

// chooseAllreduce: the ring for long commutative vectors, a reduction
// and a broadcast for long others, recursive doubling below.
func chooseAllreduce(u *Runner, x choice) string {
	switch {
	case x.commutative && halvingAllreduce(x.n, x.bytes, u.LinearExchanges):
		return AlgRecursiveHalving
	case x.commutative && x.bytes >= allreduceRingMin(x.n, u.LinearExchanges) && x.n > 1:
		return AlgRing
	case !x.commutative && x.bytes >= longVector:
		return AlgReduceBcast
	}
	return AlgRecursiveDoubling
}

// halvingAllreduce reports whether a commutative allreduce of bytes on n
// processes takes recursive halving (Rabenseifner's): on a power of two
// from 4, measured (not under a timing model), from 32 KiB to below
// 512 KiB, where it beat recursive doubling and the ring on the 16-core
// machine; the ring won at 1 MiB (docs/tuning.md has the runs).
func halvingAllreduce(n, bytes int, measured bool) bool {
	return measured && n >= 4 && isPowerOfTwo(n) && bytes >= longVector/2 && bytes < 8*longVector
}

// allreduceRingMin is the shortest commutative vector whose allreduce on
// n processes takes the ring: 512 KiB on a power of two processes from 4
// (below, recursive halving and, under 32 KiB, recursive doubling, in
// log2(n) exchanges of the whole vector, which beat the ring's 2(n-1) of
// a piece at 16 KiB); 8 KiB on the others, whose recursive doubling takes
// extra steps, and under a timing model (measured is LinearExchanges: not
// under one), whose recorded runs took the ring from 8 KiB.
func allreduceRingMin(n int, measured bool) int {
	if measured && n >= 4 && isPowerOfTwo(n) {
		return 8 * longVector
	}
	return longVector / 8
}

// chooseRooted is a gather's or a scatter's: the binomial tree while the
// blocks together are short, linear above; at 2 processes, where both
// move the one block in one message, linear from pairMin where the
// Runner lets it (LinearExchanges: not under a timing model, whose
// recorded runs took the tree).
func chooseRooted(u *Runner, x choice, pairMin int) string {
	switch {
	case x.n == 2 && u.LinearExchanges && x.bytes >= pairMin:
		return "linear"
	case x.bytes < longVector/max(x.n, 1):
		return "binomial"
	}
	return "linear"
}

// pairGatherLinearMin and pairScatterLinearMin are where a gather and a
// scatter at 2 processes take the linear algorithm (chooseRooted): its
// block is then received in an exchange, by the root of a gather, and
// by the receiver alone in a scatter, whose root copies its own block
// meanwhile (CopyingExchanger): a gather's from 8 KiB, a scatter's from
// 12 KiB, below which the tree's one eager message wins (docs/tuning.md,
// "Gather and scatter at 2 processes", has the measurements).
const (
	pairGatherLinearMin  = 8 << 10
	pairScatterLinearMin = 12 << 10
)

// chooseAllgather: linear where the Runner lets it (at 2 processes from
// pairLinearMin; from 3 where the ring would run, and at 3 whatever the
// size), else the ring for long blocks, recursive doubling on a power of
// two processes and Bruck on others.
func chooseAllgather(u *Runner, x choice) string {
	switch n, total := x.n, x.bytes*x.n; {
	case n == 2 && u.LinearExchanges && x.bytes >= pairLinearMin:
		return "linear"
	case n > 2 && u.LinearExchanges && (n == 3 || total >= longVector):
		return "linear"
	case total >= longVector:
		return "ring"
	case isPowerOfTwo(n):
		return "recursive-doubling"
	}
	return "bruck"
}

// chooseAlltoall: Bruck for small blocks on more than four processes,
// linear where the Runner lets it (at 2 processes from pairLinearMin),
// pairwise otherwise.
func chooseAlltoall(u *Runner, x choice) string {
	switch {
	case x.bytes <= smallBlock && x.n > 4:
		return "bruck"
	case x.n > 2 && u.LinearExchanges, x.n == 2 && u.LinearExchanges && x.bytes >= pairLinearMin:
		return "linear"
	}
	return "pairwise"
}

// linearOr is a v-collective's exchange: linear from 3 processes where
// the Runner lets it, other otherwise.
func linearOr(u *Runner, x choice, other string) string {
	if x.n > 2 && u.LinearExchanges {
		return "linear"
	}
	return other
}

// chooseReduceScatterBlock: the reduction then a scatter for an
// operation that does not commute, recursive halving for short vectors
// on a power of two processes, the ring otherwise.
func chooseReduceScatterBlock(_ *Runner, x choice) string {
	switch {
	case !x.commutative:
		return "reduce-scatter"
	case isPowerOfTwo(x.n) && x.bytes*x.n < longVector:
		return "recursive-halving"
	}
	return "ring"
}

// chooseReduceScatter: the ring for a commutative operation.
func chooseReduceScatter(_ *Runner, x choice) string {
	if x.commutative {
		return "ring"
	}
	return "reduce-scatterv"
}

// chooseScan: linear for long vectors, recursive doubling below.
func chooseScan(_ *Runner, x choice) string {
	if x.bytes >= longVector {
		return "linear"
	}
	return "recursive-doubling"
}

// bcastMulticastMin is the smallest broadcast on n > 2 processes that the
// NIC's multicast carries: once a message no longer fits the records of
// an exchange (AlgShared), the binomial tree's rendezvous hops wait for
// one process after another, and with processes outnumbering cores each
// hop waits for the scheduler.
func bcastMulticastMin(n int) int {
	if n > 4 {
		return 16 << 10
	}
	return 32 << 10
}

// reduceChoice is the default Reduce algorithm of a vector of bytes on n
// processes. At 2 ranks the binomial tree's root receives and combines
// the whole vector alone, and splitting the work pays from 512 KiB; at 4
// the split pays between 256 and 512 KiB; on a power of two ranks from 8
// recursive halving pays from 32 KiB (measured, not under a timing model:
// from 256 KiB there), on other numbers the split from 256 KiB
// (docs/tuning.md, "Reduce"). With the AVX2 sums
// (vecsumAVX2) the tree's root combines twice as fast, and the tree keeps
// 2 ranks up to 4 MiB and 4 up to 1 MiB.
func reduceChoice(n, bytes int, commutative, measured bool) string {
	switch {
	case !commutative || n < 2:
	case (n == 2 || n == 4) && vecsumAVX2:
		if split := 64 * longVector >> (n - 2); bytes >= split { // 4 MiB at 2, 1 MiB at 4
			return AlgReduceScatterGather
		}
	case n == 2:
		if bytes >= 8*longVector {
			return AlgReduceScatterGather
		}
	case n == 4:
		if bytes >= 4*longVector && bytes < 8*longVector {
			return AlgReduceScatterGather
		}
	case measured && isPowerOfTwo(n) && n >= 8 && bytes >= longVector/2:
		return AlgRecursiveHalving
	case bytes < 4*longVector:
	case isPowerOfTwo(n):
		return AlgRecursiveHalving
	default:
		return AlgReduceScatterGather
	}
	return AlgBinomial
}
