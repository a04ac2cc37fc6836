package bench

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/cpuload"
)

func TestOthersShare(t *testing.T) {
	t0 := time.Now()
	a := cpuload.Sample{At: t0, Busy: 1000, Ours: 500}
	b := cpuload.Sample{At: t0.Add(time.Second), Busy: 1150, Ours: 600} // 2 CPUs: 200 ticks, 50 of others
	if got := cpuload.ForeignShare(a, b, 2); got != 0.25 {
		t.Errorf("a quarter of 2 CPUs: %v, want 0.25", got)
	}
	b = cpuload.Sample{At: t0.Add(time.Second), Busy: 1180, Ours: 520} // 160 ticks of others: more than one CPU's
	if got := cpuload.ForeignShare(a, b, 2); got != 0.8 {
		t.Errorf("1.6 CPUs of 2: %v, want 0.8", got)
	}
	if got := cpuload.ForeignShare(a, b, 0); got != 0 {
		t.Errorf("no CPUs known: %v, want 0", got)
	}
	if OthersReason(OthersShareLimit/2, 2) != "" {
		t.Error("under the limit: a reason")
	}
	if r := OthersReason(0.25, 2); !strings.Contains(r, "25% of the machine's 2 CPUs") {
		t.Errorf("reason %q", r)
	}
}

// A reading of this machine: a share from 0 to 1 (how much depends on
// what else runs beside the test).
func TestOthersCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	o, err := StartOthersCPU()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if share, err := o.Share(runtime.NumCPU()); err != nil || share < 0 || share > 1 {
		t.Errorf("Share: %v, %v", share, err)
	}
}
