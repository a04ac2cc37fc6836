package nicemu

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"
)

// A group whose members arrive through ports, one through the NIC's
// methods, sees what the NIC's methods show: releases, key sums, data
// words and payloads, generation after generation, and the counters.
func TestBarrierPortMatchesNIC(t *testing.T) {
	nics, id, procs := barrierGroup(t, 3)
	ports := openPorts(t, nics[:2], id, procs)
	const rounds = 50
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for m := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- portMember(nics[m], ports, id, m, procs, rounds)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for m, n := range nics {
		if s := n.Stats(); s.BarrierArrivals != rounds || s.Refused != 0 {
			t.Errorf("member %d: %d arrivals, %d refused; want %d, 0", m, s.BarrierArrivals, s.Refused, rounds)
		}
	}
}

// portMember arrives rounds times at controller id as member m, through
// its port when it has one, and checks each generation against both
// views.
func portMember(n *NIC, ports []*BarrierPort, id, m int, procs []int, rounds int) error {
	for g := uint64(1); g <= uint64(rounds); g++ {
		datum := [DatumSize]byte{byte(m), byte(g)}
		payload := []byte(fmt.Sprintf("member %d generation %d", m, g))
		var gen uint64
		var err error
		switch split := int(g) % len(payload); {
		case m < len(ports) && g%2 == 1: // in two parts, which land joined
			gen, err = ports[m].ArriveParts(g*10+uint64(m), &datum, payload[:split], payload[split:])
		case m < len(ports):
			gen, err = ports[m].ArriveData(g*10+uint64(m), &datum, payload)
		case g%2 == 1:
			gen, err = n.BarrierArriveParts(id, m, procs, g*10+uint64(m), &datum, payload[:split], payload[split:])
		default:
			gen, err = n.BarrierArriveData(id, m, procs, g*10+uint64(m), &datum, payload)
		}
		if err != nil || gen != g {
			return fmt.Errorf("member %d: arrival = %d, %v; want %d", m, gen, err, g)
		}
		if err := spinReleased(n, id, len(procs), g); err != nil {
			return fmt.Errorf("member %d: %w", m, err)
		}
		want := 3*g*10 + 0 + 1 + 2
		for _, p := range ports {
			if !p.Released(g) || p.Sum(g) != want || p.Sum(g) != n.BarrierSum(id, len(procs), g) {
				return fmt.Errorf("member %d, generation %d: port released %v, sum %d; want %d", m, g, p.Released(g), p.Sum(g), want)
			}
			for r := range procs {
				if d := p.Datum(r, g); d != n.BarrierDatum(id, r, g) || d != [DatumSize]byte{byte(r), byte(g)} {
					return fmt.Errorf("member %d, generation %d: port's datum of %d %v", m, g, r, d)
				}
				if got, want := string(p.Payload(r, g)), fmt.Sprintf("member %d generation %d", r, g); got != want {
					return fmt.Errorf("member %d, generation %d: port's payload of %d %q, want %q", m, g, r, got, want)
				}
			}
			if p.Payload(len(procs), g) != nil {
				return fmt.Errorf("member %d, generation %d: port reads a member outside the group", m, g)
			}
		}
		for r := range procs {
			if got, want := string(n.BarrierPayload(id, r, g)), fmt.Sprintf("member %d generation %d", r, g); got != want {
				return fmt.Errorf("member %d, generation %d: payload of %d %q, want %q", m, g, r, got, want)
			}
		}
		// g's words stay until g+2: no member arrives there before this
		// one has arrived at g+1.
	}
	return nil
}

// A port refuses what the NIC refuses, counted as the NIC counts it: an
// oversized payload, and every arrival once the controller has been freed
// (or claimed by another job); a port is not opened for a bad group, and
// trying counts nothing.
func TestBarrierPortRefusals(t *testing.T) {
	cfg := testConfig(3)
	cfg.ForeignPGID = map[int]uint64{2: foreignPGID}
	seg := newSegment(t, cfg)
	n0, foreign := openNIC(t, seg, 0), openNIC(t, seg, 2)
	id, err := n0.AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	procs := []int{0, 1}
	checkPortsNotOpened(t, n0, foreign, id, procs)
	p, ok := n0.OpenBarrierPort(id, 0, procs)
	if !ok {
		t.Fatal("port refused")
	}
	checkPortPayloadLimit(t, n0, p)
	checkPortAfterFree(t, n0, foreign, p, id)
	if s := n0.Stats(); s.BarrierArrivals != 1 {
		t.Errorf("%d arrivals counted, want the one accepted", s.BarrierArrivals)
	}
}

// checkPortsNotOpened: no port opens for a bad controller, member or
// group, nor for another job's process, and trying counts no refusal.
func checkPortsNotOpened(t *testing.T, n0, foreign *NIC, id int, procs []int) {
	t.Helper()
	for _, c := range []struct {
		id, member int
		procs      []int
	}{{-1, 0, procs}, {NumBarriers, 0, procs}, {id + 1, 0, procs}, {id, 1, procs}, {id, 2, procs}, {id, 0, nil}, {id, 0, []int{0, 1, 0, 1}}} {
		if _, ok := n0.OpenBarrierPort(c.id, c.member, c.procs); ok {
			t.Errorf("port opened for controller %d, member %d of %v", c.id, c.member, c.procs)
		}
	}
	if _, ok := foreign.OpenBarrierPort(id, 0, []int{2}); ok {
		t.Error("another job's process opened a port to the job's controller")
	}
	if s := n0.Stats(); s.Refused != 0 {
		t.Fatalf("opening ports counted %d refusals", s.Refused)
	}
}

// checkPortPayloadLimit: p refuses a payload past BarrierPayloadSize,
// whole or in two parts, then takes one that fits.
func checkPortPayloadLimit(t *testing.T, n0 *NIC, p *BarrierPort) {
	t.Helper()
	ae := expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, func() error {
		_, err := p.ArriveData(1, nil, make([]byte, BarrierPayloadSize+1))
		return err
	})
	if ae.Length != BarrierPayloadSize+1 {
		t.Errorf("oversized payload refusal: %+v", ae)
	}
	ae = expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, func() error {
		half := make([]byte, BarrierPayloadSize/2+1)
		_, err := p.ArriveParts(1, nil, half, half)
		return err
	})
	if ae.Length != BarrierPayloadSize+2 {
		t.Errorf("oversized payload in two parts refusal: %+v", ae)
	}
	if _, err := p.ArriveData(1, nil, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	if got := string(p.Payload(0, 1)); got != "kept" {
		t.Fatalf("payload %q, want %q", got, "kept")
	}
}

// checkPortAfterFree frees controller id: p then refuses arrivals and
// reads no payload, and once another job claims id, refuses them as
// foreign.
func checkPortAfterFree(t *testing.T, n0, foreign *NIC, p *BarrierPort, id int) {
	t.Helper()
	if err := n0.FreeBarrier(id); err != nil {
		t.Fatal(err)
	}
	if got := p.Payload(0, 1); got != nil {
		t.Errorf("freed controller's payload read: %q", got)
	}
	expectSyncRefused(t, n0, ViolationBadRequest, OpBarrier, -1, func() error {
		_, err := p.ArriveData(1, nil, nil)
		return err
	})
	fid, err := foreign.AllocBarrier()
	if err != nil || fid != id {
		t.Fatalf("foreign AllocBarrier = %d, %v; want the freed %d", fid, err, id)
	}
	expectSyncRefused(t, n0, ViolationForeignJob, OpBarrier, -1, func() error {
		_, err := p.ArriveData(1, nil, nil)
		return err
	})
	if got := p.Payload(0, 1); got != nil {
		t.Errorf("another job's controller's payload read: %q", got)
	}
}

// spinReleased spins until generation gen of controller id is released,
// for a few seconds at most: a member that failed leaves the others
// waiting.
func spinReleased(n *NIC, id, size int, gen uint64) error {
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; !n.BarrierReleased(id, size, gen); i++ {
		if i%1024 == 0 && time.Now().After(deadline) {
			return fmt.Errorf("generation %d not released after 10 s", gen)
		}
	}
	return nil
}

// PayloadPart returns what Payload returns, wherever the part the caller
// says it reads starts (the first byte, inside the first line, further
// on, past the end) and however many bytes it has: none, part, all, more
// than the payload, more than the slot; and nothing for a generation the
// slot does not hold.
func TestBarrierPortPayloadPart(t *testing.T) {
	nics, id, procs := barrierGroup(t, 2)
	ports := openPorts(t, nics, id, procs)
	for g, size := range []int{1, 56, 57, 64, 200, 4096, BarrierPayloadSize} {
		gen := uint64(g + 1)
		for m, p := range ports {
			payload := pattern(size, gen<<8|uint64(m))
			if got, err := p.ArriveData(uint64(m), nil, payload); err != nil || got != gen {
				t.Fatalf("member %d: arrival = %d, %v; want %d", m, got, err, gen)
			}
		}
		for r := range procs {
			want := pattern(size, gen<<8|uint64(r))
			for _, from := range []int{0, 1, size / 2, size - 1, size + 64} {
				for _, n := range []int{0, 1, size / 2, size, size + 100, BarrierPayloadSize + 4096} {
					if got := ports[0].PayloadPart(r, gen, from, n); !bytes.Equal(got, want) {
						t.Fatalf("generation %d, member %d's %d bytes, reading %d from %d: got %d bytes, not the payload", gen, r, size, n, from, len(got))
					}
				}
			}
			if got := ports[0].PayloadPart(r, gen+2, 0, size); got != nil {
				t.Errorf("generation %d read from a slot that holds %d", gen+2, gen)
			}
		}
		if got := ports[0].PayloadPart(len(procs), gen, 0, size); got != nil {
			t.Errorf("member outside the group read")
		}
	}
}

// openPorts opens the ports of the members nics (member m at nics[m]) to
// controller id for the group procs.
func openPorts(t *testing.T, nics []*NIC, id int, procs []int) []*BarrierPort {
	t.Helper()
	ports := make([]*BarrierPort, len(nics))
	for m, n := range nics {
		var ok bool
		if ports[m], ok = n.OpenBarrierPort(id, m, procs); !ok {
			t.Fatalf("member %d: port refused", m)
		}
	}
	return ports
}
