package nicbench

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/rhinet-go/martini/nicemu/takeover"
)

// PATLB-miss modes of MissRTT (Fig 7.9).
const (
	MissNone = "NOEX" // no miss: the PATLB holds the source page
	MissHard = "HARD" // a miss on every send, the hardware resumed after the refill
	MissSoft = "SOFT" // a miss on every send, the request finished by firmware
)

// MissPoint is one size of the PATLB-miss ping-pong: the round trip (µs)
// in each mode.
type MissPoint struct {
	Size int     `json:"size"`
	NoEx float64 `json:"noex_usec"`
	Hard float64 `json:"hard_usec"`
	Soft float64 `json:"soft_usec"`
}

// Saving is how much of SOFT's round trip HARD saves (Fig 7.9: 21% at
// 32 B, 16% at 2 KB).
func (m MissPoint) Saving() float64 {
	if m.Soft <= 0 {
		return 0
	}
	return (m.Soft - m.Hard) / m.Soft
}

// MissRTT measures the round trip of a PUSH ping-pong of size bytes (a
// multiple of 8) in which, unless mode is MissNone, both Initiators miss
// in the PATLB on every send: each process flushes its PATLB before it
// sends, so the firmware takes the Initiator over (thesis 7.5.2, Fig 7.9).
// It returns the median of samples batches of reps round trips.
func (p *Pair) MissRTT(mode string, size, reps, samples int) (time.Duration, error) {
	if size < 8 || size%8 != 0 || size > MaxSize {
		return 0, fmt.Errorf("nicbench: PATLB-miss ping-pong of %d B: want a multiple of 8 up to %d", size, MaxSize)
	}
	flush := mode != MissNone
	switch mode {
	case MissNone, MissHard:
		if err := p.nic.SetPATLBMode(takeover.ModeHard); err != nil {
			return 0, err
		}
	case MissSoft:
		if err := p.nic.SetPATLBMode(takeover.ModeSoft); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("nicbench: PATLB-miss mode %q: want %s, %s or %s", mode, MissNone, MissHard, MissSoft)
	}
	defer p.nic.SetPATLBMode(takeover.ModeHard)
	send := func() error {
		binary.LittleEndian.PutUint64(p.src[size-8:], p.seq)
		if flush {
			p.nic.FlushPATLB()
		}
		return p.nic.Push(p.peer, p.peerSID, 0, p.src[:size], nil)
	}
	wait := func() { p.awaitAt(size-8, p.seq) }
	return p.pingPong(reps, samples, send, wait)
}
