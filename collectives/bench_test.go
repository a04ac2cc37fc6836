package collectives

import "testing"

// loneHW is the Hardware of a communicator of one process: its barrier
// returns at once. It measures what a Runner costs around the network.
type loneHW struct {
	payload [memPayloadSize]byte
	key     uint64
	datum   [DatumSize]byte
}

func (h *loneHW) Barrier(key uint64, datum *[DatumSize]byte, p []byte) error {
	copy(h.payload[:], p)
	h.key = key
	if datum != nil {
		h.datum = *datum
	}
	return nil
}
func (h *loneHW) Datum(int) *[DatumSize]byte       { return &h.datum }
func (h *loneHW) InlineRanks() int                 { return 5 }
func (h *loneHW) KeySum() uint64                   { return h.key }
func (h *loneHW) KeyBits() int                     { return 48 }
func (h *loneHW) Payload(int, int, int) []byte     { return h.payload[:] }
func (h *loneHW) PayloadSize() int                 { return memPayloadSize }
func (h *loneHW) Multicast([]byte) error           { return nil }
func (h *loneHW) Deliver(int, []byte) (int, error) { return 0, nil }
func (h *loneHW) MulticastSize() int               { return 1 << 16 }

func loneRunner() *Runner {
	return &Runner{Net: &memNet{w: newMemWorld(1)}, HW: &loneHW{}, Check: true, Stats: &Stats{}}
}

// BenchmarkRunnerBarrier is the Runner's own cost of a checked barrier on
// the synchronisation network (the network itself excluded).
func BenchmarkRunnerBarrier(b *testing.B) {
	u := loneRunner()
	b.ReportAllocs()
	for b.Loop() {
		if err := u.Barrier(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerAllreduce8B is the Runner's own cost of a checked 8-byte
// allreduce by the shared algorithm.
func BenchmarkRunnerAllreduce8B(b *testing.B) {
	benchReduction8B(b, func(u *Runner, send, recv []byte, r Reducer) error { return u.Allreduce(send, recv, r) })
}

// BenchmarkRunnerReduce8B is the Runner's own cost of a checked 8-byte
// reduce by the shared algorithm, the data travelling as barrier data.
func BenchmarkRunnerReduce8B(b *testing.B) {
	benchReduction8B(b, func(u *Runner, send, recv []byte, r Reducer) error { return u.Reduce(send, recv, r, 0) })
}

// benchReduction8B times reduce, a reduction of one float64 by Sum, on a
// Runner of one process.
func benchReduction8B(b *testing.B, reduce func(u *Runner, send, recv []byte, r Reducer) error) {
	u := loneRunner()
	r, err := ReducerFor[float64](Sum)
	if err != nil {
		b.Fatal(err)
	}
	send, recv := make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := reduce(u, send, recv, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerBcast8B is the Runner's own cost of a checked 8-byte
// broadcast by the shared algorithm.
func BenchmarkRunnerBcast8B(b *testing.B) {
	u := loneRunner()
	buf := make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := u.Bcast(buf, 0, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerGather8B is the Runner's own cost of a checked gather of
// 8-byte blocks by the shared algorithm.
func BenchmarkRunnerGather8B(b *testing.B) {
	u := loneRunner()
	send, recv := make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := u.Gather(send, recv, 0, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerScatter8B is the Runner's own cost of a checked scatter
// of 8-byte blocks by the shared algorithm.
func BenchmarkRunnerScatter8B(b *testing.B) {
	u := loneRunner()
	send, recv := make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := u.Scatter(send, recv, 0, 1); err != nil {
			b.Fatal(err)
		}
	}
}
