package mpirun

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/netif"
)

func TestParseHostList(t *testing.T) {
	for in, want := range map[string][]hostSlots{
		"a:2,b:2":             {{"a", 2}, {"b", 2}},
		"node1":               {{"node1", 1}},
		"a,b:3,a":             {{"a", 2}, {"b", 3}},
		"user@h.x:4,10.0.0.2": {{"user@h.x", 4}, {"10.0.0.2", 1}},
	} {
		got, err := parseHostList(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseHostList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"":        "empty host name",
		"a:0":     "slots at least 1",
		"a:x":     "slots at least 1",
		":2":      "empty host name",
		"a,,b":    "empty host name",
		"-oProxy": "may not begin with -",
		"a b:2":   "blanks",
	} {
		if _, err := parseHostList(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("parseHostList(%q): %v; want an error saying %q", in, err, why)
		}
	}
}

func TestParseHostfile(t *testing.T) {
	const file = `# the cluster
node1 slots=2
node2 slots=4 max_slots=8   # the big one

node3
node1 slots=1
	node4	max_slots=1
`
	got, err := parseHostfile(strings.NewReader(file), "hosts")
	want := []hostSlots{{"node1", 3}, {"node2", 4}, {"node3", 1}, {"node4", 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseHostfile = %v, %v; want %v", got, err, want)
	}
	for file, why := range map[string]string{
		"a slots=2\nb slot=2\n":   "hosts:2: \"slot=2\": unknown keyword slot",
		"a slots=0\n":             "hosts:1: \"slots=0\": want slots=N",
		"a slots\n":               "hosts:1: \"slots\": want slots=N",
		"a slots=4 max_slots=2\n": "hosts:1: a: slots=4 exceeds max_slots=2",
		"# nothing\n\n":           "hosts: no hosts in it",
		"a\n-b\n":                 "hosts:2: \"-b\": a host name may not begin with -",
		"a slots=2 cpu=4\n":       "unknown keyword cpu",
	} {
		if _, err := parseHostfile(strings.NewReader(file), "hosts"); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("hostfile %q: %v; want an error saying %q", file, err, why)
		}
	}
	mpich := "# MPICH's format\nnode1:2\nnode2\nnode1:1\nfe80::1\n"
	got, err = parseHostfile(strings.NewReader(mpich), "hosts")
	want = []hostSlots{{"node1", 3}, {"node2", 1}, {"fe80::1", 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseHostfile(%q) = %v, %v; want %v", mpich, got, err, want)
	}
	if _, err := parseHostfile(strings.NewReader("a:0\n"), "hosts"); err == nil || !strings.Contains(err.Error(), `"a:0": slots must be at least 1`) {
		t.Errorf("hostfile a:0: %v", err)
	}
	if _, err := readHostfile(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing hostfile: %v", err)
	}
}

func TestPlace(t *testing.T) {
	hosts := []hostSlots{{"A", 2}, {"B", 2}}
	for np, want := range map[int][]placement{
		4: {{"A", 0, 2}, {"B", 2, 2}},
		3: {{"A", 0, 2}, {"B", 2, 1}},
		1: {{"A", 0, 1}},
	} {
		if got, err := place(hosts, np); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("place(%v, %d) = %v, %v; want %v", hosts, np, got, err, want)
		}
	}
	if _, err := place(hosts, 5); err == nil || !strings.Contains(err.Error(), "-np 5: more ranks than the 4 slots") {
		t.Errorf("place 5 ranks on 4 slots: %v", err)
	}
}

func TestOversubscribe(t *testing.T) {
	hosts := []hostSlots{{"A", 2}, {"B", 1}}
	for np, want := range map[int][]hostSlots{
		3: hosts,
		2: hosts,
		4: {{"A", 3}, {"B", 1}},
		5: {{"A", 4}, {"B", 1}},
		6: {{"A", 4}, {"B", 2}},
		7: {{"A", 5}, {"B", 2}},
	} {
		if got := oversubscribe(hosts, np); !reflect.DeepEqual(got, want) {
			t.Errorf("oversubscribe(%v, %d) = %v, want %v", hosts, np, got, want)
		}
	}
	if hosts[0].slots != 2 || hosts[1].slots != 1 {
		t.Errorf("oversubscribe changed its argument: %v", hosts)
	}
}

func TestLaunchCommand(t *testing.T) {
	got := launchCommand("ip netns exec {host}", "B", "/usr/bin/mpirun")
	if want := []string{"ip", "netns", "exec", "B", "/usr/bin/mpirun", "agent"}; !reflect.DeepEqual(got, want) {
		t.Errorf("launchCommand = %q, want %q", got, want)
	}
	got = launchCommand("  ssh -o ConnectTimeout=5 -l admin {host}.cluster  ", "n1", "/m")
	if want := []string{"ssh", "-o", "ConnectTimeout=5", "-l", "admin", "n1.cluster", "/m", "agent"}; !reflect.DeepEqual(got, want) {
		t.Errorf("launchCommand = %q, want %q", got, want)
	}
	for template, why := range map[string]string{"": "an empty command", "  ": "an empty command", "ssh": "no {host}"} {
		if err := checkTemplate(template); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("checkTemplate(%q): %v; want %q", template, err, why)
		}
	}
	if err := checkTemplate("ssh {host}"); err != nil {
		t.Errorf("checkTemplate of the default: %v", err)
	}
}

func TestParseHostFlags(t *testing.T) {
	o, err := parseFlags([]string{"-hosts", "a:2,b:3", "prog"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []placement{{"a", 0, 2}, {"b", 2, 3}}; o.np != 5 || !reflect.DeepEqual(o.hosts, want) || o.launch != "ssh {host}" || o.ifSpec != "" || o.agentTimeout != defaultAgentTimeout {
		t.Errorf("-hosts a:2,b:3: np %d, hosts %v, launch %q, if %q, agent timeout %v", o.np, o.hosts, o.launch, o.ifSpec, o.agentTimeout)
	}
	hostfile := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hostfile, []byte("a slots=2\nb slots=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err = parseFlags([]string{"-hostfile", hostfile, "-np", "3", "-launch", "ip netns exec {host}", "-if", "lo", "-agent-timeout", "0", "prog"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []placement{{"a", 0, 2}, {"b", 2, 1}}; o.np != 3 || !reflect.DeepEqual(o.hosts, want) || o.launch != "ip netns exec {host}" || o.ifAddr.String() != "127.0.0.1" || o.agentTimeout != 0 {
		t.Errorf("-hostfile -np 3 -if lo -agent-timeout 0: np %d, hosts %v, launch %q, address %v, agent timeout %v", o.np, o.hosts, o.launch, o.ifAddr, o.agentTimeout)
	}
	if o, err := parseFlags([]string{"-np", "2", "prog"}, &bytes.Buffer{}); err != nil || o.hosts != nil {
		t.Errorf("without hosts: %+v, %v", o, err)
	}
}

func TestHostUsageErrors(t *testing.T) {
	absent := absentAddr(t)
	hostfile := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(hostfile, []byte("a slots=2\nb bogus\n"), 0o644)
	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{"-hosts", "a:2,b:2", "-np", "5", "prog"}, "-np 5: more ranks than the 4 slots of the hosts"},
		{[]string{"-hosts", "a:2", "-np", "0", "prog"}, "-np 0: need at least 1 rank"},
		{[]string{"-hosts", "a:2", "-hostfile", hostfile, "prog"}, "-hosts and -hostfile: give one of them"},
		{[]string{"-hostfile", hostfile, "prog"}, "-hostfile: " + hostfile + ":2: \"bogus\""},
		{[]string{"-hostfile", hostfile + ".none", "prog"}, "-hostfile: open " + hostfile + ".none"},
		{[]string{"-hosts", "a:two", "prog"}, "-hosts: \"a:two\""},
		{[]string{"-np", "2", "-launch", "ssh {host}", "prog"}, "-launch, -if and -agent-timeout are for jobs across hosts"},
		{[]string{"-np", "2", "-if", "eth0", "prog"}, "-launch, -if and -agent-timeout are for jobs across hosts"},
		{[]string{"-np", "2", "-agent-timeout", "1m", "prog"}, "-launch, -if and -agent-timeout are for jobs across hosts"},
		{[]string{"-hosts", "a", "-agent-timeout", "-1s", "prog"}, "-agent-timeout -1s: must not be negative"},
		{[]string{"-hosts", "a", "-launch", "ssh", "prog"}, "-launch \"ssh\": no {host} in it"},
		{[]string{"-hosts", "a", "-if", "10.0.0.0/33", "prog"}, "-if \"10.0.0.0/33\": want a CIDR"},
		{[]string{"-hosts", "a", "-if", "no-such-if0", "prog"}, "-if no-such-if0: no interface no-such-if0 here"},
		{[]string{"-hosts", "a", "-if", absent + "/32", "prog"}, "-if " + absent + "/32: no address in " + absent + "/32 here"},
		{[]string{"-hosts", "a"}, "missing PROGRAM"},
	} {
		var stderr bytes.Buffer
		r := run(c.args, nil, &bytes.Buffer{}, &stderr, nil)
		if r != 2 || !strings.Contains(stderr.String(), "mpirun: "+c.why) || !strings.Contains(stderr.String(), "usage: mpirun") {
			t.Errorf("mpirun %q: exit %d, stderr:\n%s\nwant 2 and %q", c.args, r, stderr.String(), c.why)
		}
	}
}

// absentAddr returns an IPv4 address that is not one of this host's.
func absentAddr(t *testing.T) string {
	t.Helper()
	addrs, err := netif.Addrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, cand := range []string{"203.0.113.77", "198.51.100.77", "192.0.2.77", "10.255.254.77"} {
		if !netif.Has(addrs, netip.MustParseAddr(cand)) {
			return cand
		}
	}
	t.Skip("every candidate address is one of this host's")
	return ""
}
