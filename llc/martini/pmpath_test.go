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
// (PM/RHiNET-VP) the record as before (head, data, signal) and the data
// as one PUSH per VPUSH message of at most llc.MaxQueueRecord bytes. The
// bytes land where they are written.
func TestPMSendPaths(t *testing.T) {
	cases := []struct {
		path             string
		record, rndvData uint64 // PUSHes
	}{
		{SendGather, 3, 3},
		{SendVPUSH, 2, 3},
		{SendBOTF, 2, 1},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			ts := translators(t, 2, nicemu.ProfileNative)
			if err := ts[0].SetSendPath(c.path); err != nil {
				t.Fatal(err)
			}
			ev := ts[1].Execute(&llc.Command{Kind: llc.CmdAlloc, Size: 16 << 10, Token: 1})
			if ev.Kind != llc.EvDone {
				t.Fatalf("alloc: %+v", ev)
			}
			region, mem := llc.RegionID(ev.Value), ev.Mem
			data := bytes.Repeat([]byte{1, 2, 3, 4, 5}, 1000)
			pushes := func(cmd llc.Command) uint64 {
				before := ts[0].NIC().Stats().Push
				if ev := ts[0].Execute(&cmd); ev.Kind == llc.EvError {
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
