package mpi_test

import (
	"testing"
)

// winHostScenarios are the window scenarios run across hosts.
var winHostScenarios = []string{"win-fence", "win-acc", "win-fetchop", "win-lock", "win-pscw", "win-flush", "win-request"}

// Windows of a job across two hosts that are both this one (the launch
// command starts each host's agent here, and each host has a segment of
// its own): martini between the ranks of a host and TCP between the
// hosts, for the window, its control words and every kind of operation.
func TestWinAcrossFakeHosts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts jobs of two hosts")
	}
	for _, name := range winHostScenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				hosts string
				np    int
			}{{"a:2,b:2", 4}, {"a:1,b:2", 3}} {
				runScenarioJob(t, c.np, name, "-hosts", c.hosts, "-launch", "env MARTINI_TEST_HOST={host}")
			}
		})
	}
}
