package percpu

import (
	"runtime"
	"sync"
	"testing"
)

// TestCounts has goroutines on every processor count into their
// processor's value: no count is lost, as one would be where two
// goroutines used a value at once.
func TestCounts(t *testing.T) {
	var v Values[int]
	const goroutines, each = 8, 20000
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				n := v.Pin()
				*n++
				v.Unpin()
			}
		}()
	}
	wg.Wait()
	total := 0
	for p := 0; p < runtime.GOMAXPROCS(0); p++ {
		total += v.slot(p).v
	}
	if total != goroutines*each {
		t.Fatalf("counted %d, want %d", total, goroutines*each)
	}
}

// TestMoreProcessors raises GOMAXPROCS after the values were made: Pin
// adds the new processors' slots, and the old ones keep their values.
func TestMoreProcessors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var v Values[int]
	*v.Pin() = 7
	v.Unpin()
	if n := len(*v.slots.Load()); n != 1 && !raceEnabled {
		t.Fatalf("%d slots with one processor, want 1", n)
	}
	runtime.GOMAXPROCS(4)
	seen := make(chan int, 64)
	var wg sync.WaitGroup
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := v.Pin()
			seen <- *n
			v.Unpin()
		}()
	}
	wg.Wait()
	close(seen)
	if n := len(*v.slots.Load()); n > 4 {
		t.Fatalf("%d slots for 4 processors", n)
	}
	if got := v.slot(0).v; got != 7 {
		t.Fatalf("processor 0's value %d after the slots grew, want 7", got)
	}
	for n := range seen {
		if n != 0 && n != 7 {
			t.Fatalf("a value %d that nobody stored", n)
		}
	}
}

// BenchmarkPin is a value pinned, used and unpinned.
func BenchmarkPin(b *testing.B) {
	var v Values[int]
	for i := 0; i < b.N; i++ {
		*v.Pin()++
		v.Unpin()
	}
}

// BenchmarkPool is the same through a sync.Pool's Get and Put, for
// comparison.
func BenchmarkPool(b *testing.B) {
	p := sync.Pool{New: func() any { return new(int) }}
	for i := 0; i < b.N; i++ {
		n := p.Get().(*int)
		*n++
		p.Put(n)
	}
}
