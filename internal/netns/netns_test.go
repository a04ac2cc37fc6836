package netns

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a tiny server and client run inside the
// namespaces: NETNS_TEST_LISTEN=addr accepts one connection and writes
// "hello from addr"; NETNS_TEST_DIAL=addr prints what the server wrote.
func TestMain(m *testing.M) {
	if addr := os.Getenv("NETNS_TEST_LISTEN"); addr != "" {
		os.Exit(listenOnce(addr))
	}
	if addr := os.Getenv("NETNS_TEST_DIAL"); addr != "" {
		os.Exit(dialOnce(addr))
	}
	os.Exit(m.Run())
}

func listenOnce(addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("listening")
	c, err := ln.Accept()
	if err != nil {
		return 1
	}
	fmt.Fprintf(c, "hello from %s\n", addr)
	c.Close()
	return 0
}

func dialOnce(addr string) int {
	var c net.Conn
	var err error
	c, err = net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	line, _ := bufio.NewReader(c).ReadString('\n')
	fmt.Print(line)
	return 0
}

// talk checks that a process in from reaches a server in to.
func talk(t *testing.T, from, to Namespace) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(to.Addr.String(), "7777")
	srv := to.Command(self)
	srv.Env = append(os.Environ(), "NETNS_TEST_LISTEN="+addr)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Wait()
	defer srv.Process.Kill()
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "listening\n" {
		t.Fatalf("server in %s: %q", to.Name, l)
	}
	cl := from.Command(self)
	cl.Env = append(os.Environ(), "NETNS_TEST_DIAL="+addr)
	got, err := cl.Output()
	if want := "hello from " + addr + "\n"; err != nil || string(got) != want {
		t.Errorf("from %s to %s: %q, %v; want %q", from.Name, to.Name, got, err, want)
	}
}

func namespaces(t *testing.T) []string {
	t.Helper()
	entries, _ := os.ReadDir("/run/netns")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestPair(t *testing.T) {
	s := New(t, 2)
	a, b := s.Hosts[0], s.Hosts[1]
	if !strings.HasPrefix(a.Name, Prefix) || a.Name == b.Name || a.Addr == b.Addr || !s.Network.Contains(a.Addr) || !s.Network.Contains(b.Addr) {
		t.Fatalf("hosts %+v on %v", s.Hosts, s.Network)
	}
	talk(t, a, b)
	talk(t, b, a)
	// The addresses exist only inside the namespaces.
	out, err := exec.Command("ip", "-o", "addr").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range s.Hosts {
		if strings.Contains(string(out), h.Addr.String()+"/") {
			t.Errorf("%s is an address of the test's own namespace", h.Addr)
		}
	}
}

func TestHub(t *testing.T) {
	s := New(t, 3)
	talk(t, s.Hosts[0], s.Hosts[2])
	talk(t, s.Hosts[2], s.Hosts[1])
}

func TestRemoveKillsAndDeletes(t *testing.T) {
	s := New(t, 2)
	sleeper := s.Hosts[1].Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- sleeper.Wait() }()
	// ip enters the namespace after it starts: wait until the sleeper is
	// seen there.
	var pids []int
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pids, err = s.Hosts[1].Pids(); err != nil || slices.Contains(pids, sleeper.Process.Pid) {
			break
		}
	}
	if err != nil || !slices.Contains(pids, sleeper.Process.Pid) {
		t.Errorf("processes in %s: %v, %v; want the sleeper %d", s.Hosts[1].Name, pids, err, sleeper.Process.Pid)
	}
	names := []string{s.Hosts[0].Name, s.Hosts[1].Name}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		sleeper.Process.Kill()
		t.Error("the process in the namespace survived Remove")
	}
	for _, n := range namespaces(t) {
		if slices.Contains(names, n) {
			t.Errorf("namespace %s left after Remove", n)
		}
	}
	if err := s.Remove(); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}

func TestSweepRemovesStale(t *testing.T) {
	New(t, 2) // skips unless the test can make namespaces
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("%s%d-1-a0", Prefix, dead.Process.Pid)
	if err := ip("netns", "add", stale); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remove(stale) })
	mine := fmt.Sprintf("%s%d-999-a0", Prefix, os.Getpid())
	if err := ip("netns", "add", mine); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remove(mine) })
	if err := Sweep(); err != nil {
		t.Fatal(err)
	}
	names := namespaces(t)
	if slices.Contains(names, stale) {
		t.Errorf("Sweep left %s, made by the dead process %d", stale, dead.Process.Pid)
	}
	if !slices.Contains(names, mine) {
		t.Errorf("Sweep removed %s, made by this live process", mine)
	}
}
