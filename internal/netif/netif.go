// Package netif reads what a host's network offers a job across hosts:
// the addresses of its interfaces that are up, the source address of its
// route to another host, and the identity of its network stack. It reads
// them from the kernel through netlink and sockets, as package net does,
// which the launcher and the ranks' programs do not link (a static
// program without cgo starts sooner).
package netif

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Addr is an address of a network interface that is up.
type Addr struct {
	Iface  string       // the interface's name
	Index  int          // the interface's index
	Prefix netip.Prefix // the address and the length of its network
}

func (a Addr) String() string { return a.Iface + " " + a.Prefix.String() }

// Addrs returns the addresses of the interfaces of this host (of its
// network namespace) that are up, in the order of the interfaces, IPv4
// before IPv6 on each. IPv6 link-local addresses are left out: they mean
// nothing without their interface.
func Addrs() ([]Addr, error) {
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
	var addrs []Addr
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
	slices.SortStableFunc(addrs, func(a, b Addr) int {
		if a.Index != b.Index {
			return a.Index - b.Index
		}
		return boolInt(b.Prefix.Addr().Is4()) - boolInt(a.Prefix.Addr().Is4())
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
func parseAddrMsg(m *syscall.NetlinkMessage, names map[int]string) (a Addr, ok bool, err error) {
	bits := int(m.Data[1]) // struct ifaddrmsg: family, prefixlen, flags, scope, index
	a.Index = int(binary.NativeEndian.Uint32(m.Data[4:8]))
	if a.Iface, ok = names[a.Index]; !ok {
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
	if a.Prefix = netip.PrefixFrom(ip, bits); !a.Prefix.IsValid() {
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

// Has reports whether ip is one of addrs.
func Has(addrs []Addr, ip netip.Addr) bool {
	for _, a := range addrs {
		if a.Prefix.Addr() == ip {
			return true
		}
	}
	return false
}

// List formats addrs for a message: "none" when there are none.
func List(addrs []Addr) string {
	if len(addrs) == 0 {
		return "none"
	}
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// Sockaddr returns the socket address of ap and its family.
func Sockaddr(ap netip.AddrPort) (int, unix.Sockaddr) {
	if ip := ap.Addr().Unmap(); ip.Is4() {
		return unix.AF_INET, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ip.As4()}
	}
	return unix.AF_INET6, &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
}

// RouteSource returns the address from which this host reaches dst: the
// source address of its route to dst (no packet is sent).
func RouteSource(dst netip.Addr) (netip.Addr, error) {
	family, sa := Sockaddr(netip.AddrPortFrom(dst, 9)) // any port: nothing is sent
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

// Reaching returns the source address of this host's route to another
// host whose addresses (CIDRs, as Addr.Prefix formats them) are peer: the
// first that is neither a loopback address nor one of own (a bridge of
// containers that every host has, say) and that a route from an address
// other than loopback reaches. ok is false when none is. route is
// RouteSource, or a stand-in in tests.
func Reaching(peer []string, own []Addr, route func(netip.Addr) (netip.Addr, error)) (src netip.Addr, ok bool) {
	for _, s := range peer {
		p, err := netip.ParsePrefix(s)
		if err != nil || p.Addr().IsLoopback() || Has(own, p.Addr()) {
			continue
		}
		if src, err := route(p.Addr()); err == nil && !src.IsLoopback() {
			return src, true
		}
	}
	return netip.Addr{}, false
}

// Identity names this host's network stack: its boot and its network
// namespace. Two processes with the same identity reach each other
// through loopback.
func Identity() (string, error) {
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
