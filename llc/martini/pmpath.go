package martini

import (
	"time"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// The write paths of the PM message layers (thesis 8.3-8.5), as MPICH-SCore
// uses them: with PM's remote memory access disabled (PM/RHiNET, "for
// stable operation") or absent (PM/RHiNET-VP), every byte of a message
// travels in PM messages.
//
// PM/RHiNET (SendGather): PM sends a message of more than 2040 bytes as
// several PUSHes of one packet each and waits for each PUSH's ack packet
// before it issues the next (8.4.3, 8.5: the tuning that spares the
// RHiNET-2/SW its fault), so every 2 KB of a message costs a packet's
// round trip. A pmSend carries at most 8184 bytes; larger data is several
// pmSends.
//
// PM/RHiNET-VP (SendVPUSH): a PM message is one VPUSH of at most one packet
// and has no ack; larger data is a series of them, each taken over by the
// receiver's firmware.

// pmGiveUpBytes is the smallest PM/RHiNET record whose trailer a receiver
// that saw its header may find not yet written (thesis 8.3.2, Fig 8.6:
// "when the message is 1 KB or more, ... the DMA transfer of the received
// data into host memory has not completed, so the end of the data cannot
// be detected; PM/RHiNET then gives up receiving and checks for messages
// from the other nodes"): that receiver sweeps the rings once more.
const pmGiveUpBytes = 1024

// pmMessage is the largest payload of one pmSend of PM/RHiNET (thesis
// 8.4.3: 8184 bytes).
const pmMessage = DefaultGatherLimit - 8

// pmChunk returns the length of the PUSH at offset i of an n-byte
// PM/RHiNET transfer: one packet (the MTU), except that the last 8 bytes
// (a trailer or signal word) are never split from one another.
func pmChunk(i, n int) int {
	size := min(nicemu.MTU, n-i)
	if rest := n - i - size; rest > 0 && rest < 8 {
		size -= 8
	}
	return size
}

// pushPM writes src to (peer, sid, off) as PM/RHiNET does: PUSHes of one
// packet each, every one waiting for its ack before the next is issued.
func (t *Translator) pushPM(peer int, sid nicemu.SID, off uint64, src []byte) error {
	for i := 0; i < len(src); {
		size := pmChunk(i, len(src))
		if err := t.nic.Push(peer, sid, off+uint64(i), src[i:i+size], &t.ack); err != nil {
			return err
		}
		i += size
	}
	return nil
}

// chargePMSends charges the host for n messages of a PM layer beyond the
// engine's own records: pmSend (Profile.PMSend) and, in virtual time, what
// the emulation's own code stands for in real time (virtual: VirtualPM or
// VirtualVP).
func (t *Translator) chargePMSends(n int, virtual func(*nicemu.Profile) time.Duration) {
	p := t.nic.Profile()
	if p == nil || n <= 0 {
		return
	}
	d := p.PMSend
	if t.nic.Clock() != nil {
		d += virtual(p)
	}
	t.nic.ChargeHost(time.Duration(n) * d)
}

func virtualPM(p *nicemu.Profile) time.Duration { return p.VirtualPM }
func virtualVP(p *nicemu.Profile) time.Duration { return p.VirtualVP }

// writeDataPM writes data that no engine record carries (a rendezvous
// transfer) as PM/RHiNET's pmSends of at most pmMessage bytes, each
// charged and pushed by pushPM.
func (t *Translator) writeDataPM(peer int, sid nicemu.SID, off uint64, data []byte) error {
	for i := 0; i < len(data); i += pmMessage {
		j := min(i+pmMessage, len(data))
		t.chargePMSends(1, virtualPM)
		if err := t.pushPM(peer, sid, off+uint64(i), data[i:j]); err != nil {
			return err
		}
	}
	return nil
}

// writeDataVP writes data that no engine record carries (a rendezvous
// transfer) as PM/RHiNET-VP's messages: one VPUSH packet each of at most
// llc.MaxQueueRecord bytes of data, issued back to back (no ack). The
// first is charged as a pmSend; the sender's pmSends of the others
// overlap the receiver's firmware, which takes longer for each packet
// (about 10 µs for 2 KB against about 4 µs of host work), so the
// receiver's firmware sets their pace, as the nicemu model of back-to-back
// requests makes it.
func (t *Translator) writeDataVP(peer int, sid nicemu.SID, off uint64, data []byte) error {
	t.chargePMSends(1, virtualVP)
	for i := 0; i < len(data); i += llc.MaxQueueRecord {
		j := min(i+llc.MaxQueueRecord, len(data))
		if err := t.nic.PushAsVPUSH(peer, sid, off+uint64(i), data[i:j]); err != nil {
			return err
		}
	}
	return nil
}
