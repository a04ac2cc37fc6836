package mux

import (
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
)

// factsTransport is a Transport that only reports facts.
type factsTransport struct {
	llc.Transport
	caps llc.Caps
}

func (f factsTransport) Caps() llc.Caps { return f.caps }

// A Mux reports what every network offers (LoadStore, SharedLines), what
// some do (AnyLoadStore, Async, Modelled), the smallest limits, the
// packed records of the networks that share memory, and the slowest
// costs that some network knows.
func TestMuxCaps(t *testing.T) {
	shm := llc.Caps{Name: "shm", LoadStore: true, AnyLoadStore: true, MaxRecord: 2040, MaxInline: 256, PackedRecords: 1152,
		SharedLines: true, Offload: true, Modelled: true, Latency: 2 * time.Microsecond, Bandwidth: 400e6}
	stream := llc.Caps{Name: "stream", MaxRecord: 64 << 10, Async: true, Bandwidth: 100e6}
	m, err := New(2, []Network{{Transport: factsTransport{caps: shm}, Procs: []int{0}}, {Transport: factsTransport{caps: stream}, Procs: []int{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	want := llc.Caps{Name: "shm+stream", AnyLoadStore: true, MaxRecord: 2040, PackedRecords: 1152,
		Async: true, Modelled: true, Latency: 2 * time.Microsecond, Bandwidth: 100e6}
	if got := m.Caps(); got != want {
		t.Errorf("caps %+v\nwant %+v", got, want)
	}
}
