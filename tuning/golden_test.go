package tuning_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/martini"
	"github.com/rhinet-go/martini/llc/mux"
	"github.com/rhinet-go/martini/llc/tcp"
	"github.com/rhinet-go/martini/nicemu"
	"github.com/rhinet-go/martini/tuning"
)

// goldenSettings are the settings of testdata/thresholds.csv, by name.
var goldenSettings = map[string]func(*launch.Settings){
	"default": func(*launch.Settings) {},
	"eager4k": func(s *launch.Settings) { s.EagerLimit = 4096 },
	"eager1m": func(s *launch.Settings) { s.EagerLimit = 1 << 20 },
	"pm":      func(s *launch.Settings) { s.Eager = launch.EagerPM },
	"vp":      func(s *launch.Settings) { s.Eager = launch.EagerVP },
	"pull":    func(s *launch.Settings) { s.Rndv = launch.RndvPull },
	"push":    func(s *launch.Settings) { s.Rndv = launch.RndvPush },
	"nolines": func(s *launch.Settings) { s.NoSharedLines = true },
}

// goldenVendors are the vendors of testdata/thresholds.csv, by name.
var goldenVendors = map[string]tuning.Vendor{"intel": tuning.Intel, "amd": tuning.AMD, "other": tuning.Generic}

// martiniCaps returns the facts of a martini translator under profile
// with send path.
func martiniCaps(t *testing.T, profile, path string) llc.Caps {
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: 1, PGID: 42, Profile: profile, HeapSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	nic, err := nicemu.Open(seg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nic.Close()
	tr := martini.New(nic)
	if err := tr.SetSendPath(path); err != nil {
		t.Fatal(err)
	}
	return tr.Caps()
}

// goldenNetwork returns the facts and the queue's peers of a network of
// testdata/thresholds.csv for procs processes: martini-PROFILE-PATH, tcp,
// or mux-PROFILE (martini to the first half of the processes, TCP to the
// others, which the receive queue reaches; the records' limit TCP's, as
// mpi's netSetup.caps gives it).
func goldenNetwork(t *testing.T, name string, procs int) (llc.Caps, []bool) {
	parts := strings.Split(name, "-")
	switch parts[0] {
	case "tcp":
		return (&tcp.Transport{}).Caps(), nil
	case "martini":
		return martiniCaps(t, parts[1], parts[2]), nil
	}
	local := (procs + 1) / 2
	lp, all, queue := make([]int, local), make([]int, procs), make([]bool, procs)
	for i := range all {
		all[i], queue[i] = i, i >= local
	}
	for i := range lp {
		lp[i] = i
	}
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: local, PGID: 42, Profile: parts[1], HeapSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	nic, err := nicemu.Open(seg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nic.Close()
	m, err := mux.New(procs, []mux.Network{{Transport: martini.New(nic), Procs: lp}, {Transport: &tcp.Transport{}, Procs: all}})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Caps()
	c.MaxRecord = (&tcp.Transport{}).Caps().MaxRecord
	return c, queue
}

// TestGoldenThresholds: for every network (martini natively and under
// the timing model on each send path, TCP, both joined by a Mux), host
// vendor, number of CPUs and processes, and the user's settings of
// testdata/thresholds.csv, the plan's engine configuration and the
// collectives' thresholds are those the transports' recommendations gave
// before this package made them (the file was recorded from them). With
// TUNING_RECORD=1 it rewrites the file's results from the table instead,
// for a change of the table that is meant.
func TestGoldenThresholds(t *testing.T) {
	f, err := os.Open("testdata/thresholds.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 {
		t.Fatal("testdata/thresholds.csv has no rows")
	}
	type netKey struct {
		name  string
		procs int
	}
	nets := map[netKey]llc.Caps{}
	queues := map[netKey][]bool{}
	record := os.Getenv("TUNING_RECORD") != ""
	recorded := [][]string{rows[0]}
	for _, row := range rows[1:] {
		atoi := func(i int) int {
			n, err := strconv.Atoi(row[i])
			if err != nil {
				t.Fatalf("row %v: column %d: %v", row, i, err)
			}
			return n
		}
		cpus, procs, memory := atoi(2), atoi(3), atoi(5)
		key := netKey{row[0], procs}
		if _, ok := nets[key]; !ok {
			nets[key], queues[key] = goldenNetwork(t, row[0], procs)
		}
		settings := launch.DefaultSettings()
		goldenSettings[row[4]](&settings)
		plan, err := tuning.For(tuning.Job{Size: procs, Caps: nets[key], QueuePeers: queues[key], Memory: memory,
			Settings: settings, Host: tuning.Host{Vendor: goldenVendors[row[1]], CPUs: cpus}})
		if err != nil {
			t.Fatal(err)
		}
		c := plan.Engine
		got := fmt.Sprintf("%d,%d,%d,%d,%d,%d,%d,%d,%v,%d,%d,%d,%d,%v,%v,%d",
			c.Eager, c.EagerLimit, c.EagerHintLimit, c.RingSize, c.RingCap, c.Rendezvous, c.ExchangePush, c.PackedRecords, c.SharedLines, c.QueueSize,
			plan.CollectiveEagerLimit, plan.SingleCopyMin, plan.DistinctSingleCopyMin, plan.ConsumeReads, plan.Collectives.EarlyHierarchy,
			plan.Collectives.PairAllgatherShared)
		if record {
			row = append(row[:6], strings.Split(got, ",")...)
			recorded = append(recorded, row)
		} else if want := strings.Join(row[6:], ","); got != want {
			t.Errorf("%s: %s\n got %s\nwant %s", strings.Join(row[:6], ","), strings.Join(rows[0][6:], ","), got, want)
		}
	}
	if record {
		writeGolden(t, recorded)
	}
}

// writeGolden rewrites testdata/thresholds.csv with rows.
func writeGolden(t *testing.T, rows [][]string) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/thresholds.csv", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
