package collectives

import "testing"

// TestSharedPays: at two processes AlgShared runs inputs up to the
// measured crossovers (smaller for reductions, and for allgathers where
// the host's tuning says), or without the hardware
// up to sharedPairMessages whatever the collective, beyond two wherever
// the record holds them, but for the allreduces on a power of two
// processes whose vectors come to 64 KiB together, and a data word
// always.
func TestSharedPays(t *testing.T) {
	cases := append(sharedPaysPairHW(), sharedPaysPair()...)
	cases = append(cases, sharedPaysBeyondTwo()...)
	cases = append(cases, sharedPaysBeyondTwoHW()...)
	checkSharedPays(t, cases)
	checkSharedPaysBound(t)
}

// sharedPaysCase is a call of coll on n processes, with the hardware or
// not, of share bytes, and whether AlgShared pays.
type sharedPaysCase struct {
	n     int
	hw    bool
	coll  Collective
	share int
	want  bool
}

// sharedPaysPairHW: at two processes with the hardware, up to the
// measured crossovers (smaller for reductions), and a data word always.
func sharedPaysPairHW() []sharedPaysCase {
	return []sharedPaysCase{
		{2, true, CollBcast, sharedPair, true},
		{2, true, CollBcast, sharedPair + 1, false},
		{2, true, CollAlltoall, sharedPair + 1, false},
		{2, true, CollAllgather, sharedPair, true},
		{2, true, CollAllreduce, sharedPairReduce, true},
		{2, true, CollAllreduce, sharedPairReduce + 1, false},
		{2, true, CollReduce, sharedPairReduce + 1, false},
		{2, true, CollReduce, DatumSize, true},
	}
}

// sharedPaysPair: at two processes without the hardware, up to
// sharedPairMessages whatever the collective.
func sharedPaysPair() []sharedPaysCase {
	return []sharedPaysCase{
		{2, false, CollBcast, sharedMessageRecord, true},
		{2, false, CollBcast, sharedMessageRecord + 1, false},
		{2, false, CollReduce, sharedMessageRecord, true},
		{2, false, CollAlltoall, sharedMessageRecord + 1, false},
	}
}

// sharedPaysBeyondTwo: beyond two processes without the hardware,
// wherever the record holds the inputs, but for the allreduces on a power
// of two processes whose vectors come to 64 KiB together.
func sharedPaysBeyondTwo() []sharedPaysCase {
	return []sharedPaysCase{
		{3, false, CollAllreduce, 16 << 10, true},
		{3, false, CollBcast, sharedMessageRecord, true},
		{3, false, CollBcast, sharedMessageRecord + 1, false},
		{4, false, CollAlltoall, 16 << 10, true},
		{4, false, CollAlltoall, sharedMessages/3 + 1, false},
		{4, false, CollAllreduce, 16<<10 - 8, true},
		{4, false, CollAllreduce, 16 << 10, false},
		{16, false, CollAllreduce, 4<<10 - 8, true},
		{16, false, CollAllreduce, 4 << 10, false},
		{16, false, CollAllgather, sharedMessages / 15, true},
		{16, false, CollAllgather, sharedMessages/15 + 1, false},
		{16, false, CollReduce, sharedMessages / 2 / 15, true},
		{16, false, CollReduce, sharedMessages/2/15 + 1, false},
		{4, false, CollGather, sharedMessages / 2 / 3, true},
		{4, false, CollGather, sharedMessages/2/3 + 1, false},
		{4, false, CollScatter, sharedMessages / 3, true},
		{4, false, CollScatter, sharedMessages/3 + 1, false},
		{4, false, CollBcast, sharedMessages / 3, true},
		{12, false, CollAllreduce, sharedMessages / 11, true},
		{12, false, CollAllreduce, sharedMessages/11 + 1, false},
	}
}

// sharedPaysBeyondTwoHW: beyond two processes with the hardware.
func sharedPaysBeyondTwoHW() []sharedPaysCase {
	return []sharedPaysCase{
		{4, true, CollReduce, 16 << 10, true},
		{12, true, CollAllreduce, 16 << 10, true},
	}
}

// checkSharedPays checks sharedPays on every case.
func checkSharedPays(t *testing.T, cases []sharedPaysCase) {
	t.Helper()
	for _, tc := range cases {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, LinearExchanges: true}
		if tc.hw {
			u.HW = &memHW{}
		}
		if got := u.sharedPays(tc.coll, tc.share, u.method()); got != tc.want {
			t.Errorf("%d processes, hardware %v, %v of %d bytes: sharedPays %v, want %v", tc.n, tc.hw, tc.coll, tc.share, got, tc.want)
		}
	}
}

// checkSharedPaysBound checks the host's bound of an allgather's block at
// two processes.
func checkSharedPaysBound(t *testing.T) {
	t.Helper()
	for _, tc := range []struct {
		n, bound, share int
		want            bool
	}{
		{2, 3 << 10, 3 << 10, true},
		{2, 3 << 10, 3<<10 + 1, false},
		{2, 0, sharedPair, true},
		{3, 3 << 10, sharedPair, true},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, HW: &memHW{}, Tuning: Tuning{PairAllgatherShared: tc.bound}}
		if got := u.sharedPays(CollAllgather, tc.share, u.method()); got != tc.want {
			t.Errorf("%d processes, bound %d: allgather of %d bytes: sharedPays %v, want %v", tc.n, tc.bound, tc.share, got, tc.want)
		}
	}
}

// TestBcastSelection: broadcasts of 32 KiB and more among 3 or 4 ranks,
// and of 16 KiB and more among more, go by multicast where the Runner
// allows it and has the hardware, by the binomial tree otherwise.
func TestBcastSelection(t *testing.T) {
	for _, tc := range []struct {
		n, bytes  int
		multicast bool
		want      string
	}{
		{2, 1 << 20, true, AlgBinomial},
		{3, 64 << 10, true, AlgNIC},
		{3, 64 << 10, false, AlgBinomial},
		{3, 16 << 10, true, AlgBinomial},
		{4, 16 << 10, true, AlgBinomial},
		{4, 32 << 10, true, AlgNIC},
		{4, 64 << 10, true, AlgNIC},
		{5, 8 << 10, true, AlgBinomial},
		{5, 16 << 10, true, AlgNIC},
		{8, 1 << 20, true, AlgNIC},
		{8, 1 << 20, false, AlgBinomial},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, HW: &memHW{}, BcastMulticast: tc.multicast}
		if got := u.choose(CollBcast, tc.bytes, true, false); got != tc.want {
			t.Errorf("%d processes, %d bytes, multicast allowed %v: %s, want %s", tc.n, tc.bytes, tc.multicast, got, tc.want)
		}
	}
	u := &Runner{Net: &memNet{w: newMemWorld(4)}, BcastMulticast: true}
	if got := u.choose(CollBcast, 1<<20, true, false); got != AlgBinomial {
		t.Errorf("without hardware: %s, want %s", got, AlgBinomial)
	}
}

// TestReduceSelection: long vectors of a commutative operation split the
// work where that was measured to pay (2 ranks from 512 KiB, 4 ranks at
// 256 KiB only, 8 ranks from 256 KiB by recursive halving, other sizes
// by the ring from 256 KiB); everything else goes up the binomial tree.
// With the AVX2 sums, 2 ranks keep the tree up to 2 MiB and 4 ranks up
// to 512 KiB; the test runs both ways.
func TestReduceSelection(t *testing.T) {
	defer func(old bool) { vecsumAVX2 = old }(vecsumAVX2)
	vecsumAVX2 = true
	for _, tc := range []struct {
		n, bytes int
		want     string
	}{
		{2, 1 << 20, AlgBinomial},
		{2, 2 << 20, AlgBinomial},
		{2, 4 << 20, AlgReduceScatterGather},
		{4, 256 << 10, AlgBinomial},
		{4, 512 << 10, AlgBinomial},
		{4, 1 << 20, AlgReduceScatterGather},
		{4, 4 << 20, AlgReduceScatterGather},
		{3, 256 << 10, AlgReduceScatterGather},
		{8, 256 << 10, AlgRecursiveHalving},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}}
		if got := u.choose(CollReduce, tc.bytes, true, false); got != tc.want {
			t.Errorf("AVX2 sums: %d processes, %d bytes: %s, want %s", tc.n, tc.bytes, got, tc.want)
		}
	}
	vecsumAVX2 = false
	for _, tc := range []struct {
		n, bytes    int
		commutative bool
		want        string
	}{
		{2, 256 << 10, true, AlgBinomial},
		{2, 1 << 20, true, AlgReduceScatterGather},
		{2, 1 << 20, false, AlgBinomial},
		{4, 64 << 10, true, AlgBinomial},
		{4, 256 << 10, true, AlgReduceScatterGather},
		{4, 1 << 20, true, AlgBinomial},
		{8, 16 << 10, true, AlgBinomial},
		{8, 32 << 10, true, AlgRecursiveHalving},
		{8, 256 << 10, true, AlgRecursiveHalving},
		{16, 32 << 10, true, AlgRecursiveHalving},
		{12, 64 << 10, true, AlgBinomial},
		{8, 1 << 20, false, AlgBinomial},
		{16, 1 << 20, true, AlgRecursiveHalving},
		{3, 256 << 10, true, AlgReduceScatterGather},
		{6, 128 << 10, true, AlgBinomial},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, LinearExchanges: tc.n >= 8}
		if got := u.choose(CollReduce, tc.bytes, tc.commutative, false); got != tc.want {
			t.Errorf("%d processes, %d bytes, commutative %v: %s, want %s", tc.n, tc.bytes, tc.commutative, got, tc.want)
		}
	}
}

// TestAlltoallSelection: from 3 processes the alltoalls run linear when
// the Runner lets them (LinearExchanges), pairwise otherwise (under a
// timing model); Bruck's takes small blocks from 5 processes either way.
// At 2 processes Alltoall runs linear from pairLinearMin, Alltoallv
// pairwise.
func TestAlltoallSelection(t *testing.T) {
	for _, tc := range []struct {
		n, bytes int
		linear   bool
		want     string
	}{
		{2, 64 << 10, true, "linear"},
		{2, pairLinearMin - 1, true, "pairwise"},
		{2, 64 << 10, false, "pairwise"},
		{4, 64 << 10, true, "linear"},
		{4, 64 << 10, false, "pairwise"},
		{8, 64, true, "bruck"},
		{8, 64 << 10, true, "linear"},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, LinearExchanges: tc.linear}
		if got := u.choose(CollAlltoall, tc.bytes, true, false); got != tc.want {
			t.Errorf("%d processes, %d bytes, linear %v: alltoall %s, want %s", tc.n, tc.bytes, tc.linear, got, tc.want)
		}
		want := tc.want
		switch {
		case want == "bruck":
			want = "linear" // alltoallv has no Bruck
		case tc.n == 2:
			want = "pairwise" // alltoallv keeps it at 2 processes
		}
		if got := u.choose(CollAlltoallv, tc.bytes, true, false); got != want {
			t.Errorf("%d processes, %d bytes, linear %v: alltoallv %s, want %s", tc.n, tc.bytes, tc.linear, got, want)
		}
	}
}

// TestAllgatherSelection: the allgathers run linear where the ring would,
// from 3 processes, and at 3 processes whatever the size, when the Runner
// lets them (LinearExchanges); the ring, recursive doubling and Bruck's
// otherwise. At 2 processes Allgather runs linear from pairLinearMin,
// Allgatherv by the ring.
func TestAllgatherSelection(t *testing.T) {
	for _, tc := range []struct {
		n, bytes      int
		linear        bool
		want, wantVar string
	}{
		{2, 64 << 10, true, "linear", "ring"},
		{2, 64 << 10, false, "ring", "ring"},
		{2, pairLinearMin - 1, true, "recursive-doubling", "ring"},
		{3, 256, true, "linear", "linear"},
		{3, 256, false, "bruck", "ring"},
		{4, 1 << 10, true, "recursive-doubling", "linear"},
		{4, 16 << 10, true, "linear", "linear"},
		{4, 16 << 10, false, "ring", "ring"},
		{6, 1 << 10, true, "bruck", "linear"},
		{8, 8 << 10, true, "linear", "linear"},
		{8, 8 << 10, false, "ring", "ring"},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, LinearExchanges: tc.linear}
		if got := u.choose(CollAllgather, tc.bytes, true, false); got != tc.want {
			t.Errorf("%d processes, %d bytes, linear %v: allgather %s, want %s", tc.n, tc.bytes, tc.linear, got, tc.want)
		}
		if got := u.choose(CollAllgatherv, tc.bytes, true, false); got != tc.wantVar {
			t.Errorf("%d processes, linear %v: allgatherv %s, want %s", tc.n, tc.linear, got, tc.wantVar)
		}
	}
}

// TestRootedSelection: gathers and scatters take the binomial tree while
// their blocks together are short, linear above; at 2 processes linear
// from their pair thresholds, unless under a timing model.
func TestRootedSelection(t *testing.T) {
	for _, tc := range []struct {
		n, bytes              int
		linear                bool
		wantGather, wantScatt string
	}{
		{2, pairGatherLinearMin - 1, true, "binomial", "binomial"},
		{2, pairGatherLinearMin, true, "linear", "binomial"},
		{2, pairScatterLinearMin - 1, true, "linear", "binomial"},
		{2, pairScatterLinearMin, true, "linear", "linear"},
		{2, pairScatterLinearMin, false, "binomial", "binomial"},
		{2, longVector / 2, false, "linear", "linear"},
		{4, longVector / 4, true, "linear", "linear"},
		{4, pairScatterLinearMin, true, "binomial", "binomial"},
		{4, pairGatherLinearMin, true, "binomial", "binomial"},
		{8, longVector/8 - 1, true, "binomial", "binomial"},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, LinearExchanges: tc.linear}
		if got := u.choose(CollGather, tc.bytes, true, false); got != tc.wantGather {
			t.Errorf("%d processes, %d bytes, linear %v: gather %s, want %s", tc.n, tc.bytes, tc.linear, got, tc.wantGather)
		}
		if got := u.choose(CollScatter, tc.bytes, true, false); got != tc.wantScatt {
			t.Errorf("%d processes, %d bytes, linear %v: scatter %s, want %s", tc.n, tc.bytes, tc.linear, got, tc.wantScatt)
		}
	}
}

// TestAllreduceSelection: commutative vectors take the ring from 32 KiB
// on a power of two processes from 4 and from 8 KiB on the others,
// recursive doubling below; others a reduction and a broadcast from 64 KiB.
func TestAllreduceSelection(t *testing.T) {
	for _, tc := range []struct {
		n, bytes    int
		commutative bool
		want        string
	}{
		{2, 8 << 10, true, AlgRing},
		{3, 8 << 10, true, AlgRing},
		{12, 8 << 10, true, AlgRing},
		{4, 16 << 10, true, AlgRecursiveDoubling},
		{16, 16 << 10, true, AlgRecursiveDoubling},
		{16, 32 << 10, true, AlgRecursiveHalving},
		{4, 64 << 10, true, AlgRecursiveHalving},
		{8, 256 << 10, true, AlgRecursiveHalving},
		{8, 512 << 10, true, AlgRing},
		{16, 1 << 20, true, AlgRing},
		{12, 64 << 10, true, AlgRing},
		{8, 4 << 10, true, AlgRecursiveDoubling},
		{8, 64 << 10, false, AlgReduceBcast},
		{8, 32 << 10, false, AlgRecursiveDoubling},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}, LinearExchanges: true}
		if got := u.choose(CollAllreduce, tc.bytes, tc.commutative, false); got != tc.want {
			t.Errorf("%d processes, %d bytes, commutative %v: %s, want %s", tc.n, tc.bytes, tc.commutative, got, tc.want)
		}
	}
}

// interruptibleNet is a memNet whose waits may be interrupted, as far as
// the choice of an overlapped check looks.
type interruptibleNet struct{ *memNet }

func (interruptibleNet) Interrupt(func() bool) {}

// TestOverlapBound: a call overlaps its check while its bytes times the
// processes stay within OverlapLimit, at two processes with PairOverlap
// while its bytes alone do (each message between two is one block,
// vector or message).
func TestOverlapBound(t *testing.T) {
	const limit = 16 << 10
	for _, tc := range []struct {
		n, bytes int
		pair     bool
		want     bool
	}{
		{2, limit, true, true},
		{2, limit + 1, true, false},
		{2, limit / 2, false, true},
		{2, limit/2 + 1, false, false},
		{3, limit / 3, true, true},
		{3, limit/3 + 1, true, false},
		{4, limit / 4, true, true},
		{4, limit/4 + 1, true, false},
	} {
		w := newMemWorld(tc.n)
		u := &Runner{Net: interruptibleNet{&memNet{w: w}}, HW: &splitHW{memHW: &memHW{h: newMemHardware(tc.n)}},
			Check: true, OverlapLimit: limit, PairOverlap: tc.pair}
		o := &opCall{key: Key{Coll: CollScatter, Bytes: tc.bytes}, bytes: tc.bytes}
		if _, _, got := u.overlapped(o, "linear"); got != tc.want {
			t.Errorf("%d processes, %d bytes, pair overlap %v: overlapped %v, want %v", tc.n, tc.bytes, tc.pair, got, tc.want)
		}
	}
}
