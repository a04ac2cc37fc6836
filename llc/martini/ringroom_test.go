package martini

import (
	"sync"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// pmPair builds the endpoints of a two-process PM/RHiNET job (-eager pm,
// the gather send path) in virtual time, with rings of ring bytes. Each
// process's goroutine must Start its endpoint, and Stop its clock when it
// is done, as mpi's Init and Finalize do.
func pmPair(t *testing.T, ring int) ([2]*llc.Endpoint, [2]*Translator) {
	t.Helper()
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: 2, PGID: 42, Profile: nicemu.ProfileMartini, Clock: nicemu.ClockVirtual, HeapSize: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { seg.Close() })
	var trs [2]*Translator
	var boot [2]llc.RegionID
	for i := range trs {
		nic, err := nicemu.Open(seg, i)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nic.Close() })
		trs[i] = New(nic)
		if err := trs[i].SetSendPath(SendGather); err != nil {
			t.Fatal(err)
		}
		trs[i].SetRingWait(true)
		nic.Clock().Run()
		if boot[i], err = llc.AllocBoot(trs[i], i, 2); err != nil {
			t.Fatal(err)
		}
	}
	var eps [2]*llc.Endpoint
	for i := range eps {
		eng, err := llc.NewEngine(llc.Config{Self: i, Size: 2, Boot: boot[:], Eager: llc.EagerPM,
			EagerLimit: 2048, RingSize: ring, RingCap: 1 << 20, PackedRecords: trs[i].Caps().PackedRecords})
		if err != nil {
			t.Fatal(err)
		}
		eps[i] = llc.NewEndpoint(eng, trs[i])
	}
	return eps, trs
}

// TestVirtualRingFull: in virtual time, under PM/RHiNET, a sender whose
// ring is full while its receiver computes far ahead reads the consumer
// count a handful of times, not once a PULL's time until its clock has
// passed the receiver's (thousands of reads), and its sends complete at
// the receiver's releases, after its computing.
func TestVirtualRingFull(t *testing.T) {
	const (
		ring    = 16 << 10 // 8 PM records of 2 KB
		msgs    = 24
		compute = 20 * time.Millisecond
	)
	eps, trs := pmPair(t, ring)
	var wg sync.WaitGroup
	var sent time.Duration
	errs := make([]error, 2)
	wg.Add(2)
	start := func(i int) bool {
		errs[i] = eps[i].Start()
		return errs[i] == nil
	}
	go func() { // the sender
		defer wg.Done()
		defer trs[0].nic.Clock().Stop()
		if !start(0) {
			return
		}
		first := &llc.SendOp{Peer: 1, Tag: msgs, Data: make([]byte, 8)} // once it is in the ring, the ring is granted
		eps[0].Send(first)
		if eps[0].Wait(first); first.Err() != nil {
			errs[0] = first.Err()
			return
		}
		ops := make([]*llc.SendOp, msgs)
		for i := range ops {
			ops[i] = &llc.SendOp{Peer: 1, Tag: int32(i), Data: make([]byte, 1000)}
			eps[0].Send(ops[i])
		}
		for _, op := range ops {
			eps[0].Wait(op)
			if errs[0] = op.Err(); errs[0] != nil {
				return
			}
		}
		sent = trs[0].nic.Clock().Now()
	}()
	go func() { // the receiver computes, then receives
		defer wg.Done()
		defer trs[1].nic.Clock().Stop()
		if !start(1) {
			return
		}
		first := &llc.RecvOp{Source: 0, Tag: msgs, Buf: make([]byte, 8)}
		eps[1].Recv(first)
		if eps[1].Wait(first); first.Err() != nil {
			errs[1] = first.Err()
			return
		}
		trs[1].nic.Clock().Reach(trs[1].nic.Clock().Now() + compute)
		buf := make([]byte, 1000)
		for i := range msgs {
			op := &llc.RecvOp{Source: 0, Tag: int32(i), Buf: buf}
			eps[1].Recv(op)
			eps[1].Wait(op)
			if errs[1] = op.Err(); errs[1] != nil {
				return
			}
		}
	}()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	st := eps[0].Statistics().Protocol
	if st.RingFull == 0 {
		t.Fatal("the ring never filled")
	}
	if st.TailReads > 10 {
		t.Errorf("%d reads of the consumer count (ring full %d times), want a handful", st.TailReads, st.RingFull)
	}
	if sent < compute {
		t.Errorf("the sends completed at %v, before the receiver's release after %v of computing", sent, compute)
	}
	for i, tr := range trs {
		if e := tr.nic.Clock().Escapes(); e != 0 {
			t.Errorf("process %d escaped the ordering %d times", i, e)
		}
	}
	t.Logf("tail reads %d, ring full %d, sends done at %v", st.TailReads, st.RingFull, sent)
}
