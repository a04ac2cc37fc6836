package nicemu

import "time"

// ProfileCenju4 charges the costs of Cenju-4's user-level network
// interface: MIPS R10000 nodes whose memory controller holds the NIC, on a
// multistage network of 4×4 switches (Hiraki et al., "Cenju-4's
// user-level network interface", seed 004).
const ProfileCenju4 = "cenju4"

// Cenju4 is the timing profile of Cenju-4 from its paper's figures
// (docs/timing.md lists each field's source), on the 32-node system the
// paper measured: three stages of 4×4 switches. A request is a 32-byte
// parcel header written into a queue in main memory and a write-pointer
// update; the Sender reads the header (RHM), then the data (SPM), which
// the R10000 has just written and so mostly answers from its cache, dirty:
// 410 ns for the first 128-byte line, 12.5 ns a further 8 bytes, about 200
// MB/s (4.3). Data of at most 8 bytes travel in the header (inline mode),
// which is this profile's BOTF; a longer transfer is a PUSH (remote DMA).
// With it an 8-byte write takes the paper's 4.9 µs (Fig 6, Paralib/CJ4),
// long transfers reach about 205 MB/s, and the in-network barrier
// (synchronisation packets) takes about 5 µs at any size up to 32 nodes
// (Fig 10, E).
//
// The paper gives no breakdown of the library's and the interface's own
// time: PIOFirst, the host's share, is what 4.9 µs leaves after the
// stages the paper does give (the switches, the memory reads and writes)
// and the interface's header and packet work, a few 80 MHz clocks each.
var Cenju4 = Profile{
	Name: ProfileCenju4,
	// Fitted: the rest of Fig 6's 4.9 µs.
	PIOFirst:   3989 * time.Nanosecond,
	PIOPerWord: 10 * time.Nanosecond,
	// Dirty cache lines read at 128 bytes per 410 + 16 × 12.5 ns.
	PCIBytesPerSecond: 209.8e6,
	DMAOverhead:       0,
	// The first line's response from a dirty cache.
	DMAReadLatency: 410 * time.Nanosecond,
	// A whole cache line's write into memory: the write and an
	// invalidation, at the memory's 8 bytes × 80 MHz.
	DMAWriteLatency: 100 * time.Nanosecond,
	PCITurnaround:   0,
	// RHM: the 32-byte header read from memory (a 160 ns coherence
	// answer) and checked against the tables.
	InitiatorPush: 210 * time.Nanosecond,
	ContFlag:      0,
	InitiatorPull: 210 * time.Nanosecond,
	InitiatorOTF:  210 * time.Nanosecond,
	RFend:         50 * time.Nanosecond,
	RBend:         50 * time.Nanosecond,
	Replier:       210 * time.Nanosecond,
	// Three switch stages of 125 ns (2.2).
	WireLatency: 375 * time.Nanosecond,
	// 3 bytes × 80 MHz (2.2).
	LinkBytesPerSecond: 240e6,
	HeaderBytes:        32,
	// A packet does not cross a page (4.3).
	MTU: 4096,
	// The header queue in memory: the host never waits for a Window.
	WriteWindows: 8,
	// A synchronisation packet's latency per 4×4 switch: 200 ns and more
	// when it waits for the synchronisation table (2.2).
	SyncStage:   200 * time.Nanosecond,
	SwitchRadix: 4,
	BackToBack:  time.Microsecond,
}

// SyncBarrier returns the time of a barrier of n processes through the
// NIC's in-network barrier (Cenju-4's synchronisation packets, seed 004
// 6.3 E), and false for a NIC without one: each process sends one
// synchronisation packet (the send of an 8-byte inline write), the
// switches combine them up through every stage and send the release back
// down, and each process receives one packet. The time grows with the
// number of switch stages only, as the paper explains its flat curve.
func (p *Profile) SyncBarrier(n int) (time.Duration, bool) {
	if p.SyncStage <= 0 || p.SwitchRadix < 2 || n < 1 {
		return 0, false
	}
	stages := 1
	for reach := p.SwitchRadix; reach < n; reach *= p.SwitchRadix {
		stages++
	}
	// The lone write less its trip through the network.
	ends := p.WriteLatency(OpBOTF, 8) - p.WireLatency
	return ends + time.Duration(2*stages)*p.SyncStage, true
}
