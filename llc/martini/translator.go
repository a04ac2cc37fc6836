// Package martini is the translator between the network-independent LLC
// layer and the emulated Martini NIC: it turns IR commands into Window
// requests (PUSH, PULL, BOTF, AOTF, CAS) and NIC completions into IR events. It is
// the only part of the communication stack that knows the NIC.
package martini

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/internal/memcopy"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/layout"
	"github.com/rhinet-go/martini/llc/shm"
	"github.com/rhinet-go/martini/nicemu"
)

// Translator implements llc.Transport over a nicemu.NIC.
type Translator struct {
	nic *nicemu.NIC
	// clock is the NIC's virtual clock, fixed when it opened: nil unless
	// the job runs in virtual time. Every poll looks at it.
	clock *nicemu.Clock
	sig   [8]byte
	// BOTFLimit is the largest write sent as a BOTF packet image written
	// into a Window; larger ones are PUSH requests, which the NIC reads
	// from the source by DMA without the extra copy into the Window
	// (0 disables BOTF).
	BOTFLimit int
	// AOTFLimit is the largest write, signal included, sent as AOTF
	// stores: 8-byte words, each its own packet, written to a page whose
	// push header the NIC holds (0, the default, disables AOTF). Only
	// 8-byte aligned writes whose signal follows the data and that stay
	// within a page qualify.
	AOTFLimit int
	// GatherLimit is the largest write, signal included, whose head, data
	// and signal (when it follows the data) are gathered into the
	// translator's send buffer and sent by one PUSH, as PM/RHiNET's pmSend
	// pushes a message with its header and trailer (0, the default,
	// disables it). Writes that BOTF or AOTF take are not gathered.
	GatherLimit int
	// PMPackets makes every PUSH one packet that waits for its ack before
	// the next is issued, and sends data that no record carries as
	// pmSends, as PM/RHiNET does (pmpath.go; the gather send path).
	PMPackets bool
	// VPUSHData sends data that no record carries (rendezvous transfers)
	// as PM/RHiNET-VP's messages, one VPUSH packet each (pmpath.go; the
	// vpush send path).
	VPUSHData bool
	// RMA sends data into a user's registered buffer (a rendezvous
	// transfer, a put into a window of user memory) as one PUSH request,
	// which the NIC splits into packets without waiting for acks:
	// PM/RHiNET's remote memory access, beside PMPackets' messages
	// (mpirun -pm-rma).
	RMA bool
	// SleepTimeout bounds one doorbell sleep, as a safety net.
	SleepTimeout time.Duration
	// RingWait, in virtual time, holds a read of a ring's consumer count
	// that finds it as the engine last read it (llc.ReadChanged) until
	// the owner publishes it again, as a VPUSH that finds the queue full
	// waits for the owner's release (queue.go: readOrHold); without it
	// the read completes at once and the engine reads again at the
	// process's clock. OpenJob sets it under -eager pm when EnvRingWait
	// is 1. Set it with SetRingWait.
	RingWait bool

	aotf aotfPages
	qbuf [nicemu.MaxVPUSH]byte // send buffer of CmdEnqueue
	// held are the CmdEnqueues waiting for room in their receivers'
	// queues, and the CmdReads waiting for their rings' consumer counts
	// to change, in virtual time (enqueueOrHold, readOrHold); roomEv is
	// the event of one completed, refilled.
	held   []llc.Command
	roomEv llc.Event
	gbuf   []byte    // send buffer of gathered writes (GatherLimit bytes)
	ack    uint64    // the ack word of PMPackets' PUSHes
	ev     llc.Event // the event Execute returns, refilled

	// mem reads what peers write into this process's rings, slots and
	// receive queue.
	mem *shm.LocalMemory
	// lines are this process's halves of its shared lines, by peer,
	// mapped on their first write.
	lines []lineOut
	// offload: the collectives may use the synchronisation network.
	offload bool
	// arrived: in virtual time, a poll delivered something since the
	// last poll work was charged (Charge).
	arrived bool
	// gaveUp: in virtual time, a PM/RHiNET record of at least
	// pmGiveUpBytes arrived since then, whose trailer a waiting receiver
	// finds missing after its header (thesis 8.3.2).
	gaveUp bool
	// copies and recvs are the counts of the batch being charged
	// (llc.WorkCopies, llc.WorkRecv), which size its copies and zeroing.
	copies, recvs int
	// latency and bandwidth are the timing model's costs (Caps), 0 when
	// the NIC runs natively.
	latency   time.Duration
	bandwidth float64
}

// DefaultBOTFLimit is the default BOTFLimit: small messages go as one
// programmed-I/O packet image, as Martini's BOTF is meant for.
const DefaultBOTFLimit = 256

// DefaultAOTFLimit is the AOTFLimit the aotf send path uses: a ring record
// of one cell, eight AOTF stores.
const DefaultAOTFLimit = 64

// Send paths for small writes, the values of SetSendPath.
const (
	SendBOTF = "botf" // a BOTF packet image (the default)
	SendPush = "push" // PUSH requests: data, then the signal word
	SendAOTF = "aotf" // AOTF stores for one-cell records, BOTF above
	// SendGather gathers each record with its signal into a send buffer
	// and sends it by one PUSH, as PM/RHiNET does (the path of the pm
	// eager transport; not a user choice).
	SendGather = "gather"
	// SendVPUSH sends small writes as BOTF does and data that no record
	// carries as PM/RHiNET-VP's VPUSH messages (the path of the vp eager
	// transport; not a user choice).
	SendVPUSH = "vpush"
)

// NativeGatherLimit is the GatherLimit of the BOTF send path outside the
// Martini model: a packed ring record too long for a BOTF packet is one
// PUSH, rather than written in two parts. NIC.PushPacket gathers it where
// it lands; the send buffer holds it only where the NIC declines that.
// Records of up to 8 KiB of body: in PingPong at 2 processes, 2 to 8 KiB
// take 0.88-0.93 of the time they took as two writes (docs/decisions.md).
const NativeGatherLimit = 8256

// DefaultGatherLimit is the GatherLimit of the gather send path: PM's
// largest message that one pmSend carries (thesis 8.4.3: 8184 bytes).
const DefaultGatherLimit = 8192

// SetSendPath selects how small writes travel: SendBOTF, SendPush,
// SendAOTF, SendGather or SendVPUSH ("" keeps the default, BOTF).
func (t *Translator) SetSendPath(path string) error {
	botf, aotf, gather := 0, 0, 0
	switch path {
	case "", SendBOTF, SendVPUSH:
		botf = DefaultBOTFLimit
	case SendPush:
	case SendAOTF:
		botf, aotf = DefaultBOTFLimit, DefaultAOTFLimit
	case SendGather:
		gather = DefaultGatherLimit
	default:
		return fmt.Errorf("martini: send path %q: want %s, %s, %s, %s or %s", path, SendBOTF, SendPush, SendAOTF, SendGather, SendVPUSH)
	}
	if botf > 0 && aotf == 0 && gather == 0 && t.nic.Profile() == nil {
		gather = NativeGatherLimit
	}
	t.BOTFLimit, t.AOTFLimit, t.GatherLimit = botf, aotf, gather
	t.PMPackets, t.VPUSHData = path == SendGather, path == SendVPUSH
	return nil
}

// aotfPages remembers which target page each of the NIC's AOTF push
// headers names, replacing them round-robin. (The NIC checks a header when
// it is set; the pages it names are those of the peers' rings, which live
// as long as the job.)
type aotfPages struct {
	target     [nicemu.NumAOTFPages]aotfTarget
	next, last int
}

type aotfTarget struct {
	set       bool
	peer      int
	sid       nicemu.SID
	pageStart uint64
}

// New returns a translator for nic.
func New(nic *nicemu.NIC) *Translator {
	t := &Translator{nic: nic, clock: nic.Clock(), SleepTimeout: 500 * time.Millisecond,
		mem: shm.NewLocalMemory(nic.PID()), offload: true}
	t.SetSendPath(SendBOTF) // the default send path: no error
	if p := nic.Profile(); p != nil {
		// A small message's write as BOTF, and one long PUSH.
		const long = 1 << 20
		t.latency = p.WriteLatency(nicemu.OpBOTF, 8)
		t.bandwidth = long / p.WriteLatency(nicemu.OpPush, long).Seconds()
	}
	if nic.Clock() != nil {
		t.mem.OnArrival(func(r llc.RegionID, off uint64, n int) bool {
			ok := nic.Arrived(nicemu.SID(r), off, n)
			t.arrived = t.arrived || ok
			t.gaveUp = t.gaveUp || ok && n >= pmGiveUpBytes
			return ok
		})
	}
	return t
}

// SetRingWait sets RingWait. With it on, in virtual time, the rings of
// this process publish their consumer counts as they consume records, and
// wake a sender that waits for that (nicemu.NIC.PublishedRing).
func (t *Translator) SetRingWait(on bool) {
	t.RingWait = on
	if on && t.clock != nil {
		t.mem.OnPublish(t.nic.PublishedRing)
		return
	}
	t.mem.OnPublish(nil)
}

// VirtualClock implements llc.Clocked: the NIC's virtual clock when the
// job runs in virtual time, nil otherwise.
func (t *Translator) VirtualClock() llc.Clock {
	if c := t.nic.Clock(); c != nil {
		return c
	}
	return nil
}

// Caps reports what the emulated Martini offers: shared memory that peers
// load and store, VPUSH records of one 2 KB packet, BOTF as the inline
// path, and the synchronisation network unless disabled. Under a timing
// profile (Modelled) the model's latency (a small write by BOTF) and
// bandwidth (a long PUSH) are known, and the modelled NIC has no memory that two processes
// store into (no SharedLines), and only PM/RHiNET's path packs records,
// one pmSend of up to GatherLimit bytes (thesis 8.3.1): the model's other
// recorded runs wrote every record of more than a cell in two parts.
func (t *Translator) Caps() llc.Caps {
	c := llc.Caps{
		Name:         "martini",
		LoadStore:    true,
		AnyLoadStore: true,
		MaxRecord:    llc.MaxQueueRecord,
		MaxInline:    t.BOTFLimit,
		Offload:      t.offload,
		Modelled:     t.Modelled(),
		Latency:      t.latency,
		Bandwidth:    t.bandwidth,
	}
	switch {
	case !c.Modelled:
		c.PackedRecords = max(t.BOTFLimit, t.GatherLimit)
		c.SharedLines = true
	case t.PMPackets:
		c.PackedRecords = t.GatherLimit
	}
	return c
}

// YieldHelps implements llc.YieldAdvisor (nicemu.NIC.YieldHelps): whether
// a waiter's yield may let another process on its CPU do something. Under
// the Martini model and in virtual time it reports true: the waits there
// are the model's, and left as they were.
func (t *Translator) YieldHelps() bool {
	return t.Modelled() || t.nic.YieldHelps()
}

// PublishCPU publishes the CPU this process is pinned to (-1: none), by
// which the processes of the job that share it know each other
// (YieldHelps; nicemu.NIC.PublishCPU).
func (t *Translator) PublishCPU(cpu int) { t.nic.PublishCPU(cpu) }

// PeerUnpinned reports whether this process is pinned and another of the
// host's has published that it is pinned to none
// (nicemu.NIC.PeerUnpinned).
func (t *Translator) PeerUnpinned() bool { return t.nic.PeerUnpinned() }

// CPUMates returns the CPU this process is pinned to and the process ids
// of the host's processes pinned to it (nicemu.NIC.CPUMates).
func (t *Translator) CPUMates() (cpu int, pids []int) { return t.nic.CPUMates() }

// Modelled reports whether the NIC runs under a timing profile (the
// Martini model), whose requests the synchronisation network's payloads
// and multicasts bypass.
func (t *Translator) Modelled() bool { return t.nic.Profile() != nil }

// PeerMemory returns this process's view of region, segment memory that
// process peer allocated (CmdAlloc): the segment is mapped into every
// process of the host (llc.SharedMemory).
func (t *Translator) PeerMemory(peer int, region llc.RegionID) ([]byte, error) {
	mem, err := t.nic.SharedRegion(peer, nicemu.SID(region))
	if err != nil {
		return nil, fmt.Errorf("martini: %w", err)
	}
	return mem, nil
}

// NIC returns the NIC the translator drives.
func (t *Translator) NIC() *nicemu.NIC { return t.nic }

// Execute performs one IR command on the NIC. A shared line's write, the
// command of every small message between two processes of a host, is
// tested for first, in a function small enough to inline where the
// engine's driver calls it; then a ring record of one cell (cellBOTF),
// then the other packets (pushRecord), whose call stays on the line it
// had before the cell's test came: the profile-guided build inlines it
// by its line.
func (t *Translator) Execute(c *llc.Command) *llc.Event {
	if c.Kind == llc.CmdWriteLine && c.Token == 0 {
		if err := t.writeLine(c); err != nil {
			return t.failed(c, err)
		}
		return nil
	}
	if c.Kind == llc.CmdWrite && (t.cellBOTF(c) && t.pushCell(c) || t.pushRecord(c)) {
		return nil
	}
	return t.execute(c)
}

// pushRecord writes c, a CmdWrite that is one packet whose last word is
// its signal (a packed ring record, the command of a message that goes
// through a ring), by NIC.PushPacket, and reports whether it did; it
// reports false, having done nothing, where c goes execute's way. A
// command with a token, whose completion is an event, goes that way.
func (t *Translator) pushRecord(c *llc.Command) bool {
	if c.Token != 0 {
		return false
	}
	head := c.Head[:c.HeadLen]
	end, path := t.packet(c, len(head)+len(c.Data))
	op := nicemu.OpBOTF
	switch {
	case path == packetGather && !t.PMPackets:
		op = nicemu.OpPush
	case path != packetBOTF:
		return false
	}
	if !t.nic.PushPacket(c.Peer, nicemu.SID(c.Region), c.Off, head, c.Data, end, c.Signal, op) {
		return false
	}
	t.mem.Wrote(c.Peer, shm.RingRecord)
	return true
}

// cellBOTF reports whether c is a record of one cell, its head the whole
// cell before the signal, without a token, that packet sends as a BOTF
// packet: one too long for AOTF that BOTF carries.
func (t *Translator) cellBOTF(c *llc.Command) bool {
	return c.HeadLen == llc.MaxHead && len(c.Data) == 0 && c.Signal != 0 && c.SigOff == c.Off+llc.MaxHead && c.Token == 0 &&
		llc.MaxHead+8 > t.AOTFLimit && llc.MaxHead+8 <= t.BOTFLimit
}

// pushCell writes c, a record of one cell that goes by BOTF (cellBOTF),
// by NIC.PushCell, PushPacket's for a cell with fewer arguments and
// tests, and reports whether it did; it reports false, having done
// nothing, where pushRecord would.
func (t *Translator) pushCell(c *llc.Command) bool {
	if !t.nic.PushCell(c.Peer, nicemu.SID(c.Region), c.Off, (*[llc.MaxHead]byte)(c.Head[:]), c.Signal, nicemu.OpBOTF) {
		return false
	}
	t.mem.Wrote(c.Peer, shm.RingRecord)
	return true
}

// failed returns the event of command c, which failed with err.
func (t *Translator) failed(c *llc.Command, err error) *llc.Event {
	t.ev = llc.Event{Kind: llc.EvError, Token: c.Token, Err: err}
	return &t.ev
}

// execute is Execute of every command but a shared line's write without
// a token.
func (t *Translator) execute(c *llc.Command) *llc.Event {
	var (
		val uint64
		mem []byte
		err error
	)
	switch c.Kind {
	case llc.CmdWrite:
		if err = t.write(c); err == nil && c.Signal != 0 {
			t.mem.Wrote(c.Peer, shm.RingRecord) // a record, or the signal of one
		}
	case llc.CmdRead:
		if err = t.readOrHold(c); err == errHeld {
			return nil
		}
	case llc.CmdCAS, llc.CmdFetchAdd, llc.CmdRegister, llc.CmdAlloc, llc.CmdRelease, llc.CmdAllocQueue:
		val, mem, err = t.executeMemory(c)
	case llc.CmdEnqueue:
		if err = t.enqueueOrHold(c); err == errHeld {
			return nil
		}
	case llc.CmdWatchRing, llc.CmdWatchSlot:
		if err = t.mem.Watch(c); err == nil {
			return nil
		}
	case llc.CmdWatchLine:
		if err = t.watchLine(c); err == nil {
			return nil
		}
	case llc.CmdWriteLine:
		err = t.writeLine(c)
	default:
		err = fmt.Errorf("martini: unknown command %v", c.Kind)
	}
	switch {
	case err != nil:
		return t.failed(c, err)
	case c.Token == 0:
		return nil
	}
	// Field by field after a zeroing: a literal would be built in a
	// temporary and copied by 16-byte moves across its smaller stores
	// (docs/decisions.md, "Stores and loads of different sizes").
	ev := &t.ev
	*ev = llc.Event{}
	ev.Kind, ev.Token, ev.Value, ev.Mem = llc.EvDone, c.Token, val, mem
	return ev
}

// executeMemory carries out c, a command on memory rather than a message:
// an atomic operation on a peer's word, or the registration, allocation or
// release of a region, and returns the command's value and the memory it
// allocated.
func (t *Translator) executeMemory(c *llc.Command) (val uint64, mem []byte, err error) {
	n := t.nic
	sid := nicemu.SID(c.Region)
	switch c.Kind {
	case llc.CmdCAS:
		var ok bool
		if val, ok = n.AtomicData(nicemu.OpCAS, c.Peer, sid, c.Off, c.Old, c.New); !ok {
			val, err = n.CompareAndSwap(c.Peer, sid, c.Off, c.Old, c.New)
		}
	case llc.CmdFetchAdd:
		var ok bool
		if val, ok = n.AtomicData(nicemu.OpFAA, c.Peer, sid, c.Off, c.New, 0); !ok {
			val, err = n.FetchAndAdd(c.Peer, sid, c.Off, c.New)
		}
	case llc.CmdRegister:
		var s nicemu.SID
		s, err = n.RegisterMemory(c.Data)
		val = uint64(s)
	case llc.CmdAlloc:
		var s nicemu.SID
		if s, mem, err = n.RegisterSegment(c.Size); err == nil {
			// Tracked, so that the engine can ask to watch it.
			t.mem.Track(llc.RegionID(s), mem)
		}
		val = uint64(s)
	case llc.CmdRelease:
		t.mem.Forget(c.Region)
		err = n.Deregister(sid)
	case llc.CmdAllocQueue:
		var s nicemu.SID
		s, mem, err = t.allocQueue(c.Size)
		val = uint64(s)
	}
	return val, mem, err
}

// write sends the header and data of a CmdWrite, then its signal word:
// one packet whose last word (the signal) lands last where writePacket
// can; otherwise the parts are a BOTF or PUSH requests, the signal an
// 8-byte PUSH that lands atomically after them.
func (t *Translator) write(c *llc.Command) error {
	n := t.nic
	sid := nicemu.SID(c.Region)
	head := c.Head[:c.HeadLen]
	total := len(head) + len(c.Data)
	if total == 0 {
		return t.signal(c)
	}
	if c.Signal == 0 && len(head) == 0 {
		switch {
		case t.RMA && n.UserMemory(c.Peer, sid):
			return n.Push(c.Peer, sid, c.Off, c.Data, nil)
		case t.VPUSHData:
			return t.writeDataVP(c.Peer, sid, c.Off, c.Data)
		case t.PMPackets:
			return t.writeDataPM(c.Peer, sid, c.Off, c.Data)
		}
	}
	if sent, err := t.writePacket(c, head, total); sent {
		return err
	}
	if total <= t.BOTFLimit && len(head) == 0 && n.PushData(c.Peer, sid, c.Off, c.Data, nicemu.OpBOTF) {
		return t.signal(c) // the image BOTF would send, written in place
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
			if err := t.push(c.Peer, sid, c.Off, head); err != nil {
				return err
			}
		}
		if len(c.Data) > 0 {
			if err := t.push(c.Peer, sid, c.Off+uint64(len(head)), c.Data); err != nil {
				return err
			}
		}
	}
	return t.signal(c)
}

// writePacket sends c as one packet whose last word is its signal, when
// the signal follows the data (directly, or after up to 63 bytes of
// padding, zeroed: a packed ring record) and the packet fits AOTF, BOTF
// or the gather buffer; it reports whether it did. It builds the packet's
// image and kicks it: a packet that NIC.PushPacket takes was written by
// pushRecord before.
func (t *Translator) writePacket(c *llc.Command, head []byte, total int) (bool, error) {
	n := t.nic
	end, path := t.packet(c, total)
	switch path {
	case packetAOTF:
		return true, t.writeAOTF(c, head, total)
	case packetBOTF:
		gatherPacket(n.BOTFBuffer(), head, c.Data, end, c.Signal)
		return true, n.KickBOTF(c.Peer, nicemu.SID(c.Region), c.Off, end+8)
	case packetGather:
		if len(t.gbuf) < t.GatherLimit {
			t.gbuf = make([]byte, t.GatherLimit)
		}
		buf := t.gbuf[:end+8]
		gatherPacket(buf, head, c.Data, end, c.Signal)
		if p := n.Profile(); p != nil && n.Clock() != nil {
			n.ChargeHost(p.VirtualPM) // PM/RHiNET's pmSend in virtual time
		}
		return true, t.push(c.Peer, nicemu.SID(c.Region), c.Off, buf)
	}
	return false, nil
}

// How a write goes as one packet (Translator.packet).
const (
	packetNone   = iota // not one packet: the signal does not follow the data, or it is too long
	packetAOTF          // AOTF stores
	packetBOTF          // a BOTF packet image
	packetGather        // gathered into the send buffer and pushed
)

// packet returns how c, of total bytes of head and data, goes as one
// packet whose last word is its signal, and the signal's offset from
// c.Off, end: the signal follows the data (directly, or after up to 63
// bytes of padding: a packed ring record) and the packet fits AOTF, BOTF
// or the gather buffer.
func (t *Translator) packet(c *llc.Command, total int) (end, path int) {
	if c.Signal == 0 || c.SigOff < c.Off+uint64(total) || c.SigOff-c.Off-uint64(total) >= 64 {
		return 0, packetNone
	}
	end = int(c.SigOff - c.Off)
	switch {
	case end == total && total+8 <= t.AOTFLimit && c.Off%8 == 0 && total%8 == 0 && c.Off/nicemu.PageSize == c.SigOff/nicemu.PageSize:
		return end, packetAOTF
	case end+8 <= t.BOTFLimit:
		return end, packetBOTF
	case end+8 <= t.GatherLimit:
		return end, packetGather
	}
	return end, packetNone
}

// gatherPacket writes head and data into buf, zeroes the padding up to
// end, and puts signal at end.
func gatherPacket(buf, head, data []byte, end int, signal uint64) {
	if len(head) == llc.MaxHead && len(data) == 0 && end == llc.MaxHead {
		// A record of one cell, the commonest packet: moves of a fixed size.
		*(*[llc.MaxHead]byte)(buf) = [llc.MaxHead]byte(head)
		binary.LittleEndian.PutUint64(buf[end:], signal)
		return
	}
	total := copy(buf, head)
	total += copy(buf[total:], data)
	clear(buf[total:end])
	binary.LittleEndian.PutUint64(buf[end:], signal)
}

// writeAOTF sends head, data and signal of c (total bytes before the
// signal, in one page) as AOTF stores, the signal last.
func (t *Translator) writeAOTF(c *llc.Command, head []byte, total int) error {
	n := t.nic
	page, err := t.aotfPage(c.Peer, nicemu.SID(c.Region), c.Off&^(nicemu.PageSize-1))
	if err != nil {
		return err
	}
	low := c.Off & (nicemu.PageSize - 1)
	var w [8]byte
	for i := 0; i < total; i += 8 {
		for j := range w {
			switch k := i + j; {
			case k < len(head):
				w[j] = head[k]
			default:
				w[j] = c.Data[k-len(head)]
			}
		}
		if err := n.AOTF(page, low+uint64(i), binary.LittleEndian.Uint64(w[:])); err != nil {
			return err
		}
	}
	return n.AOTF(page, low+uint64(total), c.Signal)
}

// aotfPage returns the AOTF header page that pushes to (peer, sid) at the
// page starting at pageStart, setting one up if none does.
func (t *Translator) aotfPage(peer int, sid nicemu.SID, pageStart uint64) (int, error) {
	want := aotfTarget{set: true, peer: peer, sid: sid, pageStart: pageStart}
	if t.aotf.target[t.aotf.last] == want {
		return t.aotf.last, nil
	}
	for i, h := range t.aotf.target {
		if h == want {
			t.aotf.last = i
			return i, nil
		}
	}
	i := t.aotf.next
	t.aotf.next = (i + 1) % len(t.aotf.target)
	t.aotf.target[i] = aotfTarget{}
	if err := t.nic.SetAOTFHeader(i, peer, sid, pageStart); err != nil {
		return 0, err
	}
	t.aotf.target[i], t.aotf.last = want, i
	return i, nil
}

// signal writes a command's signal word, if any, as an 8-byte PUSH.
func (t *Translator) signal(c *llc.Command) error {
	if c.Signal == 0 {
		return nil
	}
	binary.LittleEndian.PutUint64(t.sig[:], c.Signal)
	return t.push(c.Peer, nicemu.SID(c.Region), c.SigOff, t.sig[:])
}

// push writes src to (peer, sid, off) by PUSH: as PM/RHiNET does with
// PMPackets (pushPM), as one request otherwise.
func (t *Translator) push(peer int, sid nicemu.SID, off uint64, src []byte) error {
	if t.PMPackets {
		return t.pushPM(peer, sid, off, src)
	}
	return t.nic.Push(peer, sid, off, src, nil)
}

// Poll delivers to sink what arrived in this process's rings, slots and
// receive queue, and serves bounce-buffer requests other processes
// posted to this one. (That look, which nearly always finds none, comes
// second: its result then needs no keeping across the deliveries.)
func (t *Translator) Poll(sink llc.Sink) bool {
	if c := t.clock; c != nil {
		c.Look()
	}
	p := t.mem.Poll(sink)
	if t.nic.Service() {
		p = true
	}
	if len(t.held) > 0 && t.pollRoom(sink) {
		p = true
	}
	return p
}

// Arm announces that the process may sleep on its doorbell.
func (t *Translator) Arm() uint32 { return t.nic.ArmDoorbell() }

// Sleep blocks until a peer writes to this process or SleepTimeout passes.
func (t *Translator) Sleep(ticket uint32) { t.SleepFor(ticket, t.SleepTimeout) }

// SleepFor is Sleep bounded by d (llc.TimedSleeper). In virtual time,
// while the process holds back data from its future (nicemu.Clock.Holding),
// no peer's write will wake it to take it: it sleeps heldPoll at most.
func (t *Translator) SleepFor(ticket uint32, d time.Duration) {
	if c := t.nic.Clock(); c != nil && c.Holding() {
		d = min(d, heldPoll)
	}
	t.nic.WaitDoorbell(ticket, d)
}

// heldPoll is how long a process that holds back data sleeps at most.
const heldPoll = 50 * time.Microsecond

// Disarm withdraws Arm.
func (t *Translator) Disarm() { t.nic.DisarmDoorbell() }

// Wake wakes the process's goroutines asleep on the doorbell, so that they
// look again at what they wait for.
func (t *Translator) Wake() { t.nic.Wake() }

// lineOut is the translator's view of this process's half of its shared
// line with one peer (llc.CmdWriteLine): segment memory, of this process
// or of the peer, that the translator stores into itself. Shared lines
// exist only under the native profile (Caps), where a store into the
// segment is what a PUSH would end with.
type lineOut struct {
	region llc.RegionID
	off    uint64
	size   int    // the Size of the commands that mapped it: llc.LineInPeer when the peer's memory holds it
	half   []byte // layout.LineHalf bytes, nil until mapped
	shared []byte // the half of the shared extension line (layout.LineExt)
	ext    []byte // the extension line, layout.LineExtBody bytes
}

// writeLine performs a CmdWriteLine: the head's words, then the signal
// word by a sequentially consistent store, which orders the write before
// the look at the peer's doorbell that follows.
func (t *Translator) writeLine(c *llc.Command) error {
	if uint(c.Peer) >= uint(len(t.lines)) {
		if t.lines != nil || uint(c.Peer) >= uint(t.nic.NumProcs()) {
			return fmt.Errorf("martini: shared line with process %d of %d", c.Peer, t.nic.NumProcs())
		}
		t.lines = make([]lineOut, t.nic.NumProcs())
	}
	l := &t.lines[c.Peer]
	if l.half == nil || l.region != c.Region || l.off != c.Off || l.size != c.Size {
		if err := t.mapLine(c, l); err != nil {
			return err
		}
	}
	w := (*[layout.LineHalf / 8]uint64)(unsafe.Pointer(unsafe.SliceData(l.half))) // mapLine made it LineHalf bytes, 8-aligned
	at := c.SigOff - c.Off
	if c.HeadLen == layout.LineSig && at == layout.LineSig && len(c.Data) <= layout.LineExtBody {
		// A record's head, the whole half before the signal, and the
		// rest of its body for the extension (the commonest write):
		// three stores, without a loop.
		if len(c.Data) > 0 {
			memcopy.Small(l.extFor(len(c.Data)), c.Data)
		}
		w[0] = binary.LittleEndian.Uint64(c.Head[0:])
		w[1] = binary.LittleEndian.Uint64(c.Head[8:])
		w[2] = binary.LittleEndian.Uint64(c.Head[16:])
	} else if err := l.writeHead(c, w, at); err != nil {
		return err
	}
	atomic.StoreUint64(&w[at/8], c.Signal)
	t.nic.WakePeer(c.Peer)
	t.mem.Wrote(c.Peer, lineWrite(c))
	return nil
}

// lineWrite is what the line's write c is, for LocalMemory.Wrote: a
// record, which writes the half's head, its body's rest in the writer's
// own extension lines or not, or an acknowledgement alone, which writes
// only the signal.
func lineWrite(c *llc.Command) shm.Write {
	switch {
	case c.HeadLen == 0:
		return shm.LineAck
	case len(c.Data) > layout.LineExtShared: // !layout.LineRestShared
		return shm.LineRecordOwnExt
	}
	return shm.LineRecord
}

// writeHead writes the head and data of c, a CmdWriteLine other than a
// record's whole head with the rest of its body (writeLine's three
// stores), into the half w and the extension line, after checking that
// they fit before the signal's offset at.
func (l *lineOut) writeHead(c *llc.Command, w *[layout.LineHalf / 8]uint64, at uint64) error {
	head := c.Head[:c.HeadLen]
	if len(head)%8 != 0 || uint64(len(head)) > at || at > layout.LineHalf-8 || at%8 != 0 || len(c.Data) > layout.LineExtBody {
		return fmt.Errorf("martini: shared line write of %d bytes, %d more and a signal at %d, in a half of %d", len(head), len(c.Data), at, layout.LineHalf)
	}
	if len(c.Data) > 0 {
		memcopy.Small(l.extFor(len(c.Data)), c.Data)
	}
	for i := 0; i < len(head)/8; i++ {
		w[i] = binary.LittleEndian.Uint64(head[8*i:])
	}
	return nil
}

// extFor returns the extension that takes the rest of a record's body of
// n bytes, at most layout.LineExtBody: the shared one up to
// layout.LineExtShared bytes, else its own. (The rest is copied where
// extFor is called, so that the copy is inlined with the caller.)
func (l *lineOut) extFor(n int) []byte {
	if layout.LineRestShared(n) {
		return l.shared
	}
	return l.ext
}

// mapLine maps the half that c names into l.
func (t *Translator) mapLine(c *llc.Command, l *lineOut) error {
	owner := t.nic.PID()
	if c.Size == llc.LineInPeer {
		owner = c.Peer
	}
	mem, err := t.nic.SharedRegion(owner, nicemu.SID(c.Region))
	switch {
	case err != nil:
		return fmt.Errorf("martini: shared line with process %d: %w", c.Peer, err)
	case !layout.LineFits(c.Off, len(mem)):
		return fmt.Errorf("martini: shared line half at %d of a region of %d bytes", c.Off, len(mem))
	}
	shared, ext := layout.LineExt(mem, c.Off)
	*l = lineOut{region: c.Region, off: c.Off, size: c.Size, half: mem[c.Off : c.Off+layout.LineHalf], shared: shared, ext: ext}
	return nil
}

// watchLine has the local memory watch the half of a shared line that
// c (CmdWatchLine) names, in this process's memory or the peer's.
func (t *Translator) watchLine(c *llc.Command) error {
	var mem []byte
	if c.Size == llc.LineInPeer {
		var err error
		if mem, err = t.PeerMemory(c.Peer, c.Region); err != nil {
			return err
		}
	}
	return t.mem.WatchLine(c, mem)
}
