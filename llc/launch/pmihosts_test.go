package launch

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/netif"
	"golang.org/x/sys/unix"
)

// Two hosts of one name (network namespaces): each process learns its
// place among its host's, and listens for TCP on the address from which
// its host reaches the first other host.
func TestPlace(t *testing.T) {
	t.Run("two hosts", testPlaceTwoHosts)
	t.Run("one host", testPlaceOneHost)
	t.Run("two process namespaces", testPlaceTwoNamespaces)
	t.Run("unreachable host", testPlaceUnreachable)
}

// placeCards returns two hosts of one name: a with one address, b with
// two.
func placeCards() (a, b hostCard) {
	a = hostCard{id: "boot net:[1] pid:[9]", name: "node", addrs: []string{"10.0.0.1/24"}}
	b = hostCard{id: "boot net:[2] pid:[9]", name: "node", addrs: []string{"10.0.0.2/24", "172.17.0.1/16"}}
	return a, b
}

// placeRoute: the route to either host's address leaves from the other's.
func placeRoute(dst netip.Addr) (netip.Addr, error) {
	switch dst.String() {
	case "10.0.0.1":
		return netip.MustParseAddr("10.0.0.2"), nil
	case "10.0.0.2":
		return netip.MustParseAddr("10.0.0.1"), nil
	}
	return netip.Addr{}, errors.New("network is unreachable")
}

// placeOwn is the placing process's own addresses: loopback alone.
var placeOwn = []netif.Addr{{Iface: "lo", Index: 1, Prefix: netip.MustParsePrefix("127.0.0.1/8")}}

// testPlaceTwoHosts: five processes on two hosts of one name each learn
// their place among their host's, and their TCP address.
func testPlaceTwoHosts(t *testing.T) {
	a, b := placeCards()
	cards := []hostCard{a, b, a, b, b}
	for i := range cards {
		cards[i].pid = 100 + i
	}
	for _, tc := range []struct {
		rank, local, localSize, first int
		host, tcp                     string
		procs                         []hostProc
	}{
		{0, 0, 2, 0, "node#0", "10.0.0.1", []hostProc{{0, 100}, {2, 102}}},
		{2, 1, 2, 0, "node#0", "10.0.0.1", []hostProc{{0, 100}, {2, 102}}},
		{4, 2, 3, 1, "node#1", "10.0.0.2", []hostProc{{1, 101}, {3, 103}, {4, 104}}},
	} {
		j := &Job{Rank: tc.rank, Size: len(cards)}
		if err := j.place(cards, placeOwn, placeRoute); err != nil {
			t.Fatalf("rank %d: %v", tc.rank, err)
		}
		if j.LocalRank != tc.local || j.LocalSize != tc.localSize || j.hostFirst != tc.first || j.Host != tc.host || j.TCPAddr != tc.tcp ||
			len(j.hostProcs) != len(tc.procs) {
			t.Errorf("rank %d: local %d of %d, first %d, host %q, tcp %s, procs %v; want %d of %d, %d, %q, %s, %v", tc.rank,
				j.LocalRank, j.LocalSize, j.hostFirst, j.Host, j.TCPAddr, j.hostProcs, tc.local, tc.localSize, tc.first, tc.host, tc.tcp, tc.procs)
			continue
		}
		for i, p := range tc.procs {
			if j.hostProcs[i] != p {
				t.Errorf("rank %d: procs %v, want %v", tc.rank, j.hostProcs, tc.procs)
			}
		}
		if !j.MakesSegment() {
			t.Errorf("rank %d: makes no segment", tc.rank)
		}
	}
}

// testPlaceOneHost: one host: loopback, and no host name of the job's own.
func testPlaceOneHost(t *testing.T) {
	a, _ := placeCards()
	one := []hostCard{a, a, a}
	j := &Job{Rank: 1, Size: 3}
	if err := j.place(one, placeOwn, placeRoute); err != nil || j.Host != "" || j.TCPAddr != LoopbackAddr || j.LocalRank != 1 || j.LocalSize != 3 {
		t.Errorf("one host: %v, host %q, tcp %s, local %d of %d", err, j.Host, j.TCPAddr, j.LocalRank, j.LocalSize)
	}
}

// testPlaceTwoNamespaces: two process namespaces of one network stack:
// two hosts, which reach each other over loopback.
func testPlaceTwoNamespaces(t *testing.T) {
	a, _ := placeCards()
	d := a
	d.id = "boot net:[1] pid:[10]"
	j := &Job{Rank: 1, Size: 2}
	if err := j.place([]hostCard{a, d}, placeOwn, placeRoute); err != nil || j.Host != "node#1" || j.TCPAddr != LoopbackAddr || j.LocalSize != 1 {
		t.Errorf("one network, two process namespaces: %v, host %q, tcp %s, local size %d", err, j.Host, j.TCPAddr, j.LocalSize)
	}
}

// testPlaceUnreachable: another host reached by no route: an error naming
// it and its addresses.
func testPlaceUnreachable(t *testing.T) {
	a, _ := placeCards()
	c := hostCard{id: "other", name: "far", pid: 7, addrs: []string{"192.0.2.1/24"}}
	j := &Job{Rank: 0, Size: 2}
	err := j.place([]hostCard{a, c}, placeOwn, placeRoute)
	if err == nil || !strings.Contains(err.Error(), "host far of rank 1") || !strings.Contains(err.Error(), "192.0.2.1/24") {
		t.Errorf("unreachable host: %v", err)
	}
}

func TestHostCard(t *testing.T) {
	c := hostCard{id: "boot net:[1] pid:[2]", name: "node", pid: 42, addrs: []string{"10.0.0.1/24", "fd00::1/64"}}
	got, err := parseHostCard(c.String())
	if err != nil || got.id != c.id || got.name != c.name || got.pid != c.pid || strings.Join(got.addrs, " ") != strings.Join(c.addrs, " ") {
		t.Errorf("parseHostCard(%q) = %+v, %v", c.String(), got, err)
	}
	if got, err := parseHostCard("id\tname\t1\t"); err != nil || got.addrs != nil {
		t.Errorf("a card without addresses: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "a\tb\tc", "id\tname\t0\t", "id\tname\tx\t"} {
		if _, err := parseHostCard(bad); err == nil {
			t.Errorf("parseHostCard(%q): no error", bad)
		}
	}
}

// The rank states of a host are shared through their file, and a watch
// of a process that ends once finalized returns without ending the job.
func TestHostStateWatch(t *testing.T) {
	states, err := newHostState(2)
	if err != nil {
		t.Fatal(err)
	}
	defer states.close()
	dup, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", states.file.Fd()), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	other, err := mapHostState(dup, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer other.close()
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skipf("no sleep command: %v", err)
	}
	j := &Job{Rank: 0, Size: 2, LocalSize: 2, states: states,
		hostProcs: []hostProc{{0, os.Getpid()}, {1, child.Process.Pid}}}
	fd, err := unix.PidfdOpen(child.Process.Pid, 0)
	if err != nil {
		child.Process.Kill()
		t.Skipf("no pidfd_open: %v", err)
	}
	other.set(1, RankFinalized) // through the other mapping
	if got := states.get(1); got != RankFinalized {
		t.Errorf("state %v, want %v", got, RankFinalized)
	}
	child.Process.Kill()
	child.Wait()
	done := make(chan struct{})
	go func() {
		j.watch(nil, states, []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, []int{1})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not return once its only peer had ended, finalized")
	}
}
