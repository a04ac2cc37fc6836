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
	go func() { // the sender
		defer wg.Done()
		defer trs[0].nic.Clock().Stop()
		sent, errs[0] = ringFullSend(eps[0], trs[0], msgs)
	}()
	go func() { // the receiver computes, then receives
		defer wg.Done()
		defer trs[1].nic.Clock().Stop()
		errs[1] = ringFullReceive(eps[1], trs[1], msgs, compute)
	}()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	checkRingFull(t, eps[0], trs, sent, compute)
}

// ringFullSend starts ep, sends a first message (once it is in the ring,
// the ring is granted), then msgs of 1000 bytes, and returns the virtual
// time at which the last completed.
func ringFullSend(ep *llc.Endpoint, tr *Translator, msgs int) (time.Duration, error) {
	if err := ep.Start(); err != nil {
		return 0, err
	}
	first := &llc.SendOp{Peer: 1, Tag: int32(msgs), Data: make([]byte, 8)} // once it is in the ring, the ring is granted
	ep.Send(first)
	if ep.Wait(first); first.Err() != nil {
		return 0, first.Err()
	}
	ops := make([]*llc.SendOp, msgs)
	for i := range ops {
		ops[i] = &llc.SendOp{Peer: 1, Tag: int32(i), Data: make([]byte, 1000)}
		ep.Send(ops[i])
	}
	for _, op := range ops {
		ep.Wait(op)
		if err := op.Err(); err != nil {
			return 0, err
		}
	}
	return tr.nic.Clock().Now(), nil
}

// ringFullReceive starts ep, receives the first message, computes for
// compute of virtual time, then receives the msgs messages.
func ringFullReceive(ep *llc.Endpoint, tr *Translator, msgs int, compute time.Duration) error {
	if err := ep.Start(); err != nil {
		return err
	}
	first := &llc.RecvOp{Source: 0, Tag: int32(msgs), Buf: make([]byte, 8)}
	ep.Recv(first)
	if ep.Wait(first); first.Err() != nil {
		return first.Err()
	}
	tr.nic.Clock().Reach(tr.nic.Clock().Now() + compute)
	buf := make([]byte, 1000)
	for i := range msgs {
		op := &llc.RecvOp{Source: 0, Tag: int32(i), Buf: buf}
		ep.Recv(op)
		ep.Wait(op)
		if err := op.Err(); err != nil {
			return err
		}
	}
	return nil
}

// checkRingFull checks that the sender's ring filled, that it read the
// consumer count a handful of times, that its sends completed after the
// receiver's computing, and that no process escaped the ordering.
func checkRingFull(t *testing.T, sender *llc.Endpoint, trs [2]*Translator, sent, compute time.Duration) {
	t.Helper()
	st := sender.Statistics().Protocol
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
