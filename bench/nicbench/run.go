package nicbench

import (
	"fmt"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
)

// Run is what one job of the reproduction measured under one timing
// profile.
type Run struct {
	Profile string `json:"profile"`
	// Write and Read are the 8-byte latencies in µs, by request kind.
	Write map[string]float64 `json:"write_usec"`
	Read  map[string]float64 `json:"read_usec"`
	// Sizes are the transfer sizes of the throughput curves, OneWay and
	// Bidirectional their throughputs in MB/s.
	Sizes         []int     `json:"sizes"`
	OneWay        []float64 `json:"oneway_mbps"`
	Bidirectional []float64 `json:"bidirectional_mbps"`
	// Handoff is the emulation's own one-way latency (µs) that the
	// profile compensated for (nicemu.MeasureHandoff; 0 under native).
	Handoff float64 `json:"handoff_usec"`
}

// Options size a reproduction run.
type Options struct {
	Reps, Samples int // latency: round trips per sample, samples
	// StreamBytes is about how many bytes each throughput point moves.
	StreamBytes int
	Sizes       []int
}

// DefaultOptions are the options of the thesis reproduction.
func DefaultOptions() Options {
	var sizes []int
	for s := 8; s <= 1<<20; s *= 2 {
		sizes = append(sizes, s)
	}
	return Options{Reps: 2000, Samples: 5, StreamBytes: 16 << 20, Sizes: sizes}
}

// Measure runs every measurement of the reproduction on both processes of
// the pair; the Run is complete on rank 0.
func (p *Pair) Measure(store datastore.Store, profile string, o Options) (*Run, error) {
	r := &Run{Profile: profile, Write: map[string]float64{}, Read: map[string]float64{}, Sizes: o.Sizes}
	for _, k := range []string{WritePush, WriteBOTF, WriteAOTF} {
		d, err := p.WriteLatency(k, o.Reps, o.Samples)
		if err != nil {
			return nil, fmt.Errorf("nicbench: %s latency: %w", k, err)
		}
		r.Write[k] = usec(d)
	}
	for _, k := range []string{ReadPull, ReadBOTFPull} {
		d, err := p.ReadLatency(k, o.Reps, o.Samples)
		if err != nil {
			return nil, fmt.Errorf("nicbench: %s latency: %w", k, err)
		}
		r.Read[k] = usec(d)
	}
	for _, size := range o.Sizes {
		count := min(max(o.StreamBytes/size, 16), 1<<18)
		one, err := p.Throughput(size, count)
		if err != nil {
			return nil, err
		}
		bi, err := p.Bidirectional(store, size, count)
		if err != nil {
			return nil, err
		}
		r.OneWay = append(r.OneWay, one)
		r.Bidirectional = append(r.Bidirectional, bi)
	}
	return r, nil
}

func usec(d time.Duration) float64 { return float64(d) / 1e3 }

// Peak returns the largest value of a curve.
func Peak(curve []float64) float64 {
	m := 0.0
	for _, v := range curve {
		m = max(m, v)
	}
	return m
}
