package mpirun

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/rhinet-go/martini/internal/netif"
	"github.com/rhinet-go/martini/llc/launch"
	"golang.org/x/sys/unix"
)

// The network interfaces of a host are read by package netif.

// ifAddr is an address of a network interface that is up.
type ifAddr = netif.Addr

// checkIfSpec checks the syntax of the argument of -if: a CIDR, or the
// name of an interface.
func checkIfSpec(spec string) error {
	if _, err := netip.ParsePrefix(spec); err == nil {
		return nil
	}
	if spec == "" || len(spec) >= unix.IFNAMSIZ || strings.ContainsAny(spec, "/ \t\n:") {
		return fmt.Errorf("-if %q: want a CIDR (10.0.0.0/8) or an interface name (eth0)", spec)
	}
	return nil
}

// selectAddr returns the first of addrs that spec (see checkIfSpec)
// chooses: in the CIDR, or of the interface of that name.
func selectAddr(spec string, addrs []ifAddr) (netip.Addr, error) {
	cidr, err := netip.ParsePrefix(spec)
	isCIDR := err == nil
	for _, a := range addrs {
		if isCIDR && cidr.Contains(a.Prefix.Addr()) || !isCIDR && a.Iface == spec {
			return a.Prefix.Addr(), nil
		}
	}
	what := "no interface " + spec
	if isCIDR {
		what = "no address in " + spec
	}
	return netip.Addr{}, fmt.Errorf("-if %s: %s here (addresses: %s)", spec, what, netif.List(addrs))
}

// headAddr chooses the address on which the head serves the data store
// of a job across hosts without -if, from the agents' hellos (in the
// order of the hosts) and the head's own network identity and
// addresses: the source address of the route to the first host that
// does not share the head's network stack, or loopback when every host
// shares it. route is netif.RouteSource (or a stand-in in tests).
func headAddr(hosts []string, hellos []agentHello, self string, own []ifAddr, route func(netip.Addr) (netip.Addr, error)) (netip.Addr, error) {
	for i, h := range hellos {
		if h.Network == self {
			continue
		}
		if src, ok := netif.Reaching(h.Addrs, own, route); ok {
			return src, nil
		}
		return netip.Addr{}, fmt.Errorf("host %s: this host has no route to any of its addresses (%s) from an address of its own (%s): choose the address to serve the job on with -if CIDR|NAME", hosts[i], strings.Join(h.Addrs, ", "), netif.List(own))
	}
	return netip.MustParseAddr(launch.LoopbackAddr), nil
}

// agentTCPAddr chooses the address on which the ranks of an agent's host
// listen for their TCP network: its address chosen by spec (-if), or
// without one the source address of its route to the head's address
// head (loopback when the head serves on loopback).
func agentTCPAddr(spec string, head netip.Addr, own []ifAddr) (netip.Addr, error) {
	switch {
	case spec != "":
		return selectAddr(spec, own)
	case head.IsLoopback():
		return head, nil
	}
	return netif.RouteSource(head)
}
