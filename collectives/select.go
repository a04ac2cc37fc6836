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

// Size thresholds of the default choices, in bytes, measured on the
// 2-core reference machine (see the mpi package's benchmarks).
const (
	// sharedRecord is the record a process publishes in an exchange
	// without the synchronisation network: its Key and up to
	// sharedRecord-keySize bytes of input.
	sharedRecord = 128
	// sharedPairReduce and sharedPair bound the input AlgShared carries
	// at two processes, for reductions and for the other collectives:
	// there the processes' messages cost no more than reading each
	// other's records, and beyond these sizes (measured at 1, 2, 4 and
	// 8 KiB) the messages win. With more processes than that, AlgShared
	// replaces rounds of messages by one barrier and wins wherever the
	// input fits the record (measured at 4 processes up to 4 KiB).
	sharedPairReduce = 2 << 10
	sharedPair       = 4 << 10
	// longVector is where the bandwidth-bound algorithms (ring, scatter-
	// allgather, reduce-scatter-gather) take over.
	longVector = 64 << 10
	// smallBlock is the largest block of Bruck's alltoall. Above it, and
	// below it up to 4 processes, the alltoalls run linear (several steps
	// of the pairwise schedule in flight) from 3 processes: measured on
	// the 2-core Intel Xeon VM (µs, mpibench Alltoall, the slowest rank,
	// medians of 7 samples, 2 alternations, pairwise against linear), at
	// 4 processes 10.0/8.1 at 1 KiB, 22/18.7 at 16 KiB, 69/67 at 64 KiB,
	// 185/192 at 256 KiB and 730/655-729 at 1 MiB; at 8 processes 58/33,
	// 136/106-121, 437/389-415, 889-1107/868-903 and 5640/5421-5576; at 3
	// processes 7.5/6.4, 14.7/13.7, 43.8/40.2, 98-107/93-117 and
	// 448-517/436. At 2 processes the two are one and the same exchange.
	// Only where the Runner lets them (LinearExchanges): not under the
	// timing model, whose recorded runs used the pairwise exchange.
	smallBlock = 256
)

// pairLinearMin is the smallest block of an allgather or alltoall that
// runs linear at 2 processes (where the Runner lets it, LinearExchanges):
// its one pair of messages is then an exchange (Exchanger), whose sends
// take the network's single copy (Caps.SingleCopyMin, 8 KiB on Intel's
// processors with a core each), where the ring, recursive doubling and
// pairwise algorithms send them by Sendrecv, eagerly up to the
// collectives' eager limit. Measured on the 2-core Intel Xeon VM
// (mpibench, µs, the slowest rank, medians of 5-7 samples, 2
// alternations, the former algorithms against linear): Alltoall 4 KiB
// 1.48-1.50/1.52-1.56, 8 KiB 2.24/2.19-2.21, 12 KiB 3.10-3.11/2.53, 16
// KiB 3.68-3.72/2.77-2.86, from 32 KiB to 1 MiB alike; Allgather 12 KiB
// 3.09-3.10/2.47-2.52, 16 KiB 3.60-3.67/2.76-2.84, from 32 KiB alike.
// The v-collectives keep the ring and the pairwise exchange there (not
// measured).
const pairLinearMin = 8 << 10

// The allgathers run linear (every block sent straight to every rank,
// several steps in flight) where the ring would, from 3 processes, and at
// 3 processes whatever the size: in a ring, a block reaches the last rank
// only after every rank on the way has run, and with ranks outnumbering
// cores each hop waits for the scheduler. Measured on the 2-core Intel
// Xeon VM (mpibench Allgather, µs, the slowest rank, medians of 9
// samples, 2 alternations, linear against ring): at 3 processes 64 KiB
// 26.1-26.3/32.2-32.7, 1 MiB 522-544/623-658 (16 KiB 11.2-11.4/11.6-11.8);
// at 4 processes 16 KiB 17.2-17.5/20.1-21.0, 64 KiB 44-46/68-73, 1 MiB
// 768-843/882-890; at 8 processes 64 KiB 265-287/375-426, 256 KiB
// 991-1024/1348-1437, 1 MiB 4778-5433/6950-7487. Below the ring's sizes,
// without the NIC's barrier records (mpibench's no-offload), Bruck lost to
// linear at 3 processes (256 B 7.4-7.6/6.9-7.0, 4 KiB 10.2-10.3/9.1-9.3)
// and won at 4 (recursive doubling, 4 KiB 10.3-10.4/11.7-12.3) and 8 (4
// KiB 40-43/52-53). The allgatherv, which has no other algorithm than the
// ring, runs linear from 3 processes.

// sharedPays reports whether AlgShared should run collective c when every
// process publishes up to share bytes of input (and they fit its record).
//
// A broadcast whose calls run ahead of their check (RunAhead) takes the
// binomial tree instead: the root then sends and returns, where AlgShared
// is a barrier. Measured with 4 and 8 processes on the 2-core Intel Xeon
// VM (mpibench Bcast, µs, the slowest rank, medians of 7 samples, builds
// without and with the run-ahead alternated twice, its ring then 8
// generations deep, see nicemu.RecordRingDepth): at 4 processes
// 2.45-2.50/1.78-1.80 at 8 B and 2.83-2.84/2.22-2.25 at 1 KiB, at 8
// processes 7.24-7.37/5.29-5.58 and 7.58-7.62/6.39-6.51 (Open MPI 1.2-1.9,
// 4.5, 3.5-3.7 and 4.6-5.1). At 2 processes the run-ahead tree lost to
// AlgShared (0.61 against 0.34 µs at 8 B), so it is used only where
// processes outnumber cores.
//
// A scatter running ahead takes its message algorithms likewise: measured
// the same way (Scatter, builds without and with its run-ahead alternated
// twice), at 3 processes 2.57-2.59/1.73-1.76 at 8 B, 2.92/2.15-2.17 at 1
// KiB and 17.5-18.9/5.6 at 16 KiB; at 4 processes 2.63-2.69/1.96-1.98,
// 3.30-3.33/2.40-2.41 and 7.2/5.7; at 8 processes 7.9-8.1/6.0, 10.0-10.4/
// 7.4 and 61-67/23.4-23.7. A reduction or a gather running ahead lost:
// its root waits for everyone's data anyway (at 4 processes a Reduce of
// 1 KiB 3.59/5.00, a Gather of 8 B 2.69/4.32).
func (u *Runner) sharedPays(c Collective, share int) bool {
	if _, ok := u.runAheadBarrier(c); ok {
		return false
	}
	switch {
	case u.Net.Size() > 2 || share <= DatumSize:
		return true
	case c == CollReduce || c == CollAllreduce || c == CollReduceScatterBlock || c == CollScan || c == CollExscan:
		return share <= sharedPairReduce
	}
	return share <= sharedPair
}

// choose returns the algorithm of collective c for a call moving bytes
// (the vector of a reduction, the message of a broadcast, one process's
// block otherwise) on n processes; shared says whether AlgShared should
// run it (the inputs fit the records of an exchange, see sharedPays).
func (u *Runner) choose(c Collective, bytes int, commutative, shared bool) string {
	if len(u.Force) != 0 {
		if alg, ok := u.Force[c]; ok {
			return alg
		}
	}
	n := u.Net.Size()
	if shared {
		return AlgShared
	}
	if u.hierarchyPays(c, bytes, commutative) {
		return AlgHierarchical
	}
	switch c {
	case CollBarrier:
		if u.HW != nil {
			return AlgNIC
		}
		return AlgDissemination
	case CollBcast:
		// Measured on the 2-core reference machine (µs, binomial against
		// multicast), whose two processors sometimes share their caches
		// (a cache line then moves between them in 0.1 µs, not 0.22):
		// at 2 ranks multicast's receiver copies from the root's buffer
		// across the caches and loses (64 KiB 7.5-8.8/14, 1 MiB 63-93/
		// 182), winning only while the caches are shared; at 4 ranks it
		// ties at 64 KiB (32-35/31) and 1 MiB (338-426/360-461) and wins
		// at 256 KiB (125-170/89-94); at 8 ranks it wins from 16 KiB
		// (407-556/98-117) to 256 KiB (501/207-241). Scatter-allgather
		// lost everywhere. Small messages travel with the argument check.
		if u.BcastMulticast && u.HW != nil && n > 2 && bytes >= bcastMulticastMin(n) {
			return AlgNIC
		}
		return AlgBinomial
	case CollReduce:
		return reduceChoice(n, bytes, commutative)
	case CollAllreduce:
		switch {
		case commutative && bytes >= longVector/8 && n > 1:
			return AlgRing
		case !commutative && bytes >= longVector:
			return AlgReduceBcast
		}
		return AlgRecursiveDoubling
	case CollGather:
		if bytes < longVector/int(max(n, 1)) {
			return "binomial"
		}
		return "linear"
	case CollScatter:
		if bytes < longVector/int(max(n, 1)) {
			return "binomial"
		}
		return "linear"
	case CollAllgather:
		switch {
		case n == 2 && u.LinearExchanges && bytes >= pairLinearMin:
			return "linear" // see pairLinearMin
		case n > 2 && u.LinearExchanges && (n == 3 || bytes*n >= longVector):
			return "linear"
		case bytes*n >= longVector:
			return "ring"
		case isPowerOfTwo(n):
			return "recursive-doubling"
		}
		return "bruck"
	case CollAlltoall:
		switch {
		case bytes <= smallBlock && n > 4:
			return "bruck"
		case n > 2 && u.LinearExchanges, n == 2 && u.LinearExchanges && bytes >= pairLinearMin:
			return "linear" // at 2 processes, see pairLinearMin
		}
		return "pairwise"
	case CollReduceScatterBlock:
		switch {
		case !commutative:
			return "reduce-scatter"
		case isPowerOfTwo(n) && bytes*n < longVector:
			return "recursive-halving"
		}
		return "ring"
	case CollReduceScatter:
		if commutative {
			return "ring"
		}
		return "reduce-scatterv"
	case CollScan, CollExscan:
		if bytes >= longVector {
			return "linear"
		}
		return "recursive-doubling"
	case CollAllgatherv:
		if n > 2 && u.LinearExchanges {
			return "linear"
		}
		return "ring"
	case CollGatherv, CollScatterv:
		return "linear"
	case CollAlltoallv:
		if n > 2 && u.LinearExchanges {
			return "linear"
		}
		return "pairwise"
	}
	return ""
}

// bcastMulticastMin is the smallest broadcast on n > 2 processes that the
// NIC's multicast carries. Once a message no longer fits the records of
// an exchange (AlgShared), the binomial tree's rendezvous hops wait for
// one process after another, and with processes outnumbering cores each
// hop waits for the scheduler. Measured on the 2-core Intel Xeon VM
// (mpibench Bcast, µs, the slowest rank, medians of 9 samples, 2 runs,
// multicast against binomial): at 3 processes 16 KiB 6.0-6.6/5.0, 32 KiB
// 8.5/8.7, 64 KiB 11.0-11.2/13.8-14.0; at 4 processes 16 KiB 8.7-8.8/5.1,
// 32 KiB 11.7-11.8/13.8, 64 KiB 12.0/21.7-21.8; at 8 processes 8 KiB
// 15.2-15.4/8.6-13.0, 16 KiB 16.7-17.1/26-34, 64 KiB 24.5-25.2/54.5-54.6;
// at 6 processes 8 KiB 11.1-11.2/6.3-6.7 and 16 KiB 12.8-13.2/18.1-18.6.
func bcastMulticastMin(n int) int {
	if n > 4 {
		return 16 << 10
	}
	return 32 << 10
}

// reduceChoice is the default Reduce algorithm of a vector of bytes on n
// processes. At 2 ranks the binomial tree's root receives and combines
// the whole vector alone; splitting the work pays from 512 KiB (measured
// at 256 KiB, 512 KiB and 1 MiB). Measured again on the 2-core reference
// machine with mpirun's binding (µs, mpibench Reduce, the slowest rank,
// medians of 7 samples, 3 alternations; binomial, reduce-scatter-gather,
// recursive-halving): at 4 ranks the ring pays at 256 KiB (167-212,
// 109-114, 148-274) but the tree wins again at 512 KiB (292-345, 325-643,
// 339-401) and 1 MiB (458-474, 527-658, 472-563) and ties at 2 MiB
// (1036-1383, 1164-1859) and 4 MiB (1855-1927, -, 1552-1999); at 8 ranks
// recursive halving wins at 256 KiB (499-533, 811-922, 446-457) and ties
// at 1 MiB (1794-1936, 1591-2206, 1632-1880), the tree at 64 KiB
// (275-543, 667-673, 556-571). Other sizes were not measured: they keep
// the ring from 256 KiB.
//
// With the AVX2 sums (vecsumAVX2) the tree's root combines twice as fast,
// and the tree keeps 2 and 4 ranks up to 2 MiB. Measured on the 2-core
// Intel Xeon VM (same benchmark, 2 alternations; binomial,
// reduce-scatter-gather, recursive-halving): at 2 ranks 512 KiB 42/53-62,
// 1 MiB 87-88/119-133, 2 MiB 236-238/293-311, 4 MiB 538-544/488-573; at 4
// ranks 256 KiB 68-77/99-100/88-90, 512 KiB 146-153/168-193/188-196, 1 MiB
// 319-339/361-407/359-375, 4 MiB 1509-1523/1376-1387/1495-1502.
//
// Those figures read the inputs from the zero page (see bench's
// newBuffers). With the buffers' pages written, 4 ranks split the work
// from 1 MiB: binomial against reduce-scatter-gather, 3 alternations, 512
// KiB 192-199/218-233, 1 MiB 442-460/365-399, 2 MiB 832-854/730-771, 4
// MiB 1435-2412/1450-1467 (Open MPI 379-394 at 1 MiB); 2 ranks keep the
// tree (1 MiB 110-161/131-132, 4 MiB 502-533/616-637).
func reduceChoice(n, bytes int, commutative bool) string {
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
	case bytes < 4*longVector:
	case isPowerOfTwo(n):
		return AlgRecursiveHalving
	default:
		return AlgReduceScatterGather
	}
	return AlgBinomial
}
