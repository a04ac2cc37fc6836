package martini

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/shm"
	"github.com/rhinet-go/martini/nicemu"
)

// The receive queue of the IR (CmdAllocQueue, CmdEnqueue) is Martini's
// VPUSH queue: the layouts agree, and a record is one VPUSH
// message whose first QueueRecordHeader bytes are its length and sender.
var (
	_ [llc.QueueHeader - nicemu.VPUSHQueueHeader]struct{}
	_ [nicemu.VPUSHQueueHeader - llc.QueueHeader]struct{}
	_ [llc.QueueAlign - nicemu.VPUSHAlign]struct{}
	_ [nicemu.VPUSHAlign - llc.QueueAlign]struct{}
	_ [llc.QueueWrap - nicemu.VPUSHWrap]struct{}
	_ [nicemu.VPUSHWrap - llc.QueueWrap]struct{}
	_ [llc.MaxQueueRecord + llc.QueueRecordHeader - nicemu.MaxVPUSH]struct{}
	_ [nicemu.MaxVPUSH - llc.MaxQueueRecord - llc.QueueRecordHeader]struct{}
)

// allocQueue makes the process's VPUSH queue for a CmdAllocQueue of size
// bytes (header included), and reads it on every Poll.
func (t *Translator) allocQueue(size int) (nicemu.SID, []byte, error) {
	sid, mem, err := t.nic.AllocQueue(size - llc.QueueHeader)
	if err != nil {
		return 0, nil, err
	}
	q, err := shm.NewQueueReader(mem, t.nic.Segment().NProcs(), t.nic.ReleaseQueue)
	if err != nil {
		return 0, nil, fmt.Errorf("martini: %w", err)
	}
	if t.nic.Clock() != nil {
		q.OnArrival(func(off uint64, n int) bool {
			ok := t.nic.Arrived(sid, off, n)
			t.arrived = t.arrived || ok
			return ok
		})
	}
	t.mem.WatchQueue(q)
	return sid, mem, nil
}

// enqueue sends a CmdEnqueue as one VPUSH message: the record header, then
// Head and Data, gathered in the translator's send buffer (PM's send
// buffer, from which the NIC reads the message by DMA).
func (t *Translator) enqueue(c *llc.Command) error {
	head := c.Head[:c.HeadLen]
	n := len(head) + len(c.Data)
	if n > llc.MaxQueueRecord {
		return fmt.Errorf("martini: enqueue of %d bytes to process %d: a record holds at most %d", n, c.Peer, llc.MaxQueueRecord)
	}
	buf := t.qbuf[:llc.QueueRecordHeader+n]
	binary.LittleEndian.PutUint32(buf, uint32(n))
	binary.LittleEndian.PutUint32(buf[4:], uint32(t.nic.PID()))
	copy(buf[llc.QueueRecordHeader:], head)
	copy(buf[llc.QueueRecordHeader+len(head):], c.Data)
	if p := t.nic.Profile(); p != nil && t.nic.Clock() != nil {
		t.nic.ChargeHost(p.VirtualVP) // PM/RHiNET-VP's pmSend in virtual time
	}
	err := t.nic.VPush(c.Peer, buf)
	if errors.Is(err, nicemu.ErrVPUSHFull) {
		return fmt.Errorf("martini: enqueue to process %d: %w (%v)", c.Peer, llc.ErrQueueFull, err)
	}
	return err
}

// Charge implements llc.HostCharger: under a timing profile the host work
// of the PM message layers costs what the profile's PM costs say.
func (t *Translator) Charge(w llc.HostWork, n int) {
	p := t.nic.Profile()
	if p == nil || n <= 0 {
		return
	}
	switch w {
	case llc.WorkSend:
		t.nic.ChargeHost(time.Duration(n) * p.PMSend)
	case llc.WorkRecv:
		t.nic.ChargeHost(time.Duration(n) * p.PMRecv)
		t.recvs = n
	case llc.WorkCopies:
		t.copies = n
	case llc.WorkCopy:
		t.nic.ChargeHost(p.HostCopy(n, t.copies))
		t.copies = 0
	case llc.WorkZero:
		t.nic.ChargeHost(p.HostZero(n, t.recvs))
		t.recvs = 0
	case llc.WorkPoll:
		if t.nic.Clock() == nil {
			t.nic.ChargeHost(time.Duration(n) * p.PMPoll)
			break
		}
		// Virtual time: polls that found nothing are time spent waiting,
		// which the arrival's time accounts for; the poll that found a
		// message costs one pass over the receive buffers (Fig 8.4: half
		// a pass on average before the sweep reaches the buffer it landed
		// in, and the misses the sweep leaves to the processing after it,
		// 8.3.2), and a second pass when PM/RHiNET gave up on its trailer.
		if t.arrived {
			passes := 1
			if t.gaveUp {
				passes++
			}
			t.nic.ChargeHost(time.Duration(passes) * p.PMSweep(n))
		}
		t.arrived, t.gaveUp = false, false
	}
}
