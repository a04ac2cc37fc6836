package nicemu

import (
	"fmt"
	"testing"
)

// TestZeroAllocs: the request paths into segment memory allocate nothing.
func TestZeroAllocs(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	sid, _ := mustRegisterSegment(t, n1, 4096)
	buf8, buf64, buf100 := make([]byte, 8), make([]byte, 64), make([]byte, 100)
	var flag uint64
	if err := n0.SetAOTFHeader(0, 1, sid, 0); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		f    func() error
	}{
		{"Push 8", func() error { return n0.Push(1, sid, 8, buf8, nil) }},
		{"Push 64 with ack", func() error { return n0.Push(1, sid, 64, buf64, &flag) }},
		{"Push 100 unaligned", func() error { return n0.Push(1, sid, 3, buf100, nil) }},
		{"Pull 8", func() error { return n0.Pull(1, sid, 8, buf8, nil) }},
		{"Pull 64 with done", func() error { return n0.Pull(1, sid, 64, buf64, &flag) }},
		{"BOTF 64", func() error { return n0.BOTF(1, sid, 128, buf64) }},
		{"CompareAndSwap", func() error { _, err := n0.CompareAndSwap(1, sid, 256, 0, 0); return err }},
		{"FetchAndAdd", func() error { _, err := n0.FetchAndAdd(1, sid, 264, 1); return err }},
		{"AOTF", func() error { return n0.AOTF(0, 272, 5) }},
	}
	for _, c := range cases {
		if err := c.f(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if a := testing.AllocsPerRun(1000, func() { c.f() }); a != 0 {
			t.Errorf("%s: %v allocations per request, want 0", c.name, a)
		}
	}
}

func benchPushSegment(b *testing.B, size int) {
	seg := newSegment(b, testConfig(2))
	n0 := openNIC(b, seg, 0)
	n1 := openNIC(b, seg, 1)
	sid, _ := mustRegisterSegment(b, n1, 4096)
	src := make([]byte, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		src[0] = byte(i)
		if err := n0.Push(1, sid, 64, src, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPush8Segment(b *testing.B)  { benchPushSegment(b, 8) }
func BenchmarkPush64Segment(b *testing.B) { benchPushSegment(b, 64) }

func BenchmarkCompareAndSwapSegment(b *testing.B) {
	seg := newSegment(b, testConfig(2))
	n0 := openNIC(b, seg, 0)
	n1 := openNIC(b, seg, 1)
	sid, _ := mustRegisterSegment(b, n1, 64)
	b.ReportAllocs()
	for i := uint64(0); b.Loop(); i++ {
		if _, err := n0.CompareAndSwap(1, sid, 0, i, i+1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPullCMA4MiB pulls 4 MiB of another NIC's process memory by
// cross-memory attach (within this OS process).
func BenchmarkPullCMA4MiB(b *testing.B) {
	const size = 4 << 20
	seg := newSegment(b, testConfig(2))
	n0 := openNIC(b, seg, 0)
	n1 := openNIC(b, seg, 1)
	if !n0.CMA() {
		b.Skip("MARTINI_NO_CMA=1 in the environment")
	}
	region := pattern(size, 1)
	sid := mustRegisterMemory(b, n1, region)
	buf := make([]byte, size)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if err := n0.Pull(1, sid, 0, buf, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	checkBytes(b, "pulled", buf, region)
}

// BenchmarkPushBounce4MiB is the fallback path: 4 MiB through a 256 KiB
// bounce buffer served by another goroutine.
func BenchmarkPushBounce4MiB(b *testing.B) {
	const size = 4 << 20
	b.Setenv("MARTINI_NO_CMA", "1")
	cfg := testConfig(2)
	cfg.BounceSize = DefaultBounceSize
	seg := newSegment(b, cfg)
	n0 := openNIC(b, seg, 0)
	n1 := openNIC(b, seg, 1)
	region := make([]byte, size)
	sid := mustRegisterMemory(b, n1, region)
	src := pattern(size, 2)
	s := serve(n1)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if err := n0.Push(1, sid, 0, src, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s.halt()
	checkBytes(b, "pushed", region, src)
}

// benchBarrier times barriers of controller id between NICs 0 and 1 of a
// two-process segment, each member in a goroutine of its own spinning on
// the release (the cost of the synchronisation network alone: the
// arrival's fetch-and-add and the release line's trip between two cores).
// With keyed set, the members also pass a datum and read the key sum and
// the other member's datum after each release (a small allreduce).
// BenchmarkBarrierPort is the keyed one through BarrierPorts, as the
// collectives' barriers go.
func benchBarrier(b *testing.B, keyed bool) {
	n0, n1, id, procs := newBarrierPair(b)
	nics := []*NIC{n0, n1}
	key := []byte("barrier key that has 32 bytes..")
	member := func(m, rounds int) error {
		n := nics[m]
		for range rounds {
			gen, err := n.BarrierArriveData(id, m, procs, 12345, &[DatumSize]byte{byte(m + 1)}, key)
			if err != nil {
				return err
			}
			for !n.BarrierReleased(id, 2, gen) {
			}
			if !keyed {
				continue
			}
			if s := n.BarrierSum(id, 2, gen); s != 2*12345 {
				return fmt.Errorf("member %d: key sum %d", m, s)
			}
			if d := n.BarrierDatum(id, 1-m, gen); d != [DatumSize]byte{byte(2 - m)} {
				return fmt.Errorf("member %d: datum %d from the other", m, d)
			}
		}
		return nil
	}
	runMembers(b, member)
}

// runMembers times b.N rounds of members 0 and 1, member 1 in a goroutine
// of its own.
func runMembers(b *testing.B, member func(m, rounds int) error) {
	done := make(chan error)
	b.ReportAllocs()
	b.ResetTimer()
	go func() { done <- member(1, b.N) }()
	if err := member(0, b.N); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

func BenchmarkBarrierController(b *testing.B)      { benchBarrier(b, false) }
func BenchmarkBarrierControllerKeyed(b *testing.B) { benchBarrier(b, true) }

func BenchmarkBarrierPort(b *testing.B) {
	n0, n1, id, procs := newBarrierPair(b)
	nics := []*NIC{n0, n1}
	ports := make([]*BarrierPort, 2)
	for m := range ports {
		var ok bool
		if ports[m], ok = nics[m].OpenBarrierPort(id, m, procs); !ok {
			b.Fatal("no port")
		}
	}
	key := []byte("barrier key that has 32 bytes..")
	member := func(m, rounds int) error {
		p, datum := ports[m], [DatumSize]byte{byte(m + 1)}
		for range rounds {
			gen, released, err := p.Enter(12345, &datum, key, nil)
			if err != nil {
				return err
			}
			for !released {
				released = p.Released(gen)
			}
			if s := p.Sum(gen); s != 2*12345 {
				return fmt.Errorf("member %d: key sum %d", m, s)
			}
			if d := p.DatumRef(1-m, gen); d[0] != byte(2-m) {
				return fmt.Errorf("member %d: datum %d from the other", m, d[0])
			}
		}
		return nil
	}
	runMembers(b, member)
}

// BenchmarkBOTF64Segment is the emulated NIC's share of an 8-byte eager
// message: a 64-byte packet image written in place into a Window
// (BOTFBuffer) and kicked into segment memory.
func BenchmarkBOTF64Segment(b *testing.B) {
	seg := newSegment(b, testConfig(2))
	n0 := openNIC(b, seg, 0)
	n1 := openNIC(b, seg, 1)
	sid, _ := mustRegisterSegment(b, n1, 4096)
	b.SetBytes(64)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		img := n0.BOTFBuffer()
		img[0], img[56] = byte(i), 1
		if err := n0.KickBOTF(1, sid, 64, 64); err != nil {
			b.Fatal(err)
		}
	}
}
