package martini

import (
	"errors"
	"fmt"
	"os"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
)

// Options are a job's choices for its translators.
type Options struct {
	// NoCMA forbids cross-memory attach: large transfers go through the
	// bounce buffers (mpirun -no-cma).
	NoCMA bool
	// NoHugePages keeps the memory of cross-memory copies on the pages it
	// has (mpirun -no-hugepages; nicemu collapses the busiest regions into
	// transparent huge pages otherwise).
	NoHugePages bool
	// NoOffload keeps the collectives off the synchronisation network
	// (Caps.Offload false).
	NoOffload bool
	// SendPath selects how small writes travel (SetSendPath).
	SendPath string
	// RMA sends data that no record carries as one PUSH (Translator.RMA).
	RMA bool
	// RingWait holds, in virtual time, a read of a ring's consumer count
	// that finds it unchanged until the owner publishes it again
	// (Translator.RingWait; EnvRingWait).
	RingWait bool
}

// EnvRingWait, set to 1 in a job's environment, turns Options.RingWait
// on under -eager pm (OpenJob); it is off by default, and the other eager
// transports leave it off. Off, because a stream of PM messages that
// fills its ring (Fig 8.9 without the RMA: 1 MB messages) does not yet
// give the same figure on every run with it (97 or 98 MB/s; 94, every
// time, without).
const EnvRingWait = "MARTINI_PM_RING_WAIT"

// Attach maps the job's segment f (the memfd mpirun passes its ranks),
// checks that it belongs to the job (size processes, job key pgid), and
// opens the NIC of process rank. f is closed on failure.
func Attach(f *os.File, rank, size int, pgid uint64, o Options) (*Translator, error) {
	seg, err := nicemu.AttachSegment(f) // closes f on failure
	if err != nil {
		return nil, fmt.Errorf("martini: %w", err)
	}
	switch {
	case seg.NProcs() != size:
		n := seg.NProcs()
		seg.Close()
		return nil, fmt.Errorf("martini: the segment has %d process slots for a job of %d processes", n, size)
	case seg.PGID() != pgid:
		g := seg.PGID()
		seg.Close()
		return nil, fmt.Errorf("martini: the segment belongs to job %016x, not %016x", g, pgid)
	}
	return open(seg, rank, o)
}

// Singleton creates a segment for a job of one process with key pgid (a
// program started without mpirun) and opens its NIC.
func Singleton(pgid uint64, o Options) (*Translator, error) {
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: 1, PGID: pgid})
	if err != nil {
		return nil, fmt.Errorf("martini: singleton: %w", err)
	}
	return open(seg, 0, o)
}

func open(seg *nicemu.Segment, rank int, o Options) (*Translator, error) {
	nic, err := nicemu.Open(seg, rank)
	if err != nil {
		seg.Close()
		return nil, fmt.Errorf("martini: %w", err)
	}
	if o.NoCMA {
		nic.DisableCMA()
	}
	if o.NoHugePages {
		nic.DisableHugePages()
	}
	t := New(nic)
	// Martini has no synchronisation network, and the emulation's takes
	// no virtual time: in virtual time the collectives run over the NIC's
	// timed requests.
	t.offload = !o.NoOffload && nic.Clock() == nil
	if err := t.SetSendPath(o.SendPath); err != nil {
		nic.Close()
		seg.Close()
		return nil, err
	}
	t.RMA = o.RMA
	t.SetRingWait(o.RingWait)
	return t, nil
}

// MemorySize is the memory a process may allocate and register for the
// engine's rings and bootstrap area (the NIC's heap).
func (t *Translator) MemorySize() int { return nicemu.DefaultHeapSize }

// AllocBarrier claims a barrier controller of the synchronisation network
// for a new group, or fails when offload is off or none is free.
func (t *Translator) AllocBarrier() (int, error) {
	if !t.offload {
		return 0, errors.New("martini: the synchronisation network is not in use")
	}
	return t.nic.AllocBarrier()
}

// Close closes the NIC. The segment stays
// mapped until the process exits, so that a goroutine still inside a call
// touches valid memory. The caller must hold off every other use.
func (t *Translator) Close() error {
	return t.nic.Close()
}

// Segment returns the job's segment, for tests and tools that look at the
// whole job (refused requests).
func (t *Translator) Segment() *nicemu.Segment { return t.nic.Segment() }

// Stats returns the NIC's counters of this process, by name, and the
// host's segment's size and resident memory ("segment-bytes",
// "segment-resident-bytes"); in virtual time also its clock's
// (clockStats).
func (t *Translator) Stats() []llc.Stat {
	n := t.nic.Stats()
	seg := t.nic.Segment()
	resident, _ := seg.Resident() // 0 if the file cannot be looked at
	return append(clockStats(t.nic.Clock()), []llc.Stat{
		{Name: "segment-bytes", Value: uint64(seg.Size())}, {Name: "segment-resident-bytes", Value: uint64(resident)},
		{Name: "push", Value: n.Push}, {Name: "pull", Value: n.Pull}, {Name: "botf", Value: n.BOTF},
		{Name: "aotf", Value: n.AOTF}, {Name: "cas", Value: n.CAS}, {Name: "faa", Value: n.FAA},
		{Name: "packets", Value: n.Packets}, {Name: "vpush-full", Value: n.VPUSHFull},
		{Name: "ring-waits", Value: n.RingWaits}, {Name: "ring-waits-missed", Value: n.RingMissed},
		{Name: "cma-ops", Value: n.CMAOps}, {Name: "cma-bytes", Value: n.CMABytes},
		{Name: "huge-collapses", Value: n.HugeCollapses}, {Name: "huge-refusals", Value: n.HugeRefusals},
		{Name: "huge-deferrals", Value: n.HugeDeferrals},
		{Name: "bounce-ops", Value: n.BounceOps}, {Name: "bounce-bytes", Value: n.BounceBytes},
		{Name: "refused", Value: n.Refused},
		{Name: "rvatlb-hits", Value: n.RVATLBHits}, {Name: "rvatlb-misses", Value: n.RVATLBMisses},
		{Name: "patlb-hits", Value: n.PATLBHits}, {Name: "patlb-misses", Value: n.PATLBMisses},
		{Name: "barrier-arrivals", Value: n.BarrierArrivals}, {Name: "barrier-releases", Value: n.BarrierReleases},
		{Name: "multicasts", Value: n.Multicasts}, {Name: "multicast-bytes", Value: n.MulticastBytes},
		{Name: "deliveries", Value: n.Deliveries},
	}...)
}

// clockStats returns the counters of a virtual clock (none without one):
// its time and the computing it counted, in µs ("vt-now-us",
// "vt-compute-us", "vt-compute-longest-us", "vt-compute-intervals"), and
// its escapes from the ordering ("vt-escapes", nicemu.Clock.Escapes: 0 in
// a run whose order is the virtual times').
func clockStats(c *nicemu.Clock) []llc.Stat {
	if c == nil {
		return nil
	}
	k := c.Computing()
	return []llc.Stat{
		{Name: "vt-now-us", Value: uint64(c.Now().Microseconds())},
		{Name: "vt-compute-us", Value: uint64(k.CPU.Microseconds())},
		{Name: "vt-compute-longest-us", Value: uint64(k.Longest.Microseconds())},
		{Name: "vt-compute-intervals", Value: uint64(k.Intervals)},
		{Name: "vt-escapes", Value: uint64(c.Escapes())},
	}
}
