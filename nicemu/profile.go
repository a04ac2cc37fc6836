package nicemu

import (
	"fmt"
	"strings"
	"time"
)

// Profile is a timing profile of the emulated NIC: what each stage of a
// request costs. The emulated hardware holds every request until the time
// the profile gives for it has passed on the machine's monotonic clock, so
// that a program sees the latencies and bandwidths of the modelled hardware.
//
// A request is modelled stage by stage, as Martini processes it (thesis
// ch. 4 and 6): the host's PIO stores into a Window reach the NIC; the
// Initiator builds the packet (for PUSH, after a DMA read of the source over
// the host's PCI bus); the packet crosses the link; at the target the
// receive front end (RFend) parses the header and the back end (RBend)
// writes the payload by DMA over the target's PCI bus. Four resources of
// every process's NIC are reserved as a packet passes, so that concurrent
// requests queue behind one another: the Initiator, the outgoing link, the
// single receive FIFO (held from a packet's arrival until the DMA
// controller has drained its payload, so headers do not pipeline behind
// payloads), and the half-duplex PCI bus shared by DMA reads and writes.
// The Replier, which answers pull requests, is a fifth.
//
// Every cost lives in the fields below: no other constant of the timing
// model exists, and a field changed here moves every figure that depends
// on it.
type Profile struct {
	// Name is the name that selects the profile (mpirun -profile).
	Name string

	// PIOFirst is the time from the host's first 8-byte store into a
	// Window (or the AOTF page) until the NIC has accepted it: the
	// chipset buffers PIO writes before forwarding them over PCI. Table
	// 6.2: AOTF, one store, is accepted after 0.39 µs.
	PIOFirst time.Duration
	// PIOPerWord is each further 8-byte store of the same request. Table
	// 6.2/6.3: PUSH and PULL write 6 words (0.72 µs), an 8-byte BOTF
	// packet image 7 (0.79 µs).
	PIOPerWord time.Duration

	// PCIBytesPerSecond is the PCI bus's burst rate: 64 bits at 66 MHz,
	// 528 MB/s (Table 6.1).
	PCIBytesPerSecond float64
	// DMAOverhead is the bus time of one DMA transaction beyond its data
	// (arbitration, address phase). With the burst rate it bounds the
	// one-way throughput, which the receiver's single FIFO limits, to
	// 444 MB/s for 2 KB packets (Fig 6.3).
	DMAOverhead time.Duration
	// DMAReadLatency is the time from a DMA read's bus transaction to
	// the data's availability in the NIC (memory access through the
	// chipset). Table 6.3: a remote 8-byte read's PCI transaction starts
	// at 1.97 µs and its reply leaves at 2.26 µs.
	DMAReadLatency time.Duration
	// DMAWriteLatency is the time from the end of a DMA write's bus
	// transaction until a polling host process sees the data. Table 6.2:
	// the remote PCI transaction of an 8-byte write starts at 2.06 µs and
	// the write is complete at 2.48 µs.
	DMAWriteLatency time.Duration
	// PCITurnaround is the idle bus time when the bus passes from a DMA
	// read to a DMA write or back. Both directions share one half-duplex
	// bus, which bounds the bidirectional throughput to 470 MB/s (Fig
	// 6.3).
	PCITurnaround time.Duration

	// InitiatorPush is the Initiator's work on a PUSH before the DMA read
	// of the source: PGIDTBL lookup, PATLB translation, DMA request
	// (states PGID, IPA, IPA2, CHK1, CHK2). Table 6.2: accepted at
	// 0.72 µs, packet leaves at 1.48 µs, which includes the DMA read.
	InitiatorPush time.Duration
	// ContFlag is the Initiator's CONT state: once the source has been
	// read, it looks the Window up in CONTTBL and starts the DMA write of
	// the contflag, after which the host may write the Window again. A
	// host reusing one Window waits for it between requests, which sets
	// the size at which one-way throughput reaches half its peak: about
	// 1 KB (Fig 6.3, thesis 6.1.3), the figure this value is derived from.
	ContFlag time.Duration
	// InitiatorPull is the Initiator's work building a pull request
	// packet from the Window (Table 6.3: 0.72 → 1.25 µs).
	InitiatorPull time.Duration
	// InitiatorOTF is the Initiator's work on a packet image written by
	// the host, BOTF or AOTF: no DMA (Table 6.2: BOTF 0.79 → 1.14 µs,
	// AOTF 0.39 → 0.74 µs; Table 6.3: BOTF pull 0.72 → 1.07 µs).
	InitiatorOTF time.Duration
	// RFend is the receive front end's header processing, from a
	// packet's arrival to the start of its processing (Table 6.2:
	// 1.49 → 1.73 µs).
	RFend time.Duration
	// RBend is the receive back end's work before its DMA write: address
	// translation and DMA request (Table 6.2: 1.73 → 2.06 µs).
	RBend time.Duration
	// Replier is the Replier's work on an arrived pull request before the
	// DMA read of the data (Table 6.3: the request arrives at 1.26 µs and
	// the PCI transaction starts at 1.97 µs, after RFend).
	Replier time.Duration

	// WireLatency is the time from a packet's first flit leaving the NIC
	// to its arrival at the target (Table 6.2: 1.48 → 1.49 µs, two NICs
	// connected back to back).
	WireLatency time.Duration
	// LinkBytesPerSecond is the link's payload rate: 6 Gb/s with 64 of
	// every 80 bits carrying data, 4.8 Gb/s = 600 MB/s (thesis 6.1.1).
	LinkBytesPerSecond float64
	// HeaderBytes is the size of a packet header on the link.
	HeaderBytes int
	// MTU is the largest payload of one packet; longer transfers are
	// split (2 KB on RHiNET-2).
	MTU int
	// SwitchNodes is how many consecutive processes (nodes) share a
	// switch, and TrunkBytesPerSecond the rate of the one link between
	// two switches, all pairs connected, that their packets share. Thesis
	// 8.3.2: chapter 8's testbed was "16 node PCs connected 4 each to 4
	// fully connected RHiNET-2/SW", its links 600 MB/s of payload (the
	// host links' rate). The thesis gives no switch latency, so crossing
	// one adds none (Table 6.2's NICs were back to back). 0: no switches.
	SwitchNodes         int
	TrunkBytesPerSecond float64

	// PATLBRefill is a PATLB miss taken over by the on-chip processor
	// (thesis 7.4-7.5): the Initiator suspends at IPA2, firmware replaces
	// the entry and resumes the hardware at IPA (HARD). Fig 7.9: a PUSH
	// ping-pong whose Initiators both miss on every send takes about 33 µs
	// more per round trip than without misses, at every size: two misses.
	PATLBRefill time.Duration
	// SoftCompletion is what finishing the request in firmware after the
	// refill (SOFT: packet header, DMA requests) costs beyond resuming the
	// hardware. Fig 7.9: SOFT's round trip is about 10 µs longer than
	// HARD's at every size (HARD saves 21% at 32 B, 16% at 2 KB).
	SoftCompletion time.Duration

	// VPUSHRFend is the firmware's RFend handler for a VPUSH packet (Fig
	// 7.10, 7.12): from RFend's suspension at RVA (an RVATLB miss on the
	// VPUSH SID) until it is resumed there with the receive address, the
	// Replier breakpoint set.
	VPUSHRFend time.Duration
	// VPUSHOverlap is the firmware's work after that resume, done while
	// RBend writes the payload by DMA. Fig 7.12: it ends with the DMA at
	// 512 B; below, a packet's time is the firmware's, above, the DMA's
	// grows it.
	VPUSHOverlap time.Duration
	// VPUSHReplier is the Replier handler at the breakpoint, once the
	// payload is written: it publishes the receive pointer (then written
	// to host memory by DMA). Fig 7.12: the on-chip processor's share of
	// a VPUSH packet, VPUSHRFend + VPUSHOverlap + VPUSHReplier, is about
	// 6.6 µs whatever the packet's length.
	VPUSHReplier time.Duration
	// VPUSHDispatch is the rest of the time the receive path waits for
	// the firmware on a VPUSH packet: its main loop noticing RFend's
	// takeover request and the hardware's suspension and resumption
	// around the handlers. 8.7.1: "of VPUSH's receive processing, the
	// time in which the hardware waits and only the on-chip processor's
	// software runs is about 7.4 µs (RTL simulation)"; Fig 7.12's handlers
	// leave a small packet's hardware waiting for 6.6 µs less its RBend
	// and DMA (0.5 µs at 8 B), so 1.3 µs. With it back-to-back 2 KB
	// VPUSHes reach Fig 7.11's 180.3 MB/s (docs/timing.md).
	VPUSHDispatch time.Duration

	// PMSend, PMRecv and PMPoll are the host's costs of the PM message
	// layers (thesis ch. 8: SCore's PM on the Pentium III 933 MHz hosts),
	// charged when llc runs the PM/RHiNET or PM/RHiNET-VP eager transport:
	// pmSend of one message, pmReceive and pmReleaseReceiveBuffer of one
	// message, and one receive buffer checked for a new message while the
	// buffers' polled lines stay in the host's caches. PMSend and PMRecv
	// are what Fig 8.7's 10.1 µs PM/RHiNET round trip leaves after the
	// model's two PUSHes (2 × 2.7 µs with PM's header and trailer) and this
	// emulation's own MPI path on a current host (about 0.35 µs a hop),
	// split evenly.
	PMSend, PMRecv, PMPoll time.Duration
	// PMPollMiss is one receive buffer checked when the sweep misses in
	// the L2 cache and the TLB: Fig 8.5, at least 9 µs for 128 buffers,
	// about 70 ns a buffer. PMCachedRings is the most receive buffers a
	// sweep keeps in the caches in a running PM/RHiNET program: Fig 8.4
	// (8.3.2), the round trip "hardly changes up to 8 nodes" and grows
	// by 1.8 µs at 16, which the thesis puts on L2 and TLB misses of the
	// sweep (the buffers' polled lines, all at 2 KB-aligned addresses,
	// fall in few cache sets). See PMSweep.
	PMPollMiss    time.Duration
	PMCachedRings int
	// HostCacheBytes is the host's L2 cache (the Pentium III's 256 KB,
	// thesis Table 7.2's hosts); HostCopyCached and HostCopyMemory are
	// the host's memory-to-memory copy rates (bytes copied a second)
	// while a copy's source and destination fit in it and beyond, and
	// HostZeroCached and HostZeroMemory those of zeroing memory. Thesis
	// 8.5: MPICH-SCore's copies run fast while the buffers fit the L2 and
	// slow down beyond (Fig 8.9). The rates are derived from the host
	// (docs/timing.md): in the caches, the P6 core's one 4-byte load and
	// one 4-byte store a cycle at 933 MHz; beyond, the 64-bit 133 MHz
	// front-side bus (PC133 SDRAM) carrying, per byte copied, the source's
	// read, the destination's read for ownership and its write-back (per
	// byte zeroed, the last two).
	HostCacheBytes                 int
	HostCopyCached, HostCopyMemory float64
	HostZeroCached, HostZeroMemory float64
	// VirtualPM and VirtualVP are what a message of PM/RHiNET and of
	// PM/RHiNET-VP costs the sending host beyond PMSend in virtual time
	// only. In real time the emulation's own MPI path on a current host
	// (about 0.35 µs a hop, which the fit of PMSend and PMRecv leaves to
	// it) stands for them; virtual time counts none of it, so VirtualPM is
	// fitted instead: with it the virtual-time PM/RHiNET round trip at 2
	// processes is Fig 8.7's 10.1 µs. VirtualVP is the same path on
	// PM/RHiNET-VP, so the same value: the VPUSH firmware's time is the
	// receiver's (VPUSHDispatch), not the sender's.
	VirtualPM, VirtualVP time.Duration

	// OTFPerWord is what the Initiator's work on a packet image adds for
	// each 8-byte word of its payload (0 on Martini, whose InitiatorOTF
	// does not depend on the size).
	OTFPerWord time.Duration
	// WriteWindows is how many Windows the host takes in turn for its
	// BOTF packet images: with more than one, the host writes the next
	// image while the NIC sends the last, and waits only until the
	// Initiator has read out the request that last used the Window it
	// takes (0 and 1: one Window, whose completion the host waits for).
	WriteWindows int
	// SyncStage is the time a synchronisation packet spends in each
	// switch stage of an in-network barrier, and SwitchRadix the switches'
	// number of ports; SyncStage 0 means the NIC has no in-network barrier
	// (Profile.SyncBarrier).
	SyncStage   time.Duration
	SwitchRadix int

	// BackToBack is how soon after an emulated request returned the next
	// one must be issued to count as issued back to back: the emulation
	// holds a request until its data has landed, but the hardware lets the
	// host go on as soon as the Window's contflag is written, so a request
	// issued back to back is timed from the moment the host would have
	// seen that contflag (see Timing in the package documentation). Not a
	// hardware cost: a bound on the host work between two requests.
	BackToBack time.Duration
}

// Timing profile names.
const (
	// ProfileNative charges nothing: the NIC runs at the speed of the
	// machine's memory.
	ProfileNative = "native"
	// ProfileMartini charges the costs of Martini on RHiNET-2/NI, a 64-bit
	// 66 MHz PCI card in a Pentium III 933 MHz host (thesis ch. 6).
	ProfileMartini = "martini"
)

// Martini is the timing profile of Martini on a RHiNET-2/NI card, from the
// thesis's measurements (Tables 6.1-6.3, Fig 6.3). With it an 8-byte
// remote write takes 2.48 µs by PUSH, 2.14 µs by BOTF and 1.74 µs by AOTF,
// and an 8-byte remote read 3.26 µs by PULL and 3.08 µs by a BOTF pull
// request.
var Martini = Profile{
	Name:                ProfileMartini,
	PIOFirst:            390 * time.Nanosecond,
	PIOPerWord:          66 * time.Nanosecond,
	PCIBytesPerSecond:   528e6,
	DMAOverhead:         160 * time.Nanosecond,
	DMAReadLatency:      115 * time.Nanosecond,
	DMAWriteLatency:     245 * time.Nanosecond,
	PCITurnaround:       300 * time.Nanosecond,
	InitiatorPush:       470 * time.Nanosecond,
	ContFlag:            600 * time.Nanosecond,
	InitiatorPull:       530 * time.Nanosecond,
	InitiatorOTF:        350 * time.Nanosecond,
	RFend:               240 * time.Nanosecond,
	RBend:               330 * time.Nanosecond,
	Replier:             470 * time.Nanosecond,
	WireLatency:         10 * time.Nanosecond,
	LinkBytesPerSecond:  600e6,
	HeaderBytes:         32,
	MTU:                 MTU,
	SwitchNodes:         4,
	TrunkBytesPerSecond: 600e6,
	PATLBRefill:         16500 * time.Nanosecond,
	SoftCompletion:      5 * time.Microsecond,
	VPUSHRFend:          3 * time.Microsecond,
	VPUSHOverlap:        1500 * time.Nanosecond,
	VPUSHReplier:        2100 * time.Nanosecond,
	VPUSHDispatch:       1300 * time.Nanosecond,
	PMSend:              800 * time.Nanosecond,
	PMRecv:              800 * time.Nanosecond,
	PMPoll:              30 * time.Nanosecond,
	PMPollMiss:          70 * time.Nanosecond,
	PMCachedRings:       8,
	HostCacheBytes:      256 << 10,
	HostCopyCached:      933e6 * 4,
	HostCopyMemory:      133.33e6 * 8 / 3,
	HostZeroCached:      933e6 * 4,
	HostZeroMemory:      133.33e6 * 8 / 2,
	VirtualPM:           600 * time.Nanosecond,
	VirtualVP:           600 * time.Nanosecond,
	BackToBack:          time.Microsecond,
}

// timedProfiles are the timing profiles other than native, in the order of
// their numbers in the segment header (from 1).
var timedProfiles = []*Profile{&Martini, &DIMMnet2, &Cenju4}

// Profiles lists the names of the timing profiles.
func Profiles() []string {
	names := []string{ProfileNative}
	for _, p := range timedProfiles {
		names = append(names, p.Name)
	}
	return names
}

// LookupProfile returns the profile called name: nil for native (nothing
// charged), a copy of the profile's table (Martini, DIMMnet2, Cenju4)
// otherwise.
func LookupProfile(name string) (*Profile, error) {
	if name == "" || name == ProfileNative {
		return nil, nil
	}
	for _, p := range timedProfiles {
		if p.Name == name {
			c := *p
			return &c, nil
		}
	}
	return nil, fmt.Errorf("nicemu: unknown timing profile %q (want %s)", name, strings.Join(Profiles(), ", "))
}

// profileCode is the profile's number in the segment header.
func profileCode(name string) (uint64, error) {
	if name == "" || name == ProfileNative {
		return 0, nil
	}
	for i, p := range timedProfiles {
		if p.Name == name {
			return uint64(i + 1), nil
		}
	}
	_, err := LookupProfile(name)
	return 0, err
}

func profileName(code uint64) string {
	if code >= 1 && code <= uint64(len(timedProfiles)) {
		return timedProfiles[code-1].Name
	}
	return ProfileNative
}

// bytesTime is the time bytes take at rate bytes per second.
func bytesTime(bytes int, rate float64) int64 {
	if bytes <= 0 || rate <= 0 {
		return 0
	}
	return int64(float64(bytes) * 1e9 / rate)
}
