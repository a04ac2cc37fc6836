package shm

import (
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
)

// TestWatchLineErrors checks the local memory's refusals.
func TestWatchLineErrors(t *testing.T) {
	m := NewLocalMemory(0)
	m.Track(5, make([]byte, 256))
	for _, c := range []llc.Command{
		{Kind: llc.CmdWatchLine, Peer: 1, Region: 6, Off: layout.RingLine},                       // not tracked
		{Kind: llc.CmdWatchLine, Peer: 1, Region: 5, Off: 250},                                   // past the end
		{Kind: llc.CmdWatchLine, Peer: 1, Region: 5, Off: layout.RingLine + 8},                   // not a half
		{Kind: llc.CmdWatchLine, Peer: 1, Region: 5, Off: layout.RingLine, Size: llc.LineInPeer}, // no peer memory given
		{Kind: llc.CmdWatchLine, Peer: -1, Region: 5, Off: layout.RingLine},                      // no such process
	} {
		if err := m.WatchLine(&c, nil); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	m.OnArrival(func(llc.RegionID, uint64, int) bool { return true })
	if err := m.WatchLine(&llc.Command{Kind: llc.CmdWatchLine, Peer: 1, Region: 5, Off: layout.RingLine}, nil); err == nil {
		t.Error("a line watched in virtual time")
	}
}
