package martini

import (
	"os"
	"strings"
	"testing"

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
	if c.Name != "martini" || !c.LoadStore || !c.AnyLoadStore || c.Offload || c.Async ||
		c.MaxRecord != llc.MaxQueueRecord || c.MaxInline != DefaultBOTFLimit {
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

// TestCapsByProfile: natively the pairs may share lines and records of a
// BOTF packet or a gathered push are packed; under the Martini timing
// model the network says it is modelled, shares no lines, and packs only
// on PM/RHiNET's path.
func TestCapsByProfile(t *testing.T) {
	for _, tc := range []struct {
		profile, path string
		packed        int
		modelled      bool
	}{
		{nicemu.ProfileNative, SendBOTF, NativeGatherLimit, false},
		{nicemu.ProfileNative, SendPush, 0, false},
		{nicemu.ProfileNative, SendGather, DefaultGatherLimit, false},
		{nicemu.ProfileMartini, SendBOTF, 0, true},
		{nicemu.ProfileMartini, SendGather, DefaultGatherLimit, true},
	} {
		tr := translators(t, 1, tc.profile)[0]
		if err := tr.SetSendPath(tc.path); err != nil {
			t.Fatal(err)
		}
		c := tr.Caps()
		if known := c.Latency > 0 && c.Bandwidth > 0; known != tc.modelled {
			t.Errorf("%s: latency %v, bandwidth %.0f B/s: want them known under the model only", tc.profile, c.Latency, c.Bandwidth)
		}
		if c.Modelled != tc.modelled || c.SharedLines == tc.modelled || c.PackedRecords != tc.packed {
			t.Errorf("%s, send path %s: modelled %v, shared lines %v, packed records %d; want %v, %v, %d",
				tc.profile, tc.path, c.Modelled, c.SharedLines, c.PackedRecords, tc.modelled, !tc.modelled, tc.packed)
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
		tr := soloTranslator(t, nicemu.JobConfig{NProcs: 1, PGID: 7, Profile: nicemu.ProfileMartini, Clock: clock})
		got := map[string]uint64{}
		for _, s := range tr.Stats() {
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
