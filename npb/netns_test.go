package npb

import (
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/netns"
)

// Every benchmark verifies at class S as a job of 4 across two hosts (two
// network namespaces joined by a veth pair, made and removed by the test):
// martini between the two ranks of a host, TCP between the hosts.
func TestAcrossHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts jobs across network namespaces")
	}
	s := netns.New(t, 2)
	a, b := s.Hosts[0], s.Hosts[1]
	for _, kernel := range []string{"EP", "IS", "CG", "MG", "FT", "LU", "BT", "SP"} {
		t.Run(kernel, func(t *testing.T) {
			out, code := runKernelWith(t, kernel, 'S', false, "ip", "netns", "exec", a.Name, mpirun(t),
				"-hosts", a.Name+":2,"+b.Name+":2", "-launch", "ip netns exec {host}")
			if code != 0 || !strings.Contains(out, "Verification    =               SUCCESSFUL") {
				t.Errorf("%s class S over 2+2 hosts did not verify (exit %d):\n%s", kernel, code, out)
			}
		})
	}
}
