package nicbench

import (
	"fmt"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/nicemu"
)

// Run is what one job of the reproduction measured under one timing
// profile.
type Run struct {
	Profile string `json:"profile"`
	// Clock is "virtual" for a run in virtual time (mpirun -clock
	// virtual), empty in real time.
	Clock string `json:"clock,omitempty"`
	// Write and Read are the 8-byte latencies in µs, by request kind.
	Write map[string]float64 `json:"write_usec"`
	Read  map[string]float64 `json:"read_usec"`
	// Sizes are the transfer sizes of the throughput curves, OneWay and
	// Bidirectional their throughputs in MB/s.
	Sizes         []int     `json:"sizes"`
	OneWay        []float64 `json:"oneway_mbps"`
	Bidirectional []float64 `json:"bidirectional_mbps"`
	// PATLB is the PATLB-miss ping-pong (Fig 7.9), by size.
	PATLB []MissPoint `json:"patlb"`
	// PM is the PM-level round trip (µs) of each PM eager transport
	// ("pm", "vp") by the number of processes in the job; separate jobs
	// measure it (cmd/thesis), not Measure.
	PM map[string]map[int]float64 `json:"pm_rtt_usec,omitempty"`
	// Handoff is the emulation's own one-way latency (µs) that the
	// profile compensated for (nicemu.MeasureHandoff; 0 under native).
	Handoff float64 `json:"handoff_usec"`
}

// Name names the run in tables and plots: its profile, and its clock when
// virtual.
func (r *Run) Name() string {
	if r.Clock == nicemu.ClockVirtual {
		return r.Profile + " (virtual time)"
	}
	return r.Profile
}

// Options size a reproduction run.
type Options struct {
	Reps, Samples int // latency: round trips per sample, samples
	// StreamBytes is about how many bytes each throughput point moves.
	StreamBytes int
	Sizes       []int
	// MissSizes are the sizes of the PATLB-miss ping-pong, MissReps its
	// round trips per sample.
	MissSizes []int
	MissReps  int
}

// DefaultOptions are the options of the thesis reproduction.
func DefaultOptions() Options {
	var sizes []int
	for s := 8; s <= 1<<20; s *= 2 {
		sizes = append(sizes, s)
	}
	return Options{Reps: 2000, Samples: 5, StreamBytes: 16 << 20, Sizes: sizes, MissSizes: []int{32, 2048}, MissReps: 200}
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
	for _, size := range o.MissSizes {
		m := MissPoint{Size: size}
		for _, mode := range []struct {
			name string
			to   *float64
		}{{MissNone, &m.NoEx}, {MissHard, &m.Hard}, {MissSoft, &m.Soft}} {
			d, err := p.MissRTT(mode.name, size, o.MissReps, o.Samples)
			if err != nil {
				return nil, fmt.Errorf("nicbench: PATLB-miss round trip, %s, %d B: %w", mode.name, size, err)
			}
			*mode.to = usec(d)
		}
		r.PATLB = append(r.PATLB, m)
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
