package npb

import (
	"slices"
	"testing"
)

func TestIS(t *testing.T) {
	checkKernel(t, "IS", 'S', 1, 2, 4)
}

// TestISFindMySeed checks find_my_seed's jump against stepping the
// generator: process kn's seed is the state after kn·nn/np steps.
func TestISFindMySeed(t *testing.T) {
	const nn = 4 << 16
	for _, np := range []int{1, 2, 4, 8} {
		for kn := range np {
			x := float64(Seed)
			for range kn * (nn / np) {
				Randlc(&x, A)
			}
			if got := isFindMySeed(kn, np, nn, Seed, A); got != x {
				t.Errorf("np=%d kn=%d: seed %v, want %v", np, kn, got, x)
			}
		}
	}
}

// TestISCreateSeq checks that the processes' shares of the keys put
// together are the keys of one process, that the keys are in range, and
// that they agree with create_seq written with Randlc.
func TestISCreateSeq(t *testing.T) {
	p, _ := isParams('S')
	total, maxKey := 1<<p.totalKeysLog2, 1<<p.maxKeyLog2
	one := make([]int32, total)
	isCreateSeq(one, isFindMySeed(0, 1, 4*int64(total), Seed, A), maxKey)

	x := float64(Seed)
	for i := range 1000 {
		r := Randlc(&x, A)
		r += Randlc(&x, A)
		r += Randlc(&x, A)
		r += Randlc(&x, A)
		if want := int32(float64(maxKey/4) * r); one[i] != want {
			t.Fatalf("key %d = %d, want %d", i, one[i], want)
		}
	}
	for i, k := range one {
		if k < 0 || int(k) >= maxKey {
			t.Fatalf("key %d = %d out of [0, %d)", i, k, maxKey)
		}
	}
	for _, np := range []int{2, 4} {
		n := total / np
		var joined []int32
		for kn := range np {
			part := make([]int32, n)
			isCreateSeq(part, isFindMySeed(kn, np, 4*int64(total), Seed, A), maxKey)
			joined = append(joined, part...)
		}
		if !slices.Equal(joined, one) {
			t.Errorf("np=%d: shares differ from the keys of one process", np)
		}
	}
}

// TestISTestRank checks the per-class shifts of the expected test-key
// ranks at a few iterations.
func TestISTestRank(t *testing.T) {
	for _, c := range []struct {
		class     Class
		i, it     int
		base, out int64
	}{
		{'S', 0, 3, 0, 3}, {'S', 3, 3, 64917, 64914},
		{'W', 1, 1, 11698, 11697}, {'W', 2, 1, 1039987, 1039986},
		{'A', 2, 1, 123928, 123928}, {'A', 4, 10, 8388264, 8388255},
		{'B', 4, 2, 99, 101}, {'B', 0, 2, 33422937, 33422935},
		{'C', 2, 4, 266290, 266294}, {'C', 3, 4, 133997595, 133997591},
	} {
		if got := isTestRank(c.class, c.base, c.i, c.it); got != c.out {
			t.Errorf("class %v key %d iteration %d: %d, want %d", c.class, c.i, c.it, got, c.out)
		}
	}
}

// TestISBucketCount checks the interleaved bucket count against a plain
// one, for lengths that are and are not multiples of four.
func TestISBucketCount(t *testing.T) {
	const shift = 9
	keys := make([]int32, 4099)
	isCreateSeq(keys, Seed, 1<<19)
	counts := new([isMaxBuckets]int32)
	partial := new([4][isMaxBuckets]int32)
	for _, n := range []int{0, 1, 3, 4, 4096, 4099} {
		var want [isMaxBuckets]int32
		for _, k := range keys[:n] {
			want[k>>shift]++
		}
		isBucketCount(counts, partial, keys[:n], shift)
		if *counts != want {
			t.Errorf("%d keys: counts differ", n)
		}
	}
}

// TestISRankCounts checks the local ranking against counting each key's
// rank directly: the number of keys not above it.
func TestISRankCounts(t *testing.T) {
	keys := make([]int32, 3001)
	isCreateSeq(keys, Seed, 1<<11)
	cnt := new([isMaxKey]int32)
	for _, r := range []struct{ minKey, span int }{{0, 1 << 11}, {300, 1<<11 - 300}, {0, 0}} {
		in := keys[:0:0]
		for _, k := range keys {
			if int(k) >= r.minKey && int(k) < r.minKey+r.span {
				in = append(in, k)
			}
		}
		cnt[r.span] = -1 // past the range: left alone
		// In three parts, as the ranking passes them.
		third := len(in) / 3
		got := isRankCounts(cnt, r.minKey, r.span, in[:third], in[third:2*third], in[2*third:])
		if len(got) != r.span || cnt[r.span] != -1 {
			t.Fatalf("range %+v: %d counts, cnt[span] = %d", r, len(got), cnt[r.span])
		}
		for i, c := range got {
			want := int32(0)
			for _, k := range in {
				if int(k) <= r.minKey+i {
					want++
				}
			}
			if c != want {
				t.Fatalf("range %+v: cnt[%d] = %d, want %d", r, i, c, want)
			}
		}
	}
}

// BenchmarkISPartition measures the bucket sort of class A's keys of
// process 0 of 2.
func BenchmarkISPartition(b *testing.B) {
	keys, counts, shift, nb := isPartitionInput()
	sizes := *counts
	buf := make([]int32, len(keys))
	for b.Loop() {
		*counts = sizes
		isPartition(buf, counts, nb, keys, shift)
	}
}

// isPartitionInput returns class A's keys of process 0 of 2, the number
// of keys of each bucket, the shift that gives a key's bucket and the
// number of buckets.
func isPartitionInput() (keys []int32, counts *[isMaxBuckets]int32, shift uint, nb int) {
	p, _ := isParams('A')
	keys = make([]int32, (1<<p.totalKeysLog2)/2)
	isCreateSeq(keys, isFindMySeed(0, 2, 4<<p.totalKeysLog2, Seed, A), 1<<p.maxKeyLog2)
	shift = uint(p.maxKeyLog2 - p.numBucketsLog2)
	counts = new([isMaxBuckets]int32)
	isBucketCount(counts, new([4][isMaxBuckets]int32), keys, shift)
	return keys, counts, shift, 1 << p.numBucketsLog2
}

// TestISPartition checks the bucket sort: the keys come out sorted by
// bucket, each bucket's in their order, and the counts become the place
// after each bucket's last key.
func TestISPartition(t *testing.T) {
	const nb, shift = 16, 2
	keys := make([]int32, 1000)
	for i := range keys {
		keys[i] = int32((i*37 + i/7) % (nb << shift))
	}
	keys = append(keys, 1, 2, 3) // three more of bucket 0: they must come out after its others
	var want [nb][]int32
	counts := new([isMaxBuckets]int32)
	for _, k := range keys {
		want[k>>shift] = append(want[k>>shift], k)
		counts[k>>shift]++
	}
	counts[nb] = -7 // past the buckets: left alone
	buf := make([]int32, len(keys)+1)
	buf[len(keys)] = -1
	isPartition(buf[:len(keys)], counts, nb, keys, shift)
	at := 0
	for b := range want {
		if !slices.Equal(buf[at:at+len(want[b])], want[b]) {
			t.Errorf("bucket %d: keys %v, want %v", b, buf[at:at+len(want[b])], want[b])
		}
		at += len(want[b])
		if counts[b] != int32(at) {
			t.Errorf("bucket %d: ends at %d, want %d", b, counts[b], at)
		}
	}
	if counts[nb] != -7 || buf[len(keys)] != -1 {
		t.Errorf("written past the buckets or the keys: %d, %d", counts[nb], buf[len(keys)])
	}
}
