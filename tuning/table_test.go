package tuning

import (
	"testing"

	"github.com/klauspost/cpuid/v2"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
)

// TestLookup: Intel's processors take the smaller eager limit through
// rings, the collectives' larger one, smallest with a core per process,
// and copy once from 8 KiB with a core per process, from 32 KiB where
// processes outnumber cores; others take the network's limit and copy
// once only where AMD's are crowded, an exchange's distinct buffers from
// 64 KiB; every vendor pushes exchanges while processes have a core each,
// and reductions read their operands whole on Intel's, and on AMD's while
// processes have a core each.
func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		host  Host
		procs int
		want  Thresholds
	}{
		{Host{Intel, 2}, 2, Thresholds{RingEagerLimit: 8 << 10, CollectiveEagerLimit: 16 << 10, SingleCopyMin: 12 << 10, ExchangePush: llc.ExchangePushMin, ConsumeReads: true, EarlyHierarchy: true,
			PairAllgatherShared: 3 << 10}},
		{Host{Intel, 8}, 1, Thresholds{RingEagerLimit: 8 << 10, CollectiveEagerLimit: 16 << 10, SingleCopyMin: 12 << 10, ExchangePush: llc.ExchangePushMin, ConsumeReads: true, EarlyHierarchy: true,
			PairAllgatherShared: 3 << 10}},
		{Host{Intel, 2}, 3, Thresholds{RingEagerLimit: 8 << 10, CollectiveEagerLimit: 32 << 10, SingleCopyMin: 32 << 10, ConsumeReads: true, EarlyHierarchy: true}},
		{Host{Intel, 2}, 8, Thresholds{RingEagerLimit: 8 << 10, CollectiveEagerLimit: 32 << 10, SingleCopyMin: 32 << 10, ConsumeReads: true, EarlyHierarchy: true}},
		{Host{AMD, 2}, 2, Thresholds{ExchangePush: llc.ExchangePushMin, ConsumeReads: true}},
		{Host{AMD, 2}, 6, Thresholds{}},
		{Host{AMD, 2}, 8, Thresholds{DistinctSingleCopyMin: 64 << 10}},
		{Host{AMD, 4}, 16, Thresholds{DistinctSingleCopyMin: 64 << 10}},
		{Host{Generic, 2}, 2, Thresholds{ExchangePush: llc.ExchangePushMin}},
		{Host{Generic, 2}, 16, Thresholds{}},
		{Host{AMD, 0}, 1, Thresholds{ExchangePush: llc.ExchangePushMin, ConsumeReads: true}}, // no CPUs known: one
	} {
		if got := Lookup(tc.host, tc.procs); got != tc.want {
			t.Errorf("%v, %d processes: %+v, want %+v", tc.host, tc.procs, got, tc.want)
		}
	}
}

// TestLoadOf: a core each, outnumbered, four to one or more.
func TestLoadOf(t *testing.T) {
	for _, tc := range []struct {
		procs, cpus int
		want        Load
	}{{1, 1, Core}, {2, 2, Core}, {3, 2, Shared}, {7, 2, Shared}, {8, 2, Crowded}, {4, 1, Crowded}} {
		if got := LoadOf(tc.procs, tc.cpus); got != tc.want {
			t.Errorf("%d processes on %d CPUs: load %d, want %d", tc.procs, tc.cpus, got, tc.want)
		}
	}
}

// TestParseHost: an override names a vendor, and optionally the CPUs;
// nothing keeps the detected class; anything else is refused.
func TestParseHost(t *testing.T) {
	detected := Host{AMD, 2}
	for _, tc := range []struct {
		spec string
		want Host
		ok   bool
	}{
		{"", detected, true},
		{"intel", Host{Intel, 2}, true},
		{" Intel:8 ", Host{Intel, 8}, true},
		{"generic:1", Host{Generic, 1}, true},
		{"amd", Host{AMD, 2}, true},
		{"arm", Host{}, false},
		{"intel:0", Host{}, false},
		{"intel:x", Host{}, false},
	} {
		got, err := ParseHost(tc.spec, detected)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %v, %v; want %v (ok %v)", tc.spec, got, err, tc.want, tc.ok)
		}
	}
	if v := vendorOf(cpuid.Intel); v != Intel {
		t.Errorf("cpuid's Intel: %s", v)
	}
	if v := vendorOf(cpuid.VIA); v != Generic {
		t.Errorf("cpuid's VIA: %s", v)
	}
	if h := Detected(); h.CPUs < 1 || h.Vendor == "" {
		t.Errorf("detected host %v", h)
	}
}

// TestForOverride: MARTINI_TUNE picks the class whose thresholds a job
// takes, whatever the host; a bad one fails the plan.
func TestForOverride(t *testing.T) {
	facts := llc.Caps{Name: "martini", LoadStore: true, AnyLoadStore: true, MaxRecord: llc.MaxQueueRecord, SharedLines: true}
	job := Job{Size: 2, Caps: facts, Memory: 64 << 20, Settings: launch.DefaultSettings(), Host: Host{AMD, 2}}
	plan, err := For(job)
	if err != nil || plan.Engine.EagerLimit != EagerLimit || !plan.ConsumeReads || plan.Host != (Host{AMD, 2}) {
		t.Fatalf("detected AMD: %+v, %v", plan, err)
	}
	job.Settings.Tune = "intel"
	plan, err = For(job)
	if err != nil || plan.Engine.EagerLimit != 8<<10 || plan.Engine.EagerHintLimit != EagerLimit || !plan.ConsumeReads ||
		plan.SingleCopyMin != 12<<10 || !plan.Collectives.EarlyHierarchy || plan.Collectives.PairAllgatherShared != 3<<10 ||
		plan.Host != (Host{Intel, 2}) {
		t.Fatalf("MARTINI_TUNE=intel: %+v, %v", plan, err)
	}
	job.Settings.Tune = "intel:1" // two processes on one CPU
	if plan, err = For(job); err != nil || plan.SingleCopyMin != 32<<10 || plan.Engine.ExchangePush != 0 {
		t.Fatalf("MARTINI_TUNE=intel:1: %+v, %v", plan, err)
	}
	job.Settings.Tune = "sparc"
	if _, err := For(job); err == nil {
		t.Fatal("MARTINI_TUNE=sparc: no error")
	}
	// Under a timing model only the collectives' host choice of the
	// hierarchy remains.
	job.Settings.Tune, job.Caps.Modelled = "intel", true
	if plan, err = For(job); err != nil || plan.Engine.EagerLimit != ModelEagerLimit || plan.Engine.EagerHintLimit != 0 ||
		plan.ConsumeReads || plan.SingleCopyMin != 0 || !plan.Collectives.EarlyHierarchy || plan.Collectives.PairAllgatherShared != 0 {
		t.Fatalf("modelled: %+v, %v", plan, err)
	}
}

// TestPMLayersWithoutRendezvous: the PM layers asked for (-eager pm, vp)
// send every message eagerly, as MPICH-SCore without remote memory
// access; the default rings and the queue a stream gets by default keep
// their rendezvous.
func TestPMLayersWithoutRendezvous(t *testing.T) {
	martini := llc.Caps{Name: "martini", LoadStore: true, AnyLoadStore: true, MaxRecord: llc.MaxQueueRecord, Modelled: true}
	tcp := llc.Caps{Name: "tcp", MaxRecord: llc.MaxQueueRecord}
	for _, tt := range []struct {
		caps  llc.Caps
		eager string
		mode  llc.EagerMode
		none  bool
	}{
		{martini, "", llc.EagerRings, false},
		{martini, launch.EagerPM, llc.EagerPM, true},
		{martini, launch.EagerVP, llc.EagerQueue, true},
		{tcp, "", llc.EagerQueue, false},
	} {
		job := Job{Size: 4, Caps: tt.caps, Memory: 64 << 20, Settings: launch.DefaultSettings(), Host: Host{AMD, 2}}
		job.Settings.Eager = tt.eager
		plan, err := For(job)
		if err != nil || plan.Engine.Eager != tt.mode || plan.Engine.NoRendezvous != tt.none {
			t.Errorf("%s, eager %q: mode %v, no rendezvous %v, %v; want %v, %v", tt.caps.Name, tt.eager,
				plan.Engine.Eager, plan.Engine.NoRendezvous, err, tt.mode, tt.none)
		}
	}
}

// With PM/RHiNET's remote memory access on (-pm-rma), the pm layer keeps
// its rendezvous above 16 KB and counts no copy for it (MPICH-SCore over
// PM's RMA, thesis 8.5), unless the user sets the eager limit.
func TestPMRMA(t *testing.T) {
	martini := llc.Caps{Name: "martini", LoadStore: true, AnyLoadStore: true, MaxRecord: llc.MaxQueueRecord, Modelled: true}
	for _, tt := range []struct {
		limit, want int
	}{{-1, launch.PMRMALimit}, {4096, 4096}} {
		job := Job{Size: 4, Caps: martini, Memory: 64 << 20, Settings: launch.DefaultSettings(), Host: Host{AMD, 2}}
		job.Settings.Eager, job.Settings.PMRMA, job.Settings.EagerLimit = launch.EagerPM, true, tt.limit
		plan, err := For(job)
		if e := plan.Engine; err != nil || e.NoRendezvous || !e.ZeroCopy || e.EagerLimit != tt.want || e.Rendezvous != llc.RndvPush {
			t.Errorf("eager limit %d: no rendezvous %v, zero copy %v, eager limit %d, rendezvous %v, %v; want a push rendezvous above %d without copies",
				tt.limit, e.NoRendezvous, e.ZeroCopy, e.EagerLimit, e.Rendezvous, err, tt.want)
		}
	}
}

// -pm-ring sets PM/RHiNET's rings (the thesis's testbed: 128 KB), and
// the eager limit fits them unless the user set it; without it they are
// DefaultRingSize.
func TestPMRingSize(t *testing.T) {
	martini := llc.Caps{Name: "martini", LoadStore: true, AnyLoadStore: true, MaxRecord: llc.MaxQueueRecord, Modelled: false}
	for _, tt := range []struct {
		ring, limit, wantRing, wantLimit int
	}{
		{0, -1, DefaultRingSize, EagerLimit},
		{128 << 10, -1, 128 << 10, llc.MaxEagerLimit(128 << 10)},
		{1 << 20, 4096, 1 << 20, 4096},
	} {
		job := Job{Size: 4, Caps: martini, Memory: 64 << 20, Settings: launch.DefaultSettings(), Host: Host{AMD, 2}}
		job.Settings.Eager, job.Settings.PMRing, job.Settings.EagerLimit = launch.EagerPM, tt.ring, tt.limit
		plan, err := For(job)
		if e := plan.Engine; err != nil || e.RingSize != tt.wantRing || e.EagerLimit != tt.wantLimit {
			t.Errorf("-pm-ring %d, eager limit %d: rings of %d bytes, eager limit %d, %v; want %d, %d",
				tt.ring, tt.limit, e.RingSize, e.EagerLimit, err, tt.wantRing, tt.wantLimit)
		}
	}
}

// -vp-queue sets PM/RHiNET-VP's receive queue; without it the queue is
// DefaultQueueSize.
func TestVPQueueSize(t *testing.T) {
	martini := llc.Caps{Name: "martini", LoadStore: true, AnyLoadStore: true, MaxRecord: llc.MaxQueueRecord, Modelled: true}
	for _, tt := range []struct{ set, want int }{{0, DefaultQueueSize}, {1 << 20, 1 << 20}} {
		job := Job{Size: 4, Caps: martini, Memory: 64 << 20, Settings: launch.DefaultSettings(), Host: Host{AMD, 2}}
		job.Settings.Eager, job.Settings.VPQueue = launch.EagerVP, tt.set
		plan, err := For(job)
		if err != nil || plan.Engine.QueueSize != tt.want {
			t.Errorf("-vp-queue %d: queue of %d bytes, %v; want %d", tt.set, plan.Engine.QueueSize, err, tt.want)
		}
	}
}
