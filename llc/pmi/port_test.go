package pmi

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// On a connection made to the server's port, the client introduces
// itself by its PMI id and takes its rank and size from the server:
// PMI-1 in an initack exchange before its init, PMI-2 in its fullinit.
func TestOpenPort(t *testing.T) {
	for _, version := range []int{1, 2} {
		s := newFake(t, version, 2)
		ends := s.start()
		for r, end := range ends {
			c, err := Open(end, Options{Version: version, Port: true, ID: r, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatalf("pmi-%d, PMI id %d: %v", version, r, err)
			}
			if c.Rank() != r || c.Size() != 2 {
				t.Errorf("pmi-%d, PMI id %d: rank %d of %d, want %d of 2", version, r, c.Rank(), c.Size(), r)
			}
			if err := c.Close(); err != nil {
				t.Error(err)
			}
			first := map[int]string{1: "initack pmiid=" + strconv.Itoa(r), 2: "init pmi_subversion=0 pmi_version=2"}[version]
			if reqs := s.requests(r); len(reqs) < 2 || reqs[0] != first {
				t.Errorf("pmi-%d, PMI id %d: requests %q, want %q first", version, r, reqs, first)
			}
			if version == 2 {
				if reqs := s.requests(r); reqs[1] != "fullinit pmirank="+strconv.Itoa(r)+" threaded=FALSE" {
					t.Errorf("pmi-2, PMI id %d: requests %q, want a fullinit with the PMI id", r, reqs)
				}
			}
		}
	}
}

// An initack answer without the rank is a protocol error.
func TestInitackIncomplete(t *testing.T) {
	client, srv := socketPair(t)
	defer srv.Close()
	go func() {
		buf := make([]byte, 256)
		srv.Read(buf)
		srv.Write([]byte("cmd=initack\ncmd=set size=2\ncmd=set debug=0\ncmd=set debug=0\n"))
	}()
	_, err := Open(client, Options{Version: 1, Port: true, ID: 0, Timeout: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "no rank or no size") {
		t.Errorf("Open: %v, want an error saying the server set no rank", err)
	}
}

func TestParsePortEnv(t *testing.T) {
	base := map[string]string{EnvPort: "node7:4567", EnvID: "2"}
	with := func(kv ...string) map[string]string { return envWith(base, kv...) }
	addr, opts, err := parsePortEnv(mapEnv(with()))
	if err != nil || addr != "node7:4567" || !opts.Port || opts.ID != 2 || opts.Version != 1 {
		t.Errorf("%q, %+v, %v", addr, opts, err)
	}
	if addr, _, err := parsePortEnv(mapEnv(with(EnvPort, "[::1]:4567"))); err != nil || addr != "[::1]:4567" {
		t.Errorf("an IPv6 address: %q, %v", addr, err)
	}
	if _, opts, err := parsePortEnv(mapEnv(with(EnvVersion, "2"))); err != nil || opts.Version != 2 {
		t.Errorf("MARTINI_PMI=2: %+v, %v", opts, err)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{with(EnvPort, "node7"), `PMI_PORT="node7": want host:port`},
		{with(EnvPort, ":4567"), `PMI_PORT=":4567": want host:port`},
		{with(EnvPort, "node7:x"), `PMI_PORT="node7:x": want host:port`},
		{with(EnvPort, "node7:70000"), `PMI_PORT="node7:70000": want host:port`},
		{with(EnvID, ""), "PMI_ID is not set (PMI_PORT is set)"},
		{with(EnvID, "-1"), "PMI_ID=-1: negative"},
		{with(EnvVersion, "3"), `MARTINI_PMI="3"`},
	} {
		if _, _, err := parsePortEnv(mapEnv(c.env)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.env, err, c.want)
		}
	}
}

func TestLookupHosts(t *testing.T) {
	hosts := "# comment\n127.0.0.1 localhost\n10.0.0.7 node7 node7.cluster # a node\n::1 ip6-localhost node7\nbad line\n"
	got := lookupHosts(strings.NewReader(hosts), "NODE7")
	want := []netip.Addr{netip.MustParseAddr("10.0.0.7"), netip.MustParseAddr("::1")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("node7: %v, want %v", got, want)
	}
	if got := lookupHosts(strings.NewReader(hosts), "a"); len(got) != 0 {
		t.Errorf("a: %v, want none", got)
	}
}

// FromEnv with PMI_PORT and no PMI_FD connects to the server's port, by a
// name of the hosts file or by this host's name, and takes the rank and
// size from the server.
func TestFromEnvPort(t *testing.T) {
	own, err := os.Hostname()
	if err != nil {
		t.Skip("no host name:", err)
	}
	dir := t.TempDir()
	defer func(old string) { hostsFile = old }(hostsFile)
	hostsFile = filepath.Join(dir, "hosts")
	if err := os.WriteFile(hostsFile, []byte("127.0.0.1 pmi-server\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"pmi-server", own, "127.0.0.1"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		s := newFake(t, 1, 2)
		accepted := make(chan error, 1)
		go func() {
			c, err := ln.Accept()
			if err == nil {
				err = serveConn(s, c, 1)
			}
			accepted <- err
		}()
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		job, err := FromEnv(mapEnv(map[string]string{EnvPort: host + ":" + port, EnvID: "1"}))
		if err != nil {
			t.Fatalf("PMI_PORT=%s:%s: %v", host, port, err)
		}
		if err := <-accepted; err != nil {
			t.Fatal(err)
		}
		if job.Rank != 1 || job.Size != 2 || job.Version != 1 {
			t.Errorf("PMI_PORT=%s:%s: job %+v, want rank 1 of 2 on pmi-1", host, port, job)
		}
		if err := job.Store.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := FromEnv(mapEnv(map[string]string{EnvPort: "no-such-host.invalid:1", EnvID: "0"})); err == nil ||
		!strings.Contains(err.Error(), `host "no-such-host.invalid": not an IP address, not in `+hostsFile) {
		t.Errorf("an unknown host: %v", err)
	}
}

// serveConn has s serve the accepted connection c as that of rank, s's
// connections before it left unused.
func serveConn(s *fakeServer, c net.Conn, rank int) error {
	f, err := c.(*net.TCPConn).File()
	c.Close()
	if err != nil {
		return err
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return err
	}
	srvs := make([]*os.File, rank+1)
	for r := range rank {
		_, srvs[r] = socketPair(s.t)
	}
	srvs[rank] = os.NewFile(uintptr(fd), "server")
	s.attach(srvs)
	return nil
}

func TestLaunched(t *testing.T) {
	for _, c := range []struct {
		env      map[string]string
		launched bool
		err      string
	}{
		{map[string]string{}, false, ""},
		{map[string]string{EnvFD: "5"}, true, ""},
		{map[string]string{EnvPort: "h:1", EnvID: "0"}, true, ""},
		{map[string]string{"PMIX_RANK": "0"}, false, "PMIX_RANK=0: started by a PMIx launcher"},
		{map[string]string{"PMIX_NAMESPACE": "prterun-x-1@1"}, false, "PMIX_NAMESPACE=prterun-x-1@1: started by a PMIx launcher"},
		{map[string]string{EnvRank: "1"}, false, "PMI_RANK=1: started by a PMI launcher, but neither PMI_FD nor PMI_PORT"},
		{map[string]string{EnvID: "1"}, false, "PMI_ID=1: started by a PMI launcher, but neither PMI_FD nor PMI_PORT"},
	} {
		launched, err := Launched(mapEnv(c.env))
		if launched != c.launched || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v: %v, %v; want %v, an error containing %q", c.env, launched, err, c.launched, c.err)
		}
	}
}
