package mpirun

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// someAddrs are the addresses of a host with loopback, a LAN and a
// container bridge.
var someAddrs = []ifAddr{
	{Iface: "lo", Index: 1, Prefix: netip.MustParsePrefix("127.0.0.1/8")},
	{Iface: "lo", Index: 1, Prefix: netip.MustParsePrefix("::1/128")},
	{Iface: "eth0", Index: 2, Prefix: netip.MustParsePrefix("192.168.1.10/24")},
	{Iface: "eth0", Index: 2, Prefix: netip.MustParsePrefix("fd00::10/64")},
	{Iface: "docker0", Index: 3, Prefix: netip.MustParsePrefix("172.17.0.1/16")},
}

func TestSelectAddr(t *testing.T) {
	for spec, want := range map[string]string{
		"eth0":           "192.168.1.10",
		"docker0":        "172.17.0.1",
		"lo":             "127.0.0.1",
		"192.168.0.0/16": "192.168.1.10",
		"fd00::/8":       "fd00::10",
		"0.0.0.0/0":      "127.0.0.1",
	} {
		if got, err := selectAddr(spec, someAddrs); err != nil || got.String() != want {
			t.Errorf("selectAddr(%q) = %v, %v; want %s", spec, got, err, want)
		}
	}
	for spec, why := range map[string]string{
		"wlan0":      "-if wlan0: no interface wlan0 here (addresses: lo 127.0.0.1/8, lo ::1/128, eth0 192.168.1.10/24",
		"10.0.0.0/8": "-if 10.0.0.0/8: no address in 10.0.0.0/8 here",
	} {
		if _, err := selectAddr(spec, someAddrs); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("selectAddr(%q): %v; want %q", spec, err, why)
		}
	}
	for spec, ok := range map[string]bool{"eth0": true, "10.0.0.0/8": true, "fd00::/8": true, "": false, "10.0.0.0/99": false, "a b": false, "averyveryverylongname": false} {
		if err := checkIfSpec(spec); (err == nil) != ok {
			t.Errorf("checkIfSpec(%q) = %v", spec, err)
		}
	}
}

func TestHeadAddr(t *testing.T) {
	hosts := []string{"a", "b", "c"}
	// b's LAN address is reached from the head's; its bridge shares the
	// head's address and its loopback means nothing here.
	route := func(dst netip.Addr) (netip.Addr, error) {
		if netip.MustParsePrefix("192.168.1.0/24").Contains(dst) {
			return netip.MustParseAddr("192.168.1.10"), nil
		}
		return netip.Addr{}, errors.New("network is unreachable")
	}
	local := agentHello{Network: "me", Addrs: []string{"127.0.0.1/8", "192.168.1.10/24"}}
	b := agentHello{Network: "b", Addrs: []string{"127.0.0.1/8", "172.17.0.1/16", "10.9.9.9/8", "192.168.1.20/24"}}
	c := agentHello{Network: "c", Addrs: []string{"127.0.0.1/8", "172.17.0.1/16"}}

	got, err := headAddr(hosts, []agentHello{local, b, c}, "me", someAddrs, route)
	if err != nil || got.String() != "192.168.1.10" {
		t.Errorf("headAddr(a local, b remote) = %v, %v; want 192.168.1.10", got, err)
	}
	got, err = headAddr(hosts[:1], []agentHello{local}, "me", someAddrs, route)
	if err != nil || got.String() != "127.0.0.1" {
		t.Errorf("headAddr(every host local) = %v, %v; want 127.0.0.1", got, err)
	}
	_, err = headAddr(hosts, []agentHello{local, c, b}, "me", someAddrs, route)
	if err == nil || !strings.Contains(err.Error(), "host b: this host has no route to any of its addresses (127.0.0.1/8, 172.17.0.1/16)") || !strings.Contains(err.Error(), "-if CIDR|NAME") {
		t.Errorf("headAddr(first remote host unreachable): %v", err)
	}
}

func TestAgentTCPAddr(t *testing.T) {
	if got, err := agentTCPAddr("", netip.MustParseAddr("127.0.0.1"), someAddrs); err != nil || got.String() != "127.0.0.1" {
		t.Errorf("head on loopback: %v, %v", got, err)
	}
	if got, err := agentTCPAddr("docker0", netip.MustParseAddr("10.1.1.1"), someAddrs); err != nil || got.String() != "172.17.0.1" {
		t.Errorf("-if docker0: %v, %v", got, err)
	}
	if _, err := agentTCPAddr("10.0.0.0/8", netip.MustParseAddr("10.1.1.1"), someAddrs); err == nil {
		t.Error("-if 10.0.0.0/8 on a host without such an address: no error")
	}
}
