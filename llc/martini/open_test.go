package martini

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/nicemu"
	"golang.org/x/sys/unix"
)

// segmentFile returns a new descriptor of a segment of procs processes and
// job key pgid, as mpirun passes it.
func segmentFile(t *testing.T, procs int, pgid uint64) *os.File {
	t.Helper()
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: procs, PGID: pgid})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { seg.Close() })
	fd, err := unix.Dup(int(seg.File().Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fd), "segment")
}

// Attach refuses a segment that is not the job's, naming why.
func TestAttachChecksTheJob(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		f    *os.File
		size int
		pgid uint64
		want string
	}{
		{"another size", segmentFile(t, 2, 42), 3, 42, "2 process slots for a job of 3"},
		{"another job", segmentFile(t, 2, 42), 2, 43, "belongs to job 000000000000002a"},
		{"not a segment", null, 1, 42, "martini:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Attach(tt.f, 0, tt.size, tt.pgid, Options{})
			if err == nil {
				tr.Close()
				t.Fatal("Attach succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

// An attached translator reports the martini capabilities and options.
func TestAttachCaps(t *testing.T) {
	tr, err := Attach(segmentFile(t, 2, 7), 1, 2, 7, Options{NoCMA: true, NoOffload: true, SendPath: SendAOTF})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	c := tr.Caps()
	if c.Name != "martini" || !c.LoadStore || c.Offload || c.Async || c.EagerLimit != DefaultEagerLimit ||
		c.Rendezvous != DefaultRendezvous || c.MaxRecord != llc.MaxQueueRecord || c.MaxInline != DefaultBOTFLimit {
		t.Errorf("caps %+v", c)
	}
	if tr.NIC().CMA() {
		t.Error("NoCMA: the NIC still uses cross-memory attach")
	}
	if _, err := tr.AllocBarrier(); err == nil {
		t.Error("NoOffload: a barrier controller was allocated")
	}
	if tr.AOTFLimit != DefaultAOTFLimit {
		t.Errorf("send path aotf: AOTF limit %d", tr.AOTFLimit)
	}
	if _, err := Attach(segmentFile(t, 1, 7), 0, 1, 7, Options{SendPath: "carrier-pigeon"}); err == nil {
		t.Error("an unknown send path was accepted")
	}
}

// TestEagerLimitByProfile: the native profile recommends the tuned eager
// limit and exchanges by push, the Martini timing model the eager limit
// its runs were calibrated with and the rendezvous variant alone.
func TestEagerLimitByProfile(t *testing.T) {
	for profile, want := range map[string]int{nicemu.ProfileNative: DefaultEagerLimit, nicemu.ProfileMartini: ModelEagerLimit} {
		c := translators(t, 1, profile)[0].Caps()
		if c.EagerLimit != want {
			t.Errorf("%s: eager limit %d, want %d", profile, c.EagerLimit, want)
		}
		wantRing, wantColl := 0, 0
		if profile == nicemu.ProfileNative {
			wantRing, wantColl = nativeRingEagerLimits(cpuid.CPU.VendorID, 1, runtime.NumCPU())
		}
		if c.RingEagerLimit != wantRing || c.CollectiveEagerLimit != wantColl {
			t.Errorf("%s: eager limits through rings %d and %d (collectives), want %d and %d", profile, c.RingEagerLimit, c.CollectiveEagerLimit, wantRing, wantColl)
		}
		intel := profile == nicemu.ProfileNative && cpuid.CPU.VendorID == cpuid.Intel
		wantSingle := 0
		if profile == nicemu.ProfileNative {
			wantSingle = nativeSingleCopyMin(cpuid.CPU.VendorID, 1, runtime.NumCPU())
		}
		if c.ConsumeReads != intel || c.SingleCopyMin != wantSingle || (wantSingle != 0) != intel {
			t.Errorf("%s: consume reads %v, single copy from %d; want them on Intel's native profile only (from %d)", profile, c.ConsumeReads, c.SingleCopyMin, wantSingle)
		}
		wantDistinct := 0
		if profile == nicemu.ProfileNative {
			wantDistinct = nativeDistinctSingleCopyMin(cpuid.CPU.VendorID, 1, runtime.NumCPU())
		}
		if c.DistinctSingleCopyMin != wantDistinct {
			t.Errorf("%s: distinct buffers copied once from %d, want %d", profile, c.DistinctSingleCopyMin, wantDistinct)
		}
		wantPush := 0
		if profile == nicemu.ProfileNative {
			wantPush = llc.ExchangePushMin
		}
		if c.ExchangePush != wantPush {
			t.Errorf("%s: exchanges pushed from %d bytes, want %d", profile, c.ExchangePush, wantPush)
		}
	}
}

// TestPayloadSizeByProfile: the synchronisation network carries whole
// small inputs natively, and only records of arguments under the Martini
// model, whose runs must not move with the native tuning (Modelled tells
// the collectives to keep broadcasts off multicast there).
func TestPayloadSizeByProfile(t *testing.T) {
	for profile, want := range map[string]int{nicemu.ProfileNative: nicemu.BarrierPayloadSize, nicemu.ProfileMartini: ModelPayloadSize} {
		tr := translators(t, 1, profile)[0]
		g := NewSyncGroup(tr, nil, 0, 0, []int{0}, 1)
		if got := g.PayloadSize(); got != want {
			t.Errorf("%s: barrier payload %d bytes, want %d", profile, got, want)
		}
		if got := tr.Modelled(); got != (profile == nicemu.ProfileMartini) {
			t.Errorf("%s: Modelled() = %v", profile, got)
		}
	}
}

// In virtual time the translator's counters include its clock's; in real
// time they do not.
func TestStatsClock(t *testing.T) {
	for _, clock := range []string{nicemu.ClockReal, nicemu.ClockVirtual} {
		seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: 1, PGID: 7, Profile: nicemu.ProfileMartini, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { seg.Close() })
		nic, err := nicemu.Open(seg, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nic.Close() })
		got := map[string]uint64{}
		for _, s := range New(nic).Stats() {
			got[s.Name] = s.Value
		}
		for _, name := range []string{"vt-now-us", "vt-compute-us", "vt-compute-longest-us", "vt-compute-intervals", "vt-escapes"} {
			if v, ok := got[name]; ok != (clock == nicemu.ClockVirtual) || v != 0 {
				t.Errorf("clock %s: counter %s = %d, present %v", clock, name, v, ok)
			}
		}
		if _, ok := got["push"]; !ok {
			t.Errorf("clock %s: no push counter", clock)
		}
	}
}

// TestNativeRingEagerLimit: Intel processors take the smaller limits, the
// collectives' the smallest with a core per process; other processors the
// default, the collectives' too.
func TestNativeRingEagerLimit(t *testing.T) {
	for _, c := range []struct {
		vendor      cpuid.Vendor
		procs, cpus int
		p2p, coll   int
	}{
		{cpuid.Intel, 2, 2, IntelEagerLimit, IntelCollectiveEagerLimit},
		{cpuid.Intel, 1, 8, IntelEagerLimit, IntelCollectiveEagerLimit},
		{cpuid.Intel, 3, 2, IntelEagerLimit, IntelOversubscribedEagerLimit},
		{cpuid.AMD, 2, 2, DefaultEagerLimit, 0},
		{cpuid.AMD, 4, 2, DefaultEagerLimit, 0},
		{cpuid.VendorUnknown, 2, 2, DefaultEagerLimit, 0},
	} {
		if p2p, coll := nativeRingEagerLimits(c.vendor, c.procs, c.cpus); p2p != c.p2p || coll != c.coll {
			t.Errorf("%v, %d processes on %d cores: eager limits %d and %d (collectives), want %d and %d", c.vendor, c.procs, c.cpus, p2p, coll, c.p2p, c.coll)
		}
	}
}

// TestNativeSingleCopyMin: Intel's processors copy once from
// IntelCoreSingleCopyMin while every process has a core and from
// IntelSingleCopyMin when processes outnumber cores; others never, but
// AMD's copy an exchange's distinct buffers once from
// AMDCrowdedSingleCopyMin where processes outnumber cores four to one or
// more (DistinctSingleCopyMin; none elsewhere).
func TestNativeSingleCopyMin(t *testing.T) {
	for _, tc := range []struct {
		vendor           cpuid.Vendor
		procs, cpus      int
		single, distinct int
	}{
		{cpuid.Intel, 2, 2, IntelCoreSingleCopyMin, 0},
		{cpuid.Intel, 1, 8, IntelCoreSingleCopyMin, 0},
		{cpuid.Intel, 3, 2, IntelSingleCopyMin, 0},
		{cpuid.Intel, 8, 2, IntelSingleCopyMin, 0},
		{cpuid.AMD, 2, 2, 0, 0},
		{cpuid.AMD, 6, 2, 0, 0},
		{cpuid.AMD, 8, 2, 0, AMDCrowdedSingleCopyMin},
		{cpuid.AMD, 16, 4, 0, AMDCrowdedSingleCopyMin},
	} {
		single := nativeSingleCopyMin(tc.vendor, tc.procs, tc.cpus)
		distinct := nativeDistinctSingleCopyMin(tc.vendor, tc.procs, tc.cpus)
		if single != tc.single || distinct != tc.distinct {
			t.Errorf("%v, %d processes on %d CPUs: single copy from %d, of distinct buffers from %d; want %d and %d",
				tc.vendor, tc.procs, tc.cpus, single, distinct, tc.single, tc.distinct)
		}
	}
}
