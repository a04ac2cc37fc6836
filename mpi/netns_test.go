package mpi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/netns"
)

// A job of 4 across two hosts (network namespaces joined by a veth pair,
// made and removed by the test), 2 ranks on each: point-to-point of every
// size, every collective and one-sided windows pass with martini within a
// host and TCP between hosts (the default), and with TCP between every
// pair.
func TestAcrossHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts jobs across network namespaces")
	}
	if raceEnabled {
		t.Skip("launches whole jobs; the race detector's run covers the same code in TestTCPNetwork")
	}
	s := netns.New(t, 2)
	a, b := s.Hosts[0], s.Hosts[1]
	hosts := a.Name + ":2," + b.Name + ":2"
	for _, c := range []struct {
		scenario string
		flags    []string
	}{
		{"sizes", nil},
		{"order", nil},
		{"requests", nil},
		{"coll-move", nil},
		{"coll-reduce-int", nil},
		{"coll-reduce-float", nil},
		{"coll-nonblocking", nil},
		{"comm-groups", nil},
		{"comm-env", nil}, // SplitType by host
		{"topo-neighbor", nil},
		{"win-fence", nil}, // windows: martini within a host, TCP between
		{"win-acc", nil},
		{"win-lock", nil},
		{"win-request", nil},
		{"sizes", []string{"-transport", "tcp"}},
		{"coll-move", []string{"-transport", "tcp"}},
	} {
		t.Run(strings.Join(append([]string{c.scenario}, c.flags...), " "), func(t *testing.T) {
			args := []string{"netns", "exec", a.Name, mpirunBin, "-hosts", hosts, "-launch", "ip netns exec {host}",
				"-timeout", jobTimeout.String()}
			args = append(append(args, c.flags...), self)
			ctx, cancel := context.WithTimeout(context.Background(), jobTimeout+30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "ip", args...)
			cmd.Env = append(os.Environ(), envScenario+"="+c.scenario)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				t.Fatalf("ip %s: %v\n--- stdout:\n%s--- stderr:\n%s", strings.Join(args, " "), err, &stdout, &stderr)
			}
			for i := range 4 {
				if want := fmt.Sprintf("scenario %s: rank %d: ok\n", c.scenario, i); !strings.Contains(stdout.String(), want) {
					t.Errorf("rank %d did not report success:\n%s%s", i, &stdout, &stderr)
				}
			}
		})
	}
}
