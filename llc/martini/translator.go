// Package martini is the translator between the network-independent LLC
// layer and the emulated Martini NIC: it turns IR commands into Window
// requests (PUSH, PULL, BOTF, CAS) and NIC completions into IR events. It is
// the only part of the communication stack that knows the NIC.
package martini

import (
	"encoding/binary"
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// Translator implements llc.Transport over a nicemu.NIC.
type Translator struct {
	nic *nicemu.NIC
	sig [8]byte
	// BOTFLimit is the largest write sent as a BOTF packet image written
	// into a Window; larger ones are PUSH requests, which the NIC reads
	// from the source by DMA without the extra copy into the Window
	// (0 disables BOTF).
	BOTFLimit int
	// SleepTimeout bounds one doorbell sleep, as a safety net.
	SleepTimeout time.Duration
}

// DefaultBOTFLimit is the default BOTFLimit: small messages go as one
// programmed-I/O packet image, as Martini's BOTF is meant for.
const DefaultBOTFLimit = 256

// New returns a translator for nic.
func New(nic *nicemu.NIC) *Translator {
	return &Translator{nic: nic, BOTFLimit: DefaultBOTFLimit, SleepTimeout: 20 * time.Millisecond}
}

// NIC returns the NIC the translator drives.
func (t *Translator) NIC() *nicemu.NIC { return t.nic }

// Execute performs one IR command on the NIC.
func (t *Translator) Execute(c *llc.Command) llc.Event {
	var (
		val uint64
		mem []byte
		err error
	)
	n := t.nic
	sid := nicemu.SID(c.Region)
	switch c.Kind {
	case llc.CmdWrite:
		err = t.write(c)
	case llc.CmdRead:
		err = n.Pull(c.Peer, sid, c.Off, c.Data, nil)
	case llc.CmdCAS:
		val, err = n.CompareAndSwap(c.Peer, sid, c.Off, c.Old, c.New)
	case llc.CmdRegister:
		var s nicemu.SID
		s, err = n.RegisterMemory(c.Data)
		val = uint64(s)
	case llc.CmdAlloc:
		var s nicemu.SID
		s, mem, err = n.RegisterSegment(c.Size)
		val = uint64(s)
	case llc.CmdRelease:
		err = n.Deregister(sid)
	}
	switch {
	case err != nil:
		return llc.Event{Kind: llc.EvError, Token: c.Token, Err: err}
	case c.Token == 0:
		return llc.Event{}
	}
	return llc.Event{Kind: llc.EvDone, Token: c.Token, Value: val, Mem: mem}
}

// write sends the header and data of a CmdWrite, then its signal word.
// When the signal directly follows the data and all of it fits a Window, it
// is one BOTF packet whose last word (the signal) lands last; otherwise the
// parts are PUSH requests, the signal an 8-byte PUSH that lands atomically
// after them.
func (t *Translator) write(c *llc.Command) error {
	n := t.nic
	sid := nicemu.SID(c.Region)
	head := c.Head[:c.HeadLen]
	total := len(head) + len(c.Data)
	if total == 0 {
		return t.signal(c)
	}
	if c.Signal != 0 && c.SigOff == c.Off+uint64(total) && total+8 <= t.BOTFLimit {
		img := n.BOTFBuffer()
		copy(img, head)
		copy(img[len(head):], c.Data)
		binary.LittleEndian.PutUint64(img[total:], c.Signal)
		return n.KickBOTF(c.Peer, sid, c.Off, total+8)
	}
	if total <= t.BOTFLimit {
		img := n.BOTFBuffer()
		copy(img, head)
		copy(img[len(head):], c.Data)
		if err := n.KickBOTF(c.Peer, sid, c.Off, total); err != nil {
			return err
		}
	} else {
		if len(head) > 0 {
			if err := n.Push(c.Peer, sid, c.Off, head, nil); err != nil {
				return err
			}
		}
		if len(c.Data) > 0 {
			if err := n.Push(c.Peer, sid, c.Off+uint64(len(head)), c.Data, nil); err != nil {
				return err
			}
		}
	}
	return t.signal(c)
}

// signal writes a command's signal word, if any, as an 8-byte PUSH.
func (t *Translator) signal(c *llc.Command) error {
	if c.Signal == 0 {
		return nil
	}
	binary.LittleEndian.PutUint64(t.sig[:], c.Signal)
	return t.nic.Push(c.Peer, nicemu.SID(c.Region), c.SigOff, t.sig[:], nil)
}

// Poll serves bounce-buffer requests other processes posted to this one.
func (t *Translator) Poll() bool { return t.nic.Service() }

// Arm announces that the process may sleep on its doorbell.
func (t *Translator) Arm() uint32 { return t.nic.ArmDoorbell() }

// Sleep blocks until a peer writes to this process or SleepTimeout passes.
func (t *Translator) Sleep(ticket uint32) { t.nic.WaitDoorbell(ticket, t.SleepTimeout) }

// Disarm withdraws Arm.
func (t *Translator) Disarm() { t.nic.DisarmDoorbell() }

// Wake wakes the process's goroutines asleep on the doorbell, so that they
// look again at what they wait for.
func (t *Translator) Wake() { t.nic.Wake() }
