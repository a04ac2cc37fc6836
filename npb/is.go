package npb

// IS, the integer sort kernel of NPB 3.4 (IS/is.c): rank 2^TOTAL_KEYS_LOG_2
// integer keys in [0, 2^MAX_KEY_LOG_2), MAX_ITERATIONS times.
//
// Every process generates its share of the keys (create_seq, with
// find_my_seed jumping the generator to the share's start). Each iteration
// (rank) sorts the local keys into 2^NUM_BUCKETS_LOG_2 buckets by their top
// bits, adds the bucket sizes of all processes with an Allreduce, and gives
// each process a run of consecutive buckets holding about TOTAL_KEYS/np
// keys. An Alltoall of the per-destination key counts and an Alltoallv of
// the bucketed keys move every key to the process owning its bucket, which
// ranks its keys by a counting sort over its key range. Five test keys,
// hidden in the bucket-size vector of the Allreduce, are checked against
// NPB's ranks each iteration (partial verification); at the end the keys
// of the last iteration are sorted with the ranks and checked to be in
// order within and across processes (full_verify).

import (
	"fmt"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	register(Kernel{Name: "IS", Run: runIS, Procs: PowerOfTwo, ProcsRule: "a power of two", Classes: []Class{'S', 'W', 'A', 'B', 'C'}})
}

const (
	// isMaxIterations is MAX_ITERATIONS, the number of timed rankings.
	isMaxIterations = 10
	// isTestArraySize is TEST_ARRAY_SIZE, the number of partial
	// verification keys.
	isTestArraySize = 5
	// isVerifyTag is the tag of full_verify's neighbour exchange.
	isVerifyTag = 1000
	// isMaxBuckets bounds NUM_BUCKETS over the classes: the bucket
	// arrays of the inner loops have this fixed size, so that a masked
	// index needs no bounds check.
	isMaxBuckets = 1024
	// isMaxKey bounds MAX_KEY over the classes (class C's 2^23): the
	// count array of the local ranking has this fixed size, so that a
	// masked index needs no bounds check either. Only the part that the
	// local key range spans is ever written.
	isMaxKey = 1 << 23
)

// isClassParams are a class's problem size (is.c's TOTAL_KEYS_LOG_2,
// MAX_KEY_LOG_2, NUM_BUCKETS_LOG_2, MAX_PROCS) and its partial
// verification data: the global indices of the test keys and their ranks
// (test_index_array, test_rank_array).
type isClassParams struct {
	totalKeysLog2, maxKeyLog2, numBucketsLog2 int
	maxProcs                                  int
	testIndex, testRank                       [isTestArraySize]int64
}

// isParams returns the parameters of class, as is.c defines them.
func isParams(class Class) (isClassParams, bool) {
	switch class {
	case 'S':
		return isClassParams{16, 11, 9, 128,
			[isTestArraySize]int64{48427, 17148, 23627, 62548, 4431},
			[isTestArraySize]int64{0, 18, 346, 64917, 65463}}, true
	case 'W':
		return isClassParams{20, 16, 10, 1024,
			[isTestArraySize]int64{357773, 934767, 875723, 898999, 404505},
			[isTestArraySize]int64{1249, 11698, 1039987, 1043896, 1048018}}, true
	case 'A':
		return isClassParams{23, 19, 10, 1024,
			[isTestArraySize]int64{2112377, 662041, 5336171, 3642833, 4250760},
			[isTestArraySize]int64{104, 17523, 123928, 8288932, 8388264}}, true
	case 'B':
		return isClassParams{25, 21, 10, 1024,
			[isTestArraySize]int64{41869, 812306, 5102857, 18232239, 26860214},
			[isTestArraySize]int64{33422937, 10244, 59149, 33135281, 99}}, true
	case 'C':
		return isClassParams{27, 23, 10, 1024,
			[isTestArraySize]int64{44172927, 72999161, 74326391, 129606274, 21736814},
			[isTestArraySize]int64{61147, 882988, 266290, 133997595, 133525895}}, true
	}
	return isClassParams{}, false
}

// isTestRank returns the rank test key i must have at iteration: NPB's
// test_rank_array value shifted by the class's rule in rank(), since the
// keys altered each iteration move some test keys' ranks.
func isTestRank(class Class, base int64, i, iteration int) int64 {
	it := int64(iteration)
	switch class {
	case 'S':
		if i <= 2 {
			return base + it
		}
		return base - it
	case 'W':
		if i < 2 {
			return base + it - 2
		}
		return base - it
	case 'A':
		if i <= 2 {
			return base + it - 1
		}
		return base - (it - 1)
	case 'B':
		if i == 1 || i == 2 || i == 4 {
			return base + it
		}
		return base - it
	case 'C':
		if i <= 2 {
			return base + it
		}
		return base - it
	}
	return base
}

// isFindMySeed returns the generator state that starts process kn's share
// of a sequence of nn numbers split evenly among np processes: s·a^(kn·nq)
// mod 2^46 with nq = nn/np, a power of two (is.c's find_my_seed: square a
// log2(nq) times, then raise the result to kn by binary powering).
func isFindMySeed(kn, np int, nn int64, s, a float64) float64 {
	mq := 0
	for nq := nn / int64(np); nq > 1; nq /= 2 {
		mq++
	}
	an := a
	for range mq {
		Randlc(&an, an)
	}
	t1, t2 := s, an
	for kk := kn; ; kk /= 2 {
		if kk%2 != 0 {
			Randlc(&t1, t2)
		}
		if kk/2 == 0 {
			break
		}
		Randlc(&t2, t2)
	}
	return t1
}

// isCreateSeq fills keys with NPB's keys from generator state seed
// (create_seq): each key is maxKey/4 times the sum of four consecutive
// uniform numbers, added in order and truncated. The generator runs in the
// exact integer form of Randlc (see randlc.go), which gives NPB's numbers
// bit for bit.
func isCreateSeq(keys []int32, seed float64, maxKey int) {
	k := float64(maxKey / 4)
	s := uint64(seed)
	const a = uint64(A)
	for i := range keys {
		s = s * a & mod46
		x := float64(s) * r46
		s = s * a & mod46
		x += float64(s) * r46
		s = s * a & mod46
		x += float64(s) * r46
		s = s * a & mod46
		x += float64(s) * r46
		keys[i] = int32(k * x)
	}
}

// isFailure is a failed partial verification: the iteration, the test key,
// the rank computed and the rank NPB expects.
type isFailure struct {
	iteration, key int
	got, want      int64
}

// isState is one process's part of an IS run: is.c's global arrays and
// counters, allocated once.
type isState struct {
	c        *mpi.Comm
	me, np   int
	class    Class
	p        isClassParams
	corrupt  bool // Options.Corrupt: report every test-key rank one too high
	numKeys  int  // keys generated per process (num_keys)
	maxKey   int  // MAX_KEY
	nb       int  // NUM_BUCKETS
	shift    uint // MAX_KEY_LOG_2 - NUM_BUCKETS_LOG_2
	keyArray []int32
	// keyBuff1 holds the keys grouped by destination before the
	// exchange; keyBuff2 receives the keys of the other processes. The
	// keys this process
	// keeps stay in keyBuff1 (self below): the exchange does not copy
	// them, and the ranking counts them where they are.
	keyBuff1, keyBuff2 []int32
	// rankCounts are the key counts of the local key range (is.c's
	// key_buff1 after the exchange).
	rankCounts *[isMaxKey]int32
	// self is where the keys this process keeps lie in keyBuff1 (from)
	// and where the exchange leaves their place in keyBuff2 (to).
	self isSelfPart
	// counts are the local bucket sizes (bucket_size), NUM_BUCKETS of
	// them in use, which isPartition then turns into its places in
	// keyBuff1 (bucket_ptrs); partial holds the sizes counted over four
	// interleaved subsequences.
	counts  *[isMaxBuckets]int32
	partial *[4][isMaxBuckets]int32
	// lines gathers the keys of each bucket's next line where the bucket
	// sort goes through lines (is_lines.go), made at its first use.
	lines *isLines
	// bucketSize holds the local bucket sizes and, in its last
	// isTestArraySize entries, the test keys found locally;
	// bucketSizeTotals is their sum over all processes.
	bucketSize, bucketSizeTotals []int32
	// distrib1 and distrib2 are the first and last bucket of each
	// process after the redistribution (process_bucket_distrib_ptr1/2).
	distrib1, distrib2                         []int
	sendCount, sendDispl, recvCount, recvDispl []int

	passed   int // passed_verification
	failures []isFailure
	// The key range and the number of keys of the last ranking, which
	// full_verify sorts (key_buff_ptr_global, total_local_keys).
	minKey, localKeys int
}

// isSelfPart locates the keys a process sends itself: n keys at
// keyBuff1[from:], whose place among the received keys is keyBuff2[to:].
type isSelfPart struct{ from, to, n int }

// newISState allocates the arrays of this process (is.c's alloc_space).
func newISState(c *mpi.Comm, class Class, p isClassParams, o Options) *isState {
	np := c.Size()
	s := &isState{
		c: c, me: c.Rank(), np: np, class: class, p: p, corrupt: o.Corrupt,
		numKeys: (1 << p.totalKeysLog2) / np,
		maxKey:  1 << p.maxKeyLog2,
		nb:      1 << p.numBucketsLog2,
		shift:   uint(p.maxKeyLog2 - p.numBucketsLog2),
	}
	// NPB's buffer size for the received keys; the process holding the
	// most keys after the redistribution has somewhat more than
	// numKeys.
	size := 3 * s.numKeys / 2
	switch {
	case np >= 1024:
		size = 13 * s.numKeys / 2
	case np >= 512:
		size = 4 * s.numKeys
	case np >= 256:
		size = 5 * s.numKeys / 2
	}
	s.keyArray = hugeSlice[int32](size)
	s.keyBuff1 = hugeSlice[int32](size)
	s.rankCounts = (*[isMaxKey]int32)(hugeSlice[int32](isMaxKey))
	s.keyBuff2 = hugeSlice[int32](size)
	s.bucketSize = make([]int32, s.nb+isTestArraySize)
	s.bucketSizeTotals = make([]int32, s.nb+isTestArraySize)
	s.counts = new([isMaxBuckets]int32)
	s.partial = new([4][isMaxBuckets]int32)
	s.distrib1 = make([]int, np)
	s.distrib2 = make([]int, np)
	s.sendCount = make([]int, np)
	s.sendDispl = make([]int, np)
	s.recvCount = make([]int, np)
	s.recvDispl = make([]int, np)
	s.failures = make([]isFailure, 0, isTestArraySize*(isMaxIterations+1))
	return s
}

// rank is one ranking of the keys (is.c's rank): bucket the local keys,
// redistribute them by bucket, count them over the local key range, and
// check the test keys that fall into it.
func (s *isState) rank(iteration int) error {
	// shift is below 32; masking it says so to the compiler, which then
	// drops the check for oversized shifts from the loops.
	nb, shift := s.nb, s.shift&31
	keys := s.keyArray[:s.numKeys]
	s.bucketLocal(keys, iteration, shift)
	// NPB counts one operation per key ranked: half of it is the bucket
	// sort of this process's keys, half the ranking of those it receives
	// (see below), so that the load imbalance of the buckets shows.
	mpi.Compute(0.5 * float64(len(keys)))

	if err := mpi.Allreduce(s.c, s.bucketSize, s.bucketSizeTotals, mpi.Sum); err != nil {
		return err
	}
	totals := s.bucketSizeTotals[:nb] // the bucket sizes of all processes
	s.assignBuckets(totals, len(keys))
	if err := s.exchangeKeys(); err != nil {
		return err
	}

	minKey, maxKey, m, localKeys := s.localRange(totals, shift)
	// cnt[k-minKey] is the number of local keys ≤ k. (NPB leaves m out
	// of the counts, to keep them within 32 bits.)
	sp := s.self
	cnt := isRankCounts(s.rankCounts, minKey, max(maxKey-minKey+1, 0),
		s.keyBuff2[:sp.to], s.keyBuff1[sp.from:sp.from+sp.n], s.keyBuff2[sp.to+sp.n:localKeys])
	mpi.Compute(0.5 * float64(localKeys))
	s.partialVerify(iteration, cnt, minKey, maxKey, m)

	s.minKey, s.localKeys = minKey, localKeys
	return nil
}

// bucketLocal is the local half of a ranking: it alters two keys, so
// that every iteration ranks a different sequence, puts the test keys
// held here at the top of bucketSize, and counts and sorts the local keys
// by bucket, leaving their counts in bucketSize for the Allreduce that
// follows.
func (s *isState) bucketLocal(keys []int32, iteration int, shift uint) {
	nb := s.nb
	// Alter two keys each iteration, so that the ranking differs.
	if s.me == 0 {
		keys[iteration] = int32(iteration)
		keys[iteration+isMaxIterations] = int32(s.maxKey - iteration)
	}

	// The test keys held here go into the top of bucketSize, so that the
	// Allreduce of the bucket sizes tells every process their values.
	clear(s.bucketSize)
	for i, idx := range s.p.testIndex {
		if idx/int64(s.numKeys) == int64(s.me) {
			s.bucketSize[nb+i] = keys[idx%int64(s.numKeys)]
		}
	}

	// Count the keys of each bucket, then sort them into their buckets
	// (is.c's bucket sort). Each process receives a run of consecutive
	// buckets (assignBuckets), so the keys it receives lie together,
	// after those of the processes before it; and sorted by bucket they
	// come to the ranking in clusters, each bucket's keys counted within
	// that bucket's span of the counts (a few KiB), where keys in the
	// order they were made would land all over the process's range of
	// counts.
	counts := s.counts
	isBucketCount(counts, s.partial, keys, shift)
	copy(s.bucketSize, counts[:nb]) // the first nb: copy stops at counts' end
	s.partition(keys, shift)
}

// assignBuckets shares the buckets out among the processes from the
// bucket sizes summed over all of them, totals: process j gets the
// buckets up to the one where the running total of all processes' keys
// reaches (j+1)·numKeys, so that each ranks about as many keys, and this
// process's keys in those buckets are to be sent to j. nkeys is the
// number of local keys.
func (s *isState) assignBuckets(totals []int32, nkeys int) {
	bs := s.bucketSize[:len(totals)] // this process's bucket sizes
	clear(s.distrib1)
	clear(s.distrib2)
	j := 0
	var sum, local int64
	for i := range totals {
		sum += int64(totals[i])
		local += int64(bs[i])
		if j < s.np && sum >= int64(j+1)*int64(s.numKeys) {
			s.sendCount[j] = int(local)
			if j == 0 {
				s.sendDispl[0] = 0
			} else {
				s.sendDispl[j] = s.sendDispl[j-1] + s.sendCount[j-1]
				s.distrib1[j] = s.distrib2[j-1] + 1
			}
			s.distrib2[j] = i
			j++
			local = 0
		}
	}
	// Processes left without buckets (possible when np nears the number
	// of buckets) get none: an empty range.
	for ; j < s.np; j++ {
		s.sendCount[j] = 0
		s.sendDispl[j] = nkeys
		s.distrib1[j] = 1
	}
}

// exchangeKeys sends every process the keys of its buckets: it exchanges
// the counts, so that each process knows where the keys from each other
// one go, then the keys, into keyBuff2. The keys this process keeps stay
// in keyBuff1 (s.self), since copying them would be work the ranking
// does not need.
func (s *isState) exchangeKeys() error {
	if err := mpi.Alltoall(s.c, s.sendCount, s.recvCount); err != nil {
		return err
	}
	total := 0
	for i, n := range s.recvCount {
		s.recvDispl[i] = total
		total += n
	}
	if total > len(s.keyBuff2) {
		// More keys than NPB's buffer size: grow the buffers (NPB
		// would overrun them). The sizes are validated for the usual
		// process counts, so this does not happen in practice.
		s.keyBuff2 = make([]int32, total)
		s.keyArray = append(s.keyArray, make([]int32, total-len(s.keyArray))...)
	}
	me := s.me
	s.self = isSelfPart{from: s.sendDispl[me], to: s.recvDispl[me], n: s.sendCount[me]}
	s.sendCount[me], s.recvCount[me] = 0, 0
	return mpi.Alltoallv(s.c, s.keyBuff1, s.sendCount, s.sendDispl, s.keyBuff2, s.recvCount, s.recvDispl)
}

// localRange returns this process's key range after the exchange, that of
// its buckets, [minKey, maxKey]; m, the number of keys of the processes
// before it, which the ranks of its keys start from; and localKeys, the
// number of keys it holds. totals are the bucket sizes over all
// processes.
func (s *isState) localRange(totals []int32, shift uint) (minKey, maxKey int, m int64, localKeys int) {
	shift &= 31 // below 32 anyway: no check for oversized shifts
	minKey = s.distrib1[s.me] << shift
	maxKey = (s.distrib2[s.me]+1)<<shift - 1
	for k := 0; k < s.me; k++ {
		for i := s.distrib1[k]; i <= s.distrib2[k]; i++ {
			m += int64(totals[i])
		}
	}
	for i := s.distrib1[s.me]; i <= s.distrib2[s.me]; i++ {
		localKeys += int(totals[i])
	}
	return minKey, maxKey, m, localKeys
}

// partialVerify checks the ranks of the test keys in this process's range
// [minKey, maxKey] against NPB's, counting the passes and recording the
// failures: the rank of a key is the number of keys less than it, m
// before this process and the local counts cnt after.
func (s *isState) partialVerify(iteration int, cnt []int32, minKey, maxKey int, m int64) {
	nb := s.nb
	for i := range isTestArraySize {
		k := int(s.bucketSizeTotals[nb+i])
		if k < minKey || k > maxKey {
			continue
		}
		got := m
		if k > minKey {
			got += int64(cnt[k-1-minKey])
		}
		if s.corrupt {
			got++
		}
		want := isTestRank(s.class, s.p.testRank[i], i, iteration)
		if got == want {
			s.passed++
		} else {
			s.failures = append(s.failures, isFailure{iteration, i, got, want})
		}
	}
}

// partition sorts keys into keyBuff1 by bucket, s.counts holding the
// number of keys of each (isPartition, through lines where isLinesFit),
// and leaves there the place after each bucket's last key. On one process
// every key stays: a copy, where the bucket sort costs more than the
// ranking then saves.
func (s *isState) partition(keys []int32, shift uint) {
	buf := s.keyBuff1[:len(keys)]
	switch {
	case s.np == 1:
		copy(buf, keys)
	case isLinesFit(buf, keys):
		if s.lines == nil {
			s.lines = new(isLines)
		}
		isPartitionLines(buf, s.counts, s.nb, keys, shift, s.lines)
	default:
		isPartition(buf, s.counts, s.nb, keys, shift)
	}
}

// isRankCounts is the local ranking: it counts the keys of each value in
// [minKey, minKey+span) over the parts into cnt, accumulates the counts
// so that cnt[k-minKey] is the number of keys ≤ k, and returns
// cnt[:span]. Every key must lie in that range, and span be at most
// isMaxKey.
func isRankCounts(cnt *[isMaxKey]int32, minKey, span int, parts ...[]int32) []int32 {
	c := cnt[:span]
	clear(c)
	// k-minKey is below span, so the mask changes nothing; it only spares
	// the bounds check in this loop over every key.
	for _, keys := range parts {
		for _, k := range keys {
			cnt[uint(int(k)-minKey)&(isMaxKey-1)]++
		}
	}
	var acc int32
	for i, n := range c {
		acc += n
		c[i] = acc
	}
	return c
}

// isPartition copies keys into buf sorted by their bucket k>>shift, in
// their order within each bucket (is.c's key_buff1): counts holds the
// number of keys of each of the nb buckets, and isPartition turns it into
// the place in buf after each bucket's last key (bucket_ptrs). Keys are
// in [0, MAX_KEY), so the bucket is below isMaxBuckets and the mask
// changes nothing; it only spares the bounds checks.
func isPartition(buf []int32, counts *[isMaxBuckets]int32, nb int, keys []int32, shift uint) {
	shift &= 31
	var at int32
	for b, n := range counts[:nb] {
		counts[b] = at
		at += n
	}
	for _, k := range keys {
		b := uint32(k) >> shift & (isMaxBuckets - 1)
		p := counts[b]
		buf[p] = k
		counts[b] = p + 1
	}
}

// isBucketCount sets counts to the number of keys in each bucket
// k>>shift. Four tables count every fourth key, so that consecutive keys
// of the same bucket do not wait on each other's increment; their sum is
// the count.
func isBucketCount(counts *[isMaxBuckets]int32, partial *[4][isMaxBuckets]int32, keys []int32, shift uint) {
	const mask = isMaxBuckets - 1
	shift &= 31 // below 32 anyway: no check for oversized shifts
	t0, t1, t2, t3 := &partial[0], &partial[1], &partial[2], &partial[3]
	clear(t0[:])
	clear(t1[:])
	clear(t2[:])
	clear(t3[:])
	n := len(keys) &^ 3
	for i := 0; i < n; i += 4 {
		k := keys[i : i+4 : i+4]
		t0[uint32(k[0])>>shift&mask]++
		t1[uint32(k[1])>>shift&mask]++
		t2[uint32(k[2])>>shift&mask]++
		t3[uint32(k[3])>>shift&mask]++
	}
	for _, k := range keys[n:] {
		t0[uint32(k)>>shift&mask]++
	}
	for i := range counts {
		counts[i] = t0[i] + t1[i] + t2[i] + t3[i]
	}
}

// fullVerify sorts the keys of the last ranking with their ranks and
// counts the keys out of order, including against the largest key of the
// process before (is.c's full_verify).
func (s *isState) fullVerify() (int, error) {
	// The kept keys join the received ones first (is.c has them there
	// after its Alltoallv); this is outside the timed part, as NPB's
	// full_verify.
	sp := s.self
	copy(s.keyBuff2[sp.to:sp.to+sp.n], s.keyBuff1[sp.from:sp.from+sp.n])
	cnt := s.rankCounts
	sorted := s.keyArray[:s.localKeys]
	for _, k := range s.keyBuff2[:s.localKeys] {
		r := cnt[int(k)-s.minKey] - 1
		cnt[int(k)-s.minKey] = r
		sorted[r] = k
	}
	last := 0
	if s.localKeys > 0 {
		last = s.localKeys - 1
	}

	var prev [1]int32
	var req *mpi.Request
	var err error
	if s.me > 0 {
		if req, err = mpi.Irecv(s.c, prev[:], s.me-1, isVerifyTag); err != nil {
			return 0, err
		}
	}
	if s.me < s.np-1 {
		if err := mpi.Send(s.c, s.keyArray[last:last+1], s.me+1, isVerifyTag); err != nil {
			return 0, err
		}
	}
	if req != nil {
		if _, err := req.Wait(); err != nil {
			return 0, err
		}
	}

	bad := 0
	if s.me > 0 && s.localKeys > 0 && prev[0] > sorted[0] {
		bad++
	}
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1] > sorted[i] {
			bad++
		}
	}
	return bad, nil
}

// runIS runs IS on every process of c (is.c's main).
func runIS(c *mpi.Comm, class Class, o Options) (*Result, error) {
	wrap := func(err error) error { return fmt.Errorf("npb: is: %w", err) }
	p, ok := isParams(class)
	if !ok {
		return nil, fmt.Errorf("npb: is: class %v: %w", class, ErrUnsupported)
	}
	np := c.Size()
	if !PowerOfTwo(np) || np > p.maxProcs {
		return nil, fmt.Errorf("npb: is: %d processes: %w (class %v needs a power of two up to %d)", np, ErrUnsupported, class, p.maxProcs)
	}
	s := newISState(c, class, p, o)
	totalKeys := int64(1) << p.totalKeysLog2

	// Each process generates its share of the 4·TOTAL_KEYS numbers.
	seed := isFindMySeed(s.me, np, 4*totalKeys, Seed, A)
	isCreateSeq(s.keyArray[:s.numKeys], seed, s.maxKey)

	maxTime, err := s.timedRankings()
	if err != nil {
		return nil, wrap(err)
	}
	detail, passed, err := s.verifyAll()
	if err != nil {
		return nil, wrap(err)
	}
	if s.me != 0 {
		return &Result{Kernel: "IS", Class: class, NP: np}, nil
	}
	want := isTestArraySize*isMaxIterations + np
	return &Result{
		Kernel:     "IS",
		Class:      class,
		Size:       fmt.Sprint(totalKeys),
		Iterations: isMaxIterations,
		NP:         np,
		Seconds:    maxTime,
		Mops:       Mops(float64(isMaxIterations)*float64(totalKeys), maxTime),
		Operation:  "keys ranked",
		Verified:   passed == want,
		Detail:     detail,
	}, nil
}

// timedRankings runs one untimed ranking to touch all data and code, then
// the timed iterations with the partial verifications' counts reset, and
// returns the largest time over the processes (on rank 0).
func (s *isState) timedRankings() (float64, error) {
	if err := s.rank(1); err != nil {
		return 0, err
	}
	s.passed, s.failures = 0, s.failures[:0]
	start := mpi.Wtime() // NPB times with MPI_Wtime: virtual time under -clock virtual
	for it := 1; it <= isMaxIterations; it++ {
		if err := s.rank(it); err != nil {
			return 0, err
		}
	}
	elapsed := mpi.Wtime() - start
	maxTime := make([]float64, 1)
	if err := mpi.Reduce(s.c, []float64{elapsed}, maxTime, mpi.Max, 0); err != nil {
		return 0, err
	}
	return maxTime[0], nil
}

// verifyAll adds the full verification of the sorted keys to the partial
// ones of the timed iterations and returns, on rank 0, the verification
// report and the total of passed verifications over all processes.
func (s *isState) verifyAll() (string, int, error) {
	bad, err := s.fullVerify()
	if err != nil {
		return "", 0, err
	}
	if bad == 0 {
		s.passed++
	}
	return s.gatherVerification(bad)
}

// gatherVerification collects every process's verification counts and
// failures at rank 0 and returns there the verification report and the
// total of passed verifications (NPB's reduced passed_verification).
func (s *isState) gatherVerification(bad int) (string, int, error) {
	const nf = 4 // int64s per failure record
	mine := []int64{int64(s.passed), int64(bad), int64(len(s.failures))}
	var all []int64
	if s.me == 0 {
		all = make([]int64, 3*s.np)
	}
	if err := mpi.Gather(s.c, mine, all, 0); err != nil {
		return "", 0, err
	}
	recs := make([]int64, 0, nf*len(s.failures))
	for _, f := range s.failures {
		recs = append(recs, int64(f.iteration), int64(f.key), f.got, f.want)
	}
	var allRecs []int64
	var counts, displs []int
	if s.me == 0 {
		counts, displs = make([]int, s.np), make([]int, s.np)
		n := 0
		for r := range s.np {
			counts[r], displs[r] = nf*int(all[3*r+2]), n
			n += counts[r]
		}
		allRecs = make([]int64, n)
	}
	if err := mpi.Gatherv(s.c, recs, allRecs, counts, displs, 0); err != nil {
		return "", 0, err
	}
	if s.me != 0 {
		return "", 0, nil
	}

	var b strings.Builder
	passed, partial, unsorted := 0, 0, 0
	for r := range s.np {
		passed += int(all[3*r])
		for i := displs[r]; i < displs[r]+counts[r]; i += nf {
			fmt.Fprintf(&b, " Failed partial verification: iteration %d, processor %d, test key %d, key rank %d (want %d)\n",
				allRecs[i], r, allRecs[i+1], allRecs[i+2], allRecs[i+3])
		}
		if n := all[3*r+1]; n != 0 {
			fmt.Fprintf(&b, " Processor %d:  Full_verify: number of keys out of sort: %d\n", r, n)
			unsorted++
		}
	}
	partial = passed - (s.np - unsorted)
	fmt.Fprintf(&b, " Partial verification: %d of %d test-key ranks correct\n", partial, isTestArraySize*isMaxIterations)
	fmt.Fprintf(&b, " Full verification: keys in order on %d of %d processes\n", s.np-unsorted, s.np)
	fmt.Fprintf(&b, " Passed verifications: %d (want %d = %d*%d + %d)\n",
		passed, isTestArraySize*isMaxIterations+s.np, isTestArraySize, isMaxIterations, s.np)
	return b.String(), passed, nil
}
