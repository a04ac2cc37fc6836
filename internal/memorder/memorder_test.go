package memorder

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestStoreRelease64(t *testing.T) {
	var w uint64
	StoreRelease64(&w, 42)
	if w != 42 {
		t.Fatalf("stored %d, want 42", w)
	}
}

func TestStoreRelease32(t *testing.T) {
	w := [2]uint32{7, 7}
	StoreRelease32(&w[0], 42)
	if w != [2]uint32{42, 7} {
		t.Fatalf("stored %v, want [42 7]", w)
	}
}

// TestStoreRelease64Publishes has a writer fill a buffer and publish its
// generation with StoreRelease64 while a reader that sees a generation
// checks that the buffer it then reads is at least that new: the
// stores of one goroutine are seen in order.
func TestStoreRelease64Publishes(t *testing.T) {
	const rounds = 200000
	var data [8]uint64
	var gen uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for g := uint64(1); g <= rounds; g++ {
			for i := range data {
				StoreRelease64(&data[i], g)
			}
			StoreRelease64(&gen, g)
		}
	}()
	for seen := uint64(0); seen < rounds; {
		g := atomic.LoadUint64(&gen)
		for i := range data {
			if d := atomic.LoadUint64(&data[i]); d < g {
				t.Fatalf("generation %d published before word %d was written (holds %d)", g, i, d)
			}
		}
		seen = g
	}
	wg.Wait()
}

func BenchmarkStoreRelease64(b *testing.B) {
	var w uint64
	for i := 0; b.Loop(); i++ {
		StoreRelease64(&w, uint64(i))
	}
}

func BenchmarkAtomicStore64(b *testing.B) {
	var w uint64
	for i := 0; b.Loop(); i++ {
		atomic.StoreUint64(&w, uint64(i))
	}
}
