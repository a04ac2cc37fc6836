package martini

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
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
	switch {
	case errors.Is(err, nicemu.ErrRoomAnnounced):
		return err // the caller holds it (enqueueOrHold)
	case errors.Is(err, nicemu.ErrVPUSHFull):
		return fmt.Errorf("martini: enqueue to process %d: %w (%v)", c.Peer, llc.ErrQueueFull, err)
	}
	return err
}

// In virtual time a record that finds the receiver's queue full is not
// handed back to the engine to try again at the process's clock, one try
// after another until the receiver has consumed (each try a VPUSH's cost
// in virtual time, thousands of them in real time while the receiver
// computes far ahead): the translator holds the command, the process waits
// as for data, and the receiver's next release wakes it (nicemu's
// vroom.go); it then sends the record again at the time of that release
// and completes the command, or holds it again.

// errHeld is what enqueueOrHold returns for a record it holds.
var errHeld = errors.New("martini: record held until the receiver has room")

// enqueueOrHold performs a CmdEnqueue, or keeps one that found the queue
// full until the receiver releases room (then it returns errHeld, and the
// completion comes from Poll: pollRoom).
func (t *Translator) enqueueOrHold(c *llc.Command) error {
	err := t.enqueue(c)
	if errors.Is(err, nicemu.ErrRoomAnnounced) {
		t.held = append(t.held, *c)
		return errHeld
	}
	return err
}

// The same for a PM ring (nicemu's vring.go): a read of a ring's consumer
// count that finds it unchanged (llc.ReadChanged) is held, the process
// waits as for data, and the receiver's next publication of that count
// wakes it; the translator then reads the count again at the time of that
// publication and completes the read, or holds it again. In real time, and
// on the other networks, the read completes at once.

// readOrHold performs a CmdRead (a PULL), or keeps one that asks to wait
// for a change of the word it reads (llc.ReadChanged) and found it
// unchanged, in virtual time, until the word's owner publishes it again
// (then it returns errHeld, and the completion comes from Poll: pollRoom).
func (t *Translator) readOrHold(c *llc.Command) error {
	held, err := t.read(c)
	if held {
		t.held = append(t.held, *c)
		return errHeld
	}
	return err
}

// read performs a CmdRead, and reports whether it must be held: the word
// read is unchanged, and the owner's next publication of it wakes the
// process (nicemu.NIC.AwaitRing).
func (t *Translator) read(c *llc.Command) (held bool, err error) {
	if !t.nic.PullData(c.Peer, nicemu.SID(c.Region), c.Off, c.Data) {
		err = t.nic.Pull(c.Peer, nicemu.SID(c.Region), c.Off, c.Data, nil)
	}
	if err != nil || c.Size != llc.ReadChanged || !t.RingWait || t.clock == nil || len(c.Data) != 8 || c.Token == 0 ||
		binary.LittleEndian.Uint64(c.Data) != c.Old {
		return false, err
	}
	return t.nic.AwaitRing(c.Peer, nicemu.SID(c.Region), c.Off, c.Old), nil
}

// pollRoom sends again the held records whose receivers released room
// since, and reads again the held consumer counts whose owners published
// them since, and steps the completions of those that went (or failed). It
// reports whether it completed any. Poll calls it only while it holds
// commands: not on a message's path.
func (t *Translator) pollRoom(sink llc.Sink) bool {
	if room, rings := t.nic.PollRoom(), t.nic.PollRings(); !room && !rings {
		return false
	}
	done := false
	for i := 0; i < len(t.held); {
		c := t.held[i]
		var err error
		switch {
		case c.Kind == llc.CmdRead:
			if t.nic.RingWaiting(c.Peer) {
				i++
				continue
			}
			var held bool
			if held, err = t.read(&c); held {
				i++ // unchanged again: held until the next publication
				continue
			}
		case !t.nic.RoomFor(c.Peer):
			i++
			continue
		default:
			err = t.enqueue(&c)
			if errors.Is(err, nicemu.ErrRoomAnnounced) {
				i++ // full again: held until the next release
				continue
			}
		}
		t.held = slices.Delete(t.held, i, i+1)
		t.roomEv = llc.Event{Kind: llc.EvDone, Token: c.Token}
		if err != nil {
			t.roomEv = llc.Event{Kind: llc.EvError, Token: c.Token, Err: err}
		}
		sink.Step(&t.roomEv)
		done = true
	}
	return done
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
