package nicemu

import "testing"

// TestBarrierSum: the controller adds up the members' keys per generation
// and keeps the last two sums readable after the release.
func TestBarrierSum(t *testing.T) {
	nics, id, procs := barrierGroup(t, 3)
	arrive := func(keys ...uint64) uint64 {
		var gen uint64
		for m, k := range keys {
			g, err := nics[m].BarrierArriveKey(id, m, procs, k, []byte{byte(m)})
			if err != nil {
				t.Fatal(err)
			}
			if m < len(keys)-1 && nics[m].BarrierReleased(id, 3, g) {
				t.Fatalf("generation %d released after %d of 3 arrivals", g, m+1)
			}
			gen = g
		}
		if !nics[0].BarrierReleased(id, 3, gen) {
			t.Fatalf("generation %d not released after all arrivals", gen)
		}
		return gen
	}
	g1 := arrive(1, 2, 3)
	if s := nics[1].BarrierSum(id, 3, g1); s != 6 {
		t.Errorf("sum of generation %d = %d, want 6", g1, s)
	}
	g2 := arrive(10, 10, 0) // a zero key adds nothing
	if s := nics[2].BarrierSum(id, 3, g2); s != 20 {
		t.Errorf("sum of generation %d = %d, want 20", g2, s)
	}
	if s := nics[0].BarrierSum(id, 3, g1); s != 6 {
		t.Errorf("sum of generation %d after the next = %d, want 6", g1, s)
	}
	g3 := arrive(1<<KeyBits-1, 2, 1<<KeyBits) // sums wrap around; high bits are dropped
	if s := nics[0].BarrierSum(id, 3, g3); s != 1 {
		t.Errorf("sum of generation %d = %d, want 1 (modulo 2^%d)", g3, s, KeyBits)
	}
	if err := nics[0].FreeBarrier(id); err != nil {
		t.Fatal(err)
	}
	if id2, err := nics[1].AllocBarrier(); err != nil || id2 != id {
		t.Fatalf("realloc: %d, %v", id2, err)
	}
	if g := arrive(5, 5, 5); nics[0].BarrierSum(id, 3, g) != 15 {
		t.Errorf("sum after reallocation = %d, want 15 (no leftover from before)", nics[0].BarrierSum(id, 3, g))
	}
}

// TestBarrierDatum: DatumSize bytes of data per member travel with the arrival,
// readable by every member after the release, and the generation before's
// still.
func TestBarrierDatum(t *testing.T) {
	const size = 6
	seg := newSegment(t, testConfig(size))
	var nics []*NIC
	procs := make([]int, size)
	for p := range size {
		nics = append(nics, openNIC(t, seg, p))
		procs[p] = p
	}
	id, err := nics[0].AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	datum := func(round uint64, m int) (d [DatumSize]byte) {
		for i := range d {
			d[i] = byte(round)<<4 ^ byte(m) ^ byte(i)<<5
		}
		return d
	}
	var last uint64
	for round := uint64(1); round <= 3; round++ {
		var gen uint64
		for m := range size {
			d := datum(round, m)
			if gen, err = nics[m].BarrierArriveData(id, m, procs, 1, &d, nil); err != nil {
				t.Fatal(err)
			}
		}
		if !nics[0].BarrierReleased(id, size, gen) {
			t.Fatalf("round %d: not released", round)
		}
		for m := range size {
			if got, want := nics[size-1-m].BarrierDatum(id, m, gen), datum(round, m); got != want {
				t.Errorf("round %d: datum of member %d = %x, want %x", round, m, got, want)
			}
			if last != 0 {
				if got, want := nics[m].BarrierDatum(id, m, last), datum(round-1, m); got != want {
					t.Errorf("round %d: datum of member %d at the generation before = %x, want %x", round, m, got, want)
				}
			}
		}
		if s := nics[0].BarrierSum(id, size, gen); s != size {
			t.Errorf("round %d: key sum %d, want %d", round, s, size)
		}
		last = gen
	}
	if nics[0].BarrierDatum(id, size, last) != ([DatumSize]byte{}) || nics[0].BarrierDatum(-1, 0, last) != ([DatumSize]byte{}) {
		t.Error("datum of a member outside the job or of a bad id is not zero")
	}
}

// TestBarrierDatumReused: a ring entry taken again, RecordRingDepth
// generations on, carries the new data word whole, whether its second
// line (past DatumLine) changes, which putEntry stores, or stays as the
// entry's last arrival left it, which it does not.
func TestBarrierDatumReused(t *testing.T) {
	const size = 2
	seg := newSegment(t, testConfig(size))
	nics := []*NIC{openNIC(t, seg, 0), openNIC(t, seg, 1)}
	procs := []int{0, 1}
	id, err := nics[0].AllocBarrier()
	if err != nil {
		t.Fatal(err)
	}
	// The first line changes every round; the second stays the same for
	// two laps of the ring (so that the second lap finds it unchanged),
	// then changes.
	datum := func(round uint64, m int) (d [DatumSize]byte) {
		for i := range d {
			d[i] = byte(round) ^ byte(m)<<7 ^ byte(i)
			if i >= DatumLine {
				d[i] = byte(round/(2*RecordRingDepth)) ^ byte(m)<<7 ^ byte(i)<<1
			}
		}
		return d
	}
	for round := uint64(1); round <= 3*RecordRingDepth; round++ {
		var gen uint64
		for m := range size {
			d := datum(round, m)
			if gen, err = nics[m].BarrierArriveData(id, m, procs, 1, &d, nil); err != nil {
				t.Fatal(err)
			}
		}
		for m := range size {
			if got, want := nics[1-m].BarrierDatum(id, m, gen), datum(round, m); got != want {
				t.Fatalf("round %d: datum of member %d = %x, want %x", round, m, got, want)
			}
		}
	}
}
