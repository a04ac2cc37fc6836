package mpirun

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/rhinet-go/martini/llc/launch"
	"golang.org/x/sys/unix"
)

// The network interfaces of a host, read from the kernel through netlink
// (as package net does, which mpirun does not link: see job.go).

// ifAddr is an address of a network interface that is up.
type ifAddr struct {
	iface  string       // the interface's name
	index  int          // the interface's index
	prefix netip.Prefix // the address and the length of its network
}

func (a ifAddr) String() string { return a.iface + " " + a.prefix.String() }

// interfaceAddrs returns the addresses of the interfaces of this host (of
// its network namespace) that are up, in the order of the interfaces,
// IPv4 before IPv6 on each. IPv6 link-local addresses are left out: they
// mean nothing without their interface.
func interfaceAddrs() ([]ifAddr, error) {
	names, err := upInterfaces()
	if err != nil {
		return nil, err
	}
	rib, err := syscall.NetlinkRIB(syscall.RTM_GETADDR, syscall.AF_UNSPEC)
	if err != nil {
		return nil, fmt.Errorf("interface addresses: %w", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(rib)
	if err != nil {
		return nil, fmt.Errorf("interface addresses: %w", err)
	}
	var addrs []ifAddr
	for _, m := range msgs {
		if m.Header.Type != syscall.RTM_NEWADDR || len(m.Data) < syscall.SizeofIfAddrmsg {
			continue
		}
		a, ok, err := parseAddrMsg(&m, names)
		if err != nil {
			return nil, err
		}
		if ok {
			addrs = append(addrs, a)
		}
	}
	slices.SortStableFunc(addrs, func(a, b ifAddr) int {
		if a.index != b.index {
			return a.index - b.index
		}
		return boolInt(b.prefix.Addr().Is4()) - boolInt(a.prefix.Addr().Is4())
	})
	return addrs, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseAddrMsg reads the address of an RTM_NEWADDR message; ok is false
// for an address to leave out.
func parseAddrMsg(m *syscall.NetlinkMessage, names map[int]string) (a ifAddr, ok bool, err error) {
	bits := int(m.Data[1]) // struct ifaddrmsg: family, prefixlen, flags, scope, index
	a.index = int(binary.NativeEndian.Uint32(m.Data[4:8]))
	if a.iface, ok = names[a.index]; !ok {
		return a, false, nil
	}
	attrs, err := syscall.ParseNetlinkRouteAttr(m)
	if err != nil {
		return a, false, fmt.Errorf("interface addresses: %w", err)
	}
	var ip netip.Addr
	for _, at := range attrs {
		// IFA_LOCAL is the address itself; IFA_ADDRESS is the peer's on
		// a point-to-point link, so it counts only without IFA_LOCAL.
		switch {
		case at.Attr.Type == syscall.IFA_LOCAL, at.Attr.Type == syscall.IFA_ADDRESS && !ip.IsValid():
			ip, _ = netip.AddrFromSlice(at.Value)
		}
	}
	if !ip.IsValid() || ip.IsLinkLocalUnicast() && ip.Is6() {
		return a, false, nil
	}
	// The address itself with the length of its network.
	if a.prefix = netip.PrefixFrom(ip, bits); !a.prefix.IsValid() {
		return a, false, fmt.Errorf("interface addresses: %s with a prefix of %d bits", ip, bits)
	}
	return a, true, nil
}

// upInterfaces returns the names of the interfaces that are up, by index.
func upInterfaces() (map[int]string, error) {
	rib, err := syscall.NetlinkRIB(syscall.RTM_GETLINK, syscall.AF_UNSPEC)
	if err != nil {
		return nil, fmt.Errorf("interfaces: %w", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(rib)
	if err != nil {
		return nil, fmt.Errorf("interfaces: %w", err)
	}
	names := make(map[int]string)
	for _, m := range msgs {
		if m.Header.Type != syscall.RTM_NEWLINK || len(m.Data) < syscall.SizeofIfInfomsg {
			continue
		}
		// struct ifinfomsg: family, pad, type, index, flags, change
		index := int(int32(binary.NativeEndian.Uint32(m.Data[4:8])))
		if binary.NativeEndian.Uint32(m.Data[8:12])&syscall.IFF_UP == 0 {
			continue
		}
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			return nil, fmt.Errorf("interfaces: %w", err)
		}
		for _, at := range attrs {
			if at.Attr.Type == syscall.IFLA_IFNAME {
				names[index] = strings.TrimRight(string(at.Value), "\x00")
			}
		}
	}
	return names, nil
}

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
		if isCIDR && cidr.Contains(a.prefix.Addr()) || !isCIDR && a.iface == spec {
			return a.prefix.Addr(), nil
		}
	}
	what := "no interface " + spec
	if isCIDR {
		what = "no address in " + spec
	}
	return netip.Addr{}, fmt.Errorf("-if %s: %s here (addresses: %s)", spec, what, listAddrs(addrs))
}

func listAddrs(addrs []ifAddr) string {
	if len(addrs) == 0 {
		return "none"
	}
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// routeSource returns the address from which this host reaches dst: the
// source address of its route to dst (no packet is sent).
func routeSource(dst netip.Addr) (netip.Addr, error) {
	family, sa := sockaddr(netip.AddrPortFrom(dst, 9)) // any port: nothing is sent
	fd, err := unix.Socket(family, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("route to %s: %w", dst, err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, sa); err != nil {
		return netip.Addr{}, fmt.Errorf("route to %s: %w", dst, err)
	}
	local, err := unix.Getsockname(fd)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("route to %s: %w", dst, err)
	}
	switch l := local.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrFrom4(l.Addr), nil
	case *unix.SockaddrInet6:
		return netip.AddrFrom16(l.Addr), nil
	}
	return netip.Addr{}, fmt.Errorf("route to %s: a source address of type %T", dst, local)
}

// networkIdentity names this host's network stack: its boot and its
// network namespace. Two processes with the same identity reach each
// other through loopback.
func networkIdentity() (string, error) {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("network identity: %w", err)
	}
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return "", fmt.Errorf("network identity: %w", err)
	}
	return strings.TrimSpace(string(boot)) + " " + ns, nil
}

// headAddr chooses the address on which the head serves the data store
// of a job across hosts without -if, from the agents' hellos (in the
// order of the hosts) and the head's own network identity and
// addresses: the source address of the route to the first host that
// does not share the head's network stack, or loopback when every host
// shares it. route is routeSource (or a stand-in in tests).
func headAddr(hosts []string, hellos []agentHello, self string, own []ifAddr, route func(netip.Addr) (netip.Addr, error)) (netip.Addr, error) {
	for i, h := range hellos {
		if h.Network == self {
			continue
		}
		for _, s := range h.Addrs {
			p, err := netip.ParsePrefix(s)
			if err != nil || p.Addr().IsLoopback() || hasAddr(own, p.Addr()) {
				continue // another host's loopback, or an address of the head too (a bridge of containers, say)
			}
			if src, err := route(p.Addr()); err == nil && !src.IsLoopback() {
				return src, nil
			}
		}
		return netip.Addr{}, fmt.Errorf("host %s: this host has no route to any of its addresses (%s) from an address of its own (%s): choose the address to serve the job on with -if CIDR|NAME", hosts[i], strings.Join(h.Addrs, ", "), listAddrs(own))
	}
	return netip.MustParseAddr(launch.LoopbackAddr), nil
}

func hasAddr(addrs []ifAddr, ip netip.Addr) bool {
	for _, a := range addrs {
		if a.prefix.Addr() == ip {
			return true
		}
	}
	return false
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
	return routeSource(head)
}
