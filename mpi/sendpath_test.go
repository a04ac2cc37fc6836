package mpi_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

// TestSendPath runs small messages and a ring of every size over each of
// the NIC's send paths for small writes, and checks that the path chosen
// is the one the NIC counted.
func TestSendPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path string
		np   int
	}{{launch.SendAOTF, 3}, {launch.SendPush, 2}, {launch.SendBOTF, 2}} {
		t.Run(fmt.Sprintf("%s/np=%d", c.path, c.np), func(t *testing.T) {
			t.Parallel()
			// Without the shared lines, which carry small messages
			// between two processes past the NIC.
			runScenarioJob(t, c.np, "send-path", "-send-path", c.path, "-no-shared-lines")
			runScenarioJob(t, c.np, "sizes", "-send-path", c.path)
		})
	}
}

// scenarioSendPath exchanges small messages with the next rank and checks
// the NIC's request counters against MARTINI_SEND_PATH.
func scenarioSendPath(w *mpi.Comm) error {
	n, r := w.Size(), w.Rank()
	for i := range 50 {
		out := []int64{int64(r), int64(i), int64(r * i)}
		in := make([]int64, 3)
		if _, err := mpi.Sendrecv(w, out, (r+1)%n, i, in, (r-1+n)%n, i); err != nil {
			return err
		}
		from := int64((r - 1 + n) % n)
		if in[0] != from || in[1] != int64(i) || in[2] != from*int64(i) {
			return fmt.Errorf("message %d: got %v", i, in)
		}
	}
	st, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	if st.Network != "martini" {
		return fmt.Errorf("network %q, want martini", st.Network)
	}
	aotf, botf := st.NetworkCounters["aotf"], st.NetworkCounters["botf"]
	switch path := os.Getenv(launch.EnvSendPath); path {
	case launch.SendAOTF:
		if aotf < 50*8 {
			return fmt.Errorf("send path aotf: %d AOTF stores for 50 one-cell messages, want at least 400", aotf)
		}
	case launch.SendPush:
		if aotf != 0 || botf != 0 {
			return fmt.Errorf("send path push: %d AOTF and %d BOTF requests, want none", aotf, botf)
		}
	default:
		if aotf != 0 || botf < 50 {
			return fmt.Errorf("send path %q: %d AOTF and %d BOTF requests, want 0 and at least 50", path, aotf, botf)
		}
	}
	return nil
}

func init() { scenarios["send-path"] = scenarioSendPath }
