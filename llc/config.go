package llc

import (
	"fmt"

	"github.com/rhinet-go/martini/llc/layout"
)

// RndvMode selects the rendezvous variant used for messages above the
// eager limit.
type RndvMode uint8

// Rendezvous variants.
const (
	// RndvPull: the receiver reads the sender's registered buffer (RDMA
	// read, after Sur et al.), then tells the sender it is done.
	RndvPull RndvMode = iota
	// RndvPush: the receiver registers its buffer and grants it; the sender
	// writes into it (RDMA write), then tells the receiver it is done.
	RndvPush
	// RndvSplit: both: the receiver reads the first half of a large
	// message while the sender writes the second half, so that both
	// processes copy at once.
	RndvSplit
)

func (m RndvMode) String() string {
	switch m {
	case RndvPush:
		return "push"
	case RndvSplit:
		return "split"
	}
	return "pull"
}

// Config parameterises an Engine.
type Config struct {
	Self, Size int
	// Boot is the bootstrap region of every process, as published in the
	// management data store: BootSize(Size) bytes of zeroed memory that
	// peers can write (CmdAlloc; see AllocBoot). Boot[Self] is this
	// process's own; EagerQueue does not use them.
	Boot []RegionID
	// EagerLimit is the largest message sent eagerly, through the rings
	// or the receive queue (see Eager).
	EagerLimit int
	// EagerHintLimit, in EagerRings mode, is the largest message a send
	// marked Eager sends eagerly to a ring peer; 0 or less than EagerLimit:
	// EagerLimit. At most MaxEagerLimit(RingSize).
	EagerHintLimit int
	// RingSize is the record space of each ring this process grants, a
	// power of two.
	RingSize int
	// RingCap bounds the ring memory this process grants in total; rings
	// are granted first come, first served.
	RingCap int
	// PackedRecords, in the ring modes, is the size of the largest ring
	// record written as one write whose last word lands last (the signal
	// word ends the record): Caps.PackedRecords, where the network carries
	// writes of that size as one packet or, as PM/RHiNET's pmSend, as
	// packets in order. Longer records are written in two parts (see
	// package llc/layout); 0: every record of more than one cell. At most
	// MaxPackedRecords.
	PackedRecords int
	// Rendezvous selects the rendezvous variant for large messages.
	Rendezvous RndvMode
	// ExchangePush is the smallest pull or split rendezvous message a
	// receiver that is itself sending to the sender takes by push (see
	// Exchange in rndv.go); 0: never.
	ExchangePush int
	// Eager selects how eager messages and control records travel; the
	// zero value is EagerRings. RingSize and RingCap apply to EagerRings
	// and EagerPM, QueueSize to EagerQueue.
	Eager EagerMode
	// QueueSize is the record space of this process's receive queue in
	// EagerQueue mode, a power of two of at least
	// MinQueueSize(EagerLimit).
	QueueSize int
	// MaxRecord is the largest record the transport's receive queue
	// carries (Caps.MaxRecord); 0 means MaxQueueRecord.
	MaxRecord int
	// QueuePeers, in EagerRings and EagerPM mode, marks the processes
	// reached through this process's receive queue instead of rings (a
	// network that carries records itself, as TCP's streams do): records
	// from and to them travel as in EagerQueue mode. nil: none.
	QueuePeers []bool
	// SharedLines, in EagerRings mode, carries the small records of each
	// pair of processes through the pair's shared line (eager.go) when it
	// is free: a network that shares memory with load and store
	// (Caps.SharedLines). Not with QueuePeers.
	SharedLines bool
	// NoRendezvous sends every message eagerly, as MPICH-SCore does over
	// PM without remote memory access (thesis 8.5): a message larger than
	// one record goes as several (parts.go) without a handshake, each ring
	// record carrying up to EagerLimit bytes of it and each queue record
	// up to MaxRecord, and the receiver assembles it in a buffer of its
	// own before the matching. SendOp.Rendezvous and the hint limit are
	// ignored. On rings the eager limit must be at least a cell.
	NoRendezvous bool
	// ZeroCopy, in the PM message layers (EagerPM, EagerQueue), counts no
	// host copy for a rendezvous message: the network's remote memory
	// access moves it between the users' buffers, as MPICH-SCore's
	// rendezvous over PM/RHiNET's RMA does (thesis 8.5, Fig 8.9's
	// "Zerocopy").
	ZeroCopy bool
}

// Counters are the engine's per-protocol statistics.
type Counters struct {
	EagerSent, EagerRecv    uint64 // eager messages
	RndvSent, RndvRecv      uint64 // rendezvous messages
	Withdrawn               uint64 // rendezvous sends withdrawn after their RTS left (CancelOp.Withdraw)
	BytesSent, BytesRecv    uint64 // message payload bytes
	Unexpected              uint64 // messages that arrived before their receive
	Truncated               uint64 // receives whose buffer was too small
	ControlSent             uint64 // RTS, CTS and FIN records
	Connections             uint64 // connections this process initiated
	ConnectRetries          uint64 // lost compare-and-swap on a common command slot
	RingsGranted, RingBytes uint64 // rings allocated for senders, and their memory
	RingFull, TailReads     uint64 // sends that found a ring full; consumer-count reads
	CommandsIssued          uint64 // IR commands emitted
	// QueueFull counts the enqueues (EagerQueue) that the receiver's
	// queue refused for lack of room; every retry that is refused again
	// counts too.
	QueueFull uint64
	// One-sided operations (RMA): puts, gets, compare-and-swap or
	// fetch-and-add atomics and combinations issued, the bytes the puts,
	// gets and combinations moved, and the reads that settled writes at
	// a flush.
	RMAPuts, RMAGets, RMAAtomics, RMACombines uint64
	RMABytes, RMASettles                      uint64
	// LineSent counts the records written into the pairs' shared lines
	// (Config.SharedLines), LineAcks the acknowledgements written there
	// without a record.
	LineSent, LineAcks uint64
}

// checkRings checks the ring configuration of EagerRings and EagerPM.
func checkRings(cfg *Config) error {
	switch {
	case cfg.RingSize < 4*cell || cfg.RingSize&(cfg.RingSize-1) != 0:
		return fmt.Errorf("llc: ring size %d must be a power of two and at least %d", cfg.RingSize, 4*cell)
	case cfg.EagerLimit < 0 || layout.RecordSize(cfg.EagerLimit) > uint64(cfg.RingSize)/2:
		return fmt.Errorf("llc: eager limit %d too large for rings of %d bytes (at most %d)",
			cfg.EagerLimit, cfg.RingSize, MaxEagerLimit(cfg.RingSize))
	case cfg.EagerHintLimit > MaxEagerLimit(cfg.RingSize):
		return fmt.Errorf("llc: eager hint limit %d too large for rings of %d bytes (at most %d)",
			cfg.EagerHintLimit, cfg.RingSize, MaxEagerLimit(cfg.RingSize))
	case cfg.PackedRecords < 0 || cfg.PackedRecords > MaxPackedRecords:
		return fmt.Errorf("llc: packed records of up to %d bytes: want 0 to %d", cfg.PackedRecords, MaxPackedRecords)
	}
	return nil
}

// MaxEagerLimit returns the largest eager limit rings of ringSize allow,
// in EagerRings mode and, for rings of at least 2*PMAlign bytes, in
// EagerPM mode.
func MaxEagerLimit(ringSize int) int { return ringSize/2 - cell }

// RingOverhead is the memory a ring takes beyond its record space: its
// control line, the pair's shared line and its extension lines.
const RingOverhead = ringCtl

// MaxPackedRecords is the largest Config.PackedRecords: a packed record
// counts its cells in 16 bits.
const MaxPackedRecords = 1 << 20
