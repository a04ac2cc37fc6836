// Package netns makes network namespaces for tests of jobs across hosts:
// each namespace stands for a host, with loopback up and one interface on
// a network that joins them, whose addresses exist only inside those
// namespaces. Two namespaces are joined by a veth pair; more by a veth
// pair each to a bridge in a hub namespace of their own.
//
// Everything is removed when the test ends (t.Cleanup), and when the test
// process is interrupted (SIGINT, SIGTERM, SIGHUP). What a process killed
// otherwise leaves behind (SIGKILL, a test timeout's panic) is removed by
// the next New: namespaces are named with this package's prefix and the
// creating process's pid, and those of dead processes are swept, the
// processes running in them killed first.
//
// It needs root and the ip command (iproute2); New skips the test when
// either is missing.
package netns

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Prefix begins the name of every namespace this package makes.
const Prefix = "mtnet-"

// Link is the name of each namespace's interface on the joining network.
const Link = "mt0"

// Namespace is a network namespace standing for one host.
type Namespace struct {
	// Name is the namespace's name, for ip netns exec.
	Name string
	// Addr is its address on the joining network.
	Addr netip.Addr
}

// Set is the namespaces of one test and the network that joins them.
type Set struct {
	// Hosts are the namespaces that stand for hosts, in order.
	Hosts []Namespace
	// Network is the joining network, 10.77.0.0/24.
	Network netip.Prefix

	names []string // every namespace of the Set, the hub's too
}

// network is the joining network of every Set: the namespaces of two
// Sets never see each other.
var network = netip.MustParsePrefix("10.77.0.0/24")

// maxHosts is the most namespaces of a Set: the addresses of the joining
// network.
const maxHosts = 250

// serial numbers the Sets of this process.
var serial atomic.Int64

// New makes n network namespaces (n at least 2) joined by a network, and
// removes them when t ends. It skips t under -short, without root or
// without the ip command.
func New(t testing.TB, n int) *Set {
	t.Helper()
	if testing.Short() {
		t.Skip("creates network namespaces for jobs across them")
	}
	if n < 2 || n > maxHosts {
		t.Fatalf("netns: %d namespaces: want 2 to %d", n, maxHosts)
	}
	if os.Geteuid() != 0 {
		t.Skip("netns: creating network namespaces needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("netns: the ip command (iproute2) is not installed")
	}
	if err := Sweep(); err != nil {
		t.Logf("netns: sweeping stale namespaces: %v", err)
	}
	s := &Set{Network: network}
	id := fmt.Sprintf("%s%d-%d-", Prefix, os.Getpid(), serial.Add(1))
	register(s)
	t.Cleanup(func() {
		if err := s.Remove(); err != nil {
			t.Errorf("netns: %v", err)
		}
	})
	if err := s.build(id, n); err != nil {
		t.Fatalf("netns: %v", err)
	}
	return s
}

// build makes the namespaces of s, named id followed by a letter (and
// "hub"), their addresses and links.
func (s *Set) build(id string, n int) error {
	for i := range n {
		ns := Namespace{Name: id + string(rune('a'+i%26)) + strconv.Itoa(i/26), Addr: hostAddr(i)}
		if err := s.add(ns.Name); err != nil {
			return err
		}
		s.Hosts = append(s.Hosts, ns)
	}
	if n == 2 {
		a, b := s.Hosts[0].Name, s.Hosts[1].Name
		if err := ip("link", "add", Link, "netns", a, "type", "veth", "peer", "name", Link, "netns", b); err != nil {
			return err
		}
	} else if err := s.buildHub(id + "hub"); err != nil {
		return err
	}
	for _, h := range s.Hosts {
		if err := configure(h, s.Network.Bits()); err != nil {
			return err
		}
	}
	return nil
}

// buildHub makes the namespace hub with a bridge, and a veth pair from
// it to each host.
func (s *Set) buildHub(hub string) error {
	if err := s.add(hub); err != nil {
		return err
	}
	if err := ipIn(hub, "link", "add", "br0", "type", "bridge"); err != nil {
		return err
	}
	if err := ipIn(hub, "link", "set", "br0", "up"); err != nil {
		return err
	}
	for i, h := range s.Hosts {
		port := "p" + strconv.Itoa(i)
		if err := ip("link", "add", port, "netns", hub, "type", "veth", "peer", "name", Link, "netns", h.Name); err != nil {
			return err
		}
		if err := ipIn(hub, "link", "set", port, "master", "br0", "up"); err != nil {
			return err
		}
	}
	return nil
}

// add makes the namespace name, recorded for removal first.
func (s *Set) add(name string) error {
	mu.Lock()
	s.names = append(s.names, name)
	mu.Unlock()
	return ip("netns", "add", name)
}

// configure brings up loopback and the host's link with its address.
func configure(h Namespace, bits int) error {
	if err := ipIn(h.Name, "link", "set", "lo", "up"); err != nil {
		return err
	}
	if err := ipIn(h.Name, "addr", "add", netip.PrefixFrom(h.Addr, bits).String(), "dev", Link); err != nil {
		return err
	}
	return ipIn(h.Name, "link", "set", Link, "up")
}

// hostAddr is the address of the i-th host: 10.77.0.1, 10.77.0.2, ...
func hostAddr(i int) netip.Addr {
	a := network.Addr().As4()
	a[3] = byte(i + 1)
	return netip.AddrFrom4(a)
}

// Command returns a command that runs name with args inside namespace ns.
func (ns Namespace) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// Pids returns the processes that run in the namespace.
func (ns Namespace) Pids() ([]int, error) {
	return pidsIn(ns.Name)
}

// Remove kills the processes left in the namespaces of s and removes the
// namespaces (their interfaces go with them). It may be called again.
func (s *Set) Remove() error {
	mu.Lock()
	names := s.names
	s.names = nil
	delete(live, s)
	mu.Unlock()
	var errs []error
	for _, name := range names {
		if err := remove(name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// remove kills the processes in the namespace name and deletes it.
func remove(name string) error {
	pids, err := pidsIn(name)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := ip("netns", "delete", name); err != nil && !strings.Contains(err.Error(), "No such file") {
		return err
	}
	return nil
}

// pidsIn returns the processes whose network namespace is the one bound
// at /run/netns/name.
func pidsIn(name string) ([]int, error) {
	var ns syscall.Stat_t
	if err := syscall.Stat(filepath.Join("/run/netns", name), &ns); err != nil {
		return nil, fmt.Errorf("namespace %s: %w", name, err)
	}
	paths, _ := filepath.Glob("/proc/[0-9]*/ns/net")
	var pids []int
	for _, p := range paths {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil || st.Ino != ns.Ino || st.Dev != ns.Dev {
			continue
		}
		if pid, err := strconv.Atoi(strings.Split(p, "/")[2]); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// Sweep removes the namespaces of this package that processes no longer
// running made, with the processes left in them.
func Sweep() error {
	entries, err := os.ReadDir("/run/netns")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		owner, ok := ownerPid(name)
		if !ok || syscall.Kill(owner, 0) == nil || owner == os.Getpid() {
			continue
		}
		if err := remove(name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ownerPid returns the pid of the process that made the namespace name,
// if it is one of this package's.
func ownerPid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
	return pid, err == nil && pid > 0
}

// The Sets not yet removed, for the signal handler.
var (
	mu       sync.Mutex
	live     = map[*Set]bool{}
	handling sync.Once
)

// register records s for removal if the process is interrupted.
func register(s *Set) {
	mu.Lock()
	live[s] = true
	mu.Unlock()
	handling.Do(func() {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			sig := <-sigs
			mu.Lock()
			var sets []*Set
			for s := range live {
				sets = append(sets, s)
			}
			mu.Unlock()
			for _, s := range sets {
				s.Remove()
			}
			if len(sets) > 0 {
				fmt.Fprintf(os.Stderr, "netns: %v: removed the test's network namespaces\n", sig)
			}
			os.Exit(1)
		}()
	})
}

// ip runs the ip command with args.
func ip(args ...string) error {
	cmd := exec.Command("ip", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("ip %s: %w", strings.Join(args, " "), err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out.Bytes()))
		}
		return nil
	case <-time.After(ipTimeout):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("ip %s: no answer after %v", strings.Join(args, " "), ipTimeout)
	}
}

// ipTimeout bounds a run of the ip command.
const ipTimeout = 30 * time.Second

// ipIn runs the ip command with args in namespace ns.
func ipIn(ns string, args ...string) error {
	return ip(append([]string{"-n", ns}, args...)...)
}
