package martini

import (
	"bytes"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// TestPMChunk checks the PUSHes PM/RHiNET splits a transfer into: one
// packet each, the last 8 bytes never split.
func TestPMChunk(t *testing.T) {
	cases := []struct {
		n    int
		want []int
	}{
		{8, []int{8}},
		{2048, []int{2048}},
		{2056, []int{2048, 8}},
		{2052, []int{2040, 12}},
		{5000, []int{2048, 2048, 904}},
	}
	for _, c := range cases {
		var got []int
		for i := 0; i < c.n; {
			s := pmChunk(i, c.n)
			got = append(got, s)
			i += s
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d bytes: PUSHes of %v, want %v", c.n, got, c.want)
		}
	}
}

// TestPMSendPaths writes a 5000-byte record and 5000 bytes of rendezvous
// data under each PM send path and checks the requests the NIC saw: under
// gather (PM/RHiNET) one PUSH per 2 KB packet for both; under vpush
// (PM/RHiNET-VP) the record as under botf (one packet, natively: within
// NativeGatherLimit) and the data as one PUSH per VPUSH message of at most
// llc.MaxQueueRecord bytes. The bytes land where they are written.
func TestPMSendPaths(t *testing.T) {
	cases := []struct {
		path             string
		record, rndvData uint64 // PUSHes
	}{
		{SendGather, 3, 3},
		{SendVPUSH, 1, 3},
		{SendBOTF, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			ts := translators(t, 2, nicemu.ProfileNative)
			if err := ts[0].SetSendPath(c.path); err != nil {
				t.Fatal(err)
			}
			ev := llc.Outcome(ts[1].Execute(&llc.Command{Kind: llc.CmdAlloc, Size: 16 << 10, Token: 1}))
			if ev.Kind != llc.EvDone {
				t.Fatalf("alloc: %+v", ev)
			}
			region, mem := llc.RegionID(ev.Value), ev.Mem
			data := bytes.Repeat([]byte{1, 2, 3, 4, 5}, 1000)
			pushes := func(cmd llc.Command) uint64 {
				before := ts[0].NIC().Stats().Push
				if ev := llc.Outcome(ts[0].Execute(&cmd)); ev.Kind == llc.EvError {
					t.Fatalf("write: %v", ev.Err)
				}
				return ts[0].NIC().Stats().Push - before
			}
			rec := llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: region, Data: data, Signal: 9, SigOff: uint64(len(data))}
			if got := pushes(rec); got != c.record {
				t.Errorf("a 5000-byte record took %d PUSHes, want %d", got, c.record)
			}
			if !bytes.Equal(mem[:len(data)], data) || mem[len(data)] != 9 {
				t.Errorf("the record did not land whole")
			}
			rndv := llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: region, Off: 8 << 10, Data: data}
			if got := pushes(rndv); got != c.rndvData {
				t.Errorf("5000 bytes of rendezvous data took %d PUSHes, want %d", got, c.rndvData)
			}
			if !bytes.Equal(mem[8<<10:8<<10+len(data)], data) {
				t.Errorf("the rendezvous data did not land whole")
			}
		})
	}
}

// TestPackedRecordPackets writes packed ring records (meta, body, padding,
// signal) under the default send path: one BOTF packet up to
// DefaultBOTFLimit bytes, one gathered PUSH up to NativeGatherLimit, and
// in parts beyond; the padding lands zeroed and the signal last. Under the
// Martini model nothing is gathered and Caps packs no record, except on
// PM/RHiNET's gather path, which pushes a message of up to
// DefaultGatherLimit bytes with its header and trailer.
func TestPackedRecordPackets(t *testing.T) {
	cases := []struct {
		body         int
		botf, pushes uint64
	}{
		{100, 1, 0},                   // 24+100+8 in 192 bytes
		{1000, 0, 1},                  // 1088 bytes
		{NativeGatherLimit, 0, 3},     // head, body, signal
		{DefaultBOTFLimit - 32, 1, 0}, // 256 bytes exactly
	}
	ts := translators(t, 2, nicemu.ProfileNative)
	if c := ts[0].Caps(); c.PackedRecords != NativeGatherLimit {
		t.Errorf("native caps pack records of up to %d bytes, want %d", c.PackedRecords, NativeGatherLimit)
	}
	ev := llc.Outcome(ts[1].Execute(&llc.Command{Kind: llc.CmdAlloc, Size: 16 << 10, Token: 1}))
	if ev.Kind != llc.EvDone {
		t.Fatalf("alloc: %+v", ev)
	}
	region, mem := llc.RegionID(ev.Value), ev.Mem
	for _, c := range cases {
		clear(mem)
		for i := range mem {
			mem[i] = 0xee // padding that is not written shows
		}
		size := (32 + c.body + 63) / 64 * 64
		cmd := llc.Command{Kind: llc.CmdWrite, Peer: 1, Region: region, Off: 64, HeadLen: 24,
			Data: bytes.Repeat([]byte{7}, c.body), Signal: 9, SigOff: 64 + uint64(size) - 8}
		copy(cmd.Head[:], bytes.Repeat([]byte{5}, 24))
		before := ts[0].NIC().Stats()
		if ev := llc.Outcome(ts[0].Execute(&cmd)); ev.Kind == llc.EvError {
			t.Fatalf("%d bytes: %v", c.body, ev.Err)
		}
		after := ts[0].NIC().Stats()
		if botf, push := after.BOTF-before.BOTF, after.Push-before.Push; botf != c.botf || push != c.pushes {
			t.Errorf("%d bytes: %d BOTF and %d PUSH requests, want %d and %d", c.body, botf, push, c.botf, c.pushes)
		}
		rec := mem[64 : 64+size]
		if !bytes.Equal(rec[:24], bytes.Repeat([]byte{5}, 24)) || !bytes.Equal(rec[24:24+c.body], cmd.Data) || rec[size-8] != 9 {
			t.Errorf("%d bytes: the record did not land whole", c.body)
		}
		if pad := rec[24+c.body : size-8]; c.pushes < 2 && !bytes.Equal(pad, make([]byte, len(pad))) {
			t.Errorf("%d bytes: padding % x, want zeros", c.body, pad)
		}
	}

	m := translators(t, 2, nicemu.ProfileMartini)[0]
	if c := m.Caps(); c.PackedRecords != 0 || m.GatherLimit != 0 {
		t.Errorf("under the model: caps pack records of up to %d bytes, gather limit %d", c.PackedRecords, m.GatherLimit)
	}
	if err := m.SetSendPath(SendGather); err != nil {
		t.Fatal(err)
	}
	if c := m.Caps(); c.PackedRecords != DefaultGatherLimit {
		t.Errorf("under the model on PM/RHiNET's path: caps pack records of up to %d bytes, want %d", c.PackedRecords, DefaultGatherLimit)
	}
}
