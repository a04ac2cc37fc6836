package tcp

import (
	"fmt"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
)

// benchPingPong measures half a round trip of size-byte messages between
// two processes of a job on loopback (goroutines of this process), and
// reports it as ns/halfRTT with the bandwidth it makes (MB/s). Both keep
// progressing until both are done (job.run): a send completes once its
// data is in the kernel or the send queue, and what is queued leaves only
// while its process progresses.
func benchPingPong(b *testing.B, size int, eager llc.EagerMode, mod func(*llc.Config)) {
	j := newJob(b, 2, eager, mod)
	for _, ep := range j.eps {
		ep.Spin, ep.Yield = 4000, 200 // the endpoint's defaults
	}
	var half float64
	b.ResetTimer()
	j.run(func(rank int, ep *llc.Endpoint) error {
		if rank == 1 {
			for range b.N + 1 {
				if err := echo(ep, 0, 0, size); err != nil {
					return err
				}
			}
			return nil
		}
		data, back := pattern(1, size), make([]byte, size)
		if err := pingPong(ep, 1, 0, data); err != nil { // connects
			return err
		}
		start := time.Now()
		for range b.N {
			if err := ep.SendWait(1, 0, 0, data); err != nil {
				return err
			}
			if _, err := ep.RecvWait(1, 0, 0, back); err != nil {
				return err
			}
		}
		half = time.Since(start).Seconds() / float64(2*b.N)
		return nil
	})
	b.StopTimer()
	b.ReportMetric(half*1e9, "ns/halfRTT")
	b.ReportMetric(float64(size)/half/1e6, "MB/s")
}

// The transport's defaults (EagerQueue, Caps' eager limit and rendezvous):
//
//	go test -run XXX -bench PingPong -count 5 ./llc/tcp
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{8, 1 << 10, 16 << 10, 64 << 10, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchPingPong(b, size, llc.EagerQueue, nil) })
	}
}

// The eager limit: each size sent eagerly (limit 64 KiB) and by the
// default rendezvous (limit 0); the crossover is Caps' EagerLimit.
//
//	go test -run XXX -bench EagerLimit -count 5 ./llc/tcp
func BenchmarkEagerLimit(b *testing.B) {
	for _, size := range []int{4 << 10, 8 << 10, 16 << 10, 24 << 10, 32 << 10, 48 << 10, 64 << 10} {
		for _, limit := range []int{64 << 10, 0} {
			b.Run(fmt.Sprintf("size=%d/limit=%d", size, limit), func(b *testing.B) {
				benchPingPong(b, size, llc.EagerQueue, func(c *llc.Config) {
					c.EagerLimit, c.QueueSize = limit, llc.MinQueueSize(limit)
				})
			})
		}
	}
}

// The rendezvous variants, and the ring eager transport against the
// records of the receive queue:
//
//	go test -run XXX -bench 'Rendezvous|Eager/' -count 5 ./llc/tcp
func BenchmarkRendezvous(b *testing.B) {
	for _, mode := range []llc.RndvMode{llc.RndvPull, llc.RndvPush, llc.RndvSplit} {
		for _, size := range []int{64 << 10, 1 << 20, 4 << 20} {
			b.Run(fmt.Sprintf("%v/size=%d", mode, size), func(b *testing.B) {
				benchPingPong(b, size, llc.EagerQueue, func(c *llc.Config) { c.Rendezvous = mode })
			})
		}
	}
}

func BenchmarkEager(b *testing.B) {
	for _, eager := range []llc.EagerMode{llc.EagerQueue, llc.EagerRings} {
		for _, size := range []int{8, 1 << 10, 16 << 10} {
			b.Run(fmt.Sprintf("%v/size=%d", eager, size), func(b *testing.B) { benchPingPong(b, size, eager, nil) })
		}
	}
}
