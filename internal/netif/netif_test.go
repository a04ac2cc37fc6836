package netif

import (
	"errors"
	"net/netip"
	"testing"
)

func TestAddrs(t *testing.T) {
	addrs, err := Addrs()
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) == 0 || addrs[0].Iface != "lo" || addrs[0].Prefix.String() != "127.0.0.1/8" {
		t.Fatalf("addresses %v: want lo's 127.0.0.1/8 first", addrs)
	}
	for i, a := range addrs {
		if a.Prefix.Addr().Is6() && a.Prefix.Addr().IsLinkLocalUnicast() {
			t.Errorf("link-local address %v listed", a)
		}
		if i > 0 && a.Index < addrs[i-1].Index {
			t.Errorf("addresses %v not in the order of the interfaces", addrs)
		}
	}
}

func TestRouteSource(t *testing.T) {
	for _, dst := range []string{"127.0.0.1", "127.0.0.2"} {
		if src, err := RouteSource(netip.MustParseAddr(dst)); err != nil || !src.IsLoopback() {
			t.Errorf("RouteSource(%s) = %v, %v; want a loopback address", dst, src, err)
		}
	}
}

// Reaching skips the other host's loopback and the addresses this host
// has too, and takes the first address a route reaches.
func TestReaching(t *testing.T) {
	own := []Addr{
		{Iface: "lo", Index: 1, Prefix: netip.MustParsePrefix("127.0.0.1/8")},
		{Iface: "eth0", Index: 2, Prefix: netip.MustParsePrefix("192.168.1.10/24")},
		{Iface: "docker0", Index: 3, Prefix: netip.MustParsePrefix("172.17.0.1/16")},
	}
	route := func(dst netip.Addr) (netip.Addr, error) {
		if netip.MustParsePrefix("192.168.1.0/24").Contains(dst) {
			return netip.MustParseAddr("192.168.1.10"), nil
		}
		if dst.IsLoopback() {
			return dst, nil
		}
		return netip.Addr{}, errors.New("network is unreachable")
	}
	peer := []string{"127.0.0.1/8", "172.17.0.1/16", "10.9.9.9/8", "192.168.1.20/24"}
	if src, ok := Reaching(peer, own, route); !ok || src.String() != "192.168.1.10" {
		t.Errorf("Reaching(%v) = %v, %v; want 192.168.1.10", peer, src, ok)
	}
	if src, ok := Reaching(peer[:3], own, route); ok {
		t.Errorf("Reaching(%v) = %v; want none", peer[:3], src)
	}
}

// Two processes of one namespace have one identity.
func TestIdentity(t *testing.T) {
	a, err := Identity()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Identity()
	if a == "" || a != b {
		t.Errorf("identities %q and %q", a, b)
	}
}
