package spinwait

import "testing"

// BenchmarkPause measures one Pause: how long a spinning waiter's hint
// holds the processor on this machine.
func BenchmarkPause(b *testing.B) {
	for b.Loop() {
		Pause()
	}
}
