package launch

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"golang.org/x/sys/unix"
)

// storeListener serves a data store of size ranks over TCP on loopback,
// as mpirun does for a job across hosts, with key. It returns the address.
func storeListener(t *testing.T, key []byte, size int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := datastore.NewServer(size)
	t.Cleanup(func() {
		ln.Close()
		srv.Close()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				c.SetDeadline(time.Now().Add(5 * time.Second))
				r, err := datastore.Check(c, key, size, nil)
				if err != nil {
					c.Close()
					return
				}
				c.SetDeadline(time.Time{})
				srv.Serve(r, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// remoteEnv is what mpirun's agent passes to rank 2 of 4, the first of two
// on host "b", with the data store at addr.
func remoteEnv(t *testing.T, addr string, key []byte) map[string]string {
	env, _ := launched(t, 2, 4)
	fd, _ := strconv.Atoi(env[EnvStoreFD])
	unix.Close(fd) // the rank dials instead
	delete(env, EnvStoreFD)
	env[EnvStoreAddr] = addr
	env[EnvJobKey] = FormatJobKey(key)
	env[EnvHost] = "b"
	env[EnvLocalRank] = "0"
	env[EnvLocalSize] = "2"
	env[EnvTCPAddr] = "10.1.2.3"
	return env
}

func TestFromEnvRemote(t *testing.T) {
	key, err := NewJobKey()
	if err != nil {
		t.Fatal(err)
	}
	env := remoteEnv(t, storeListener(t, key, 4), key)
	orig := fdIdentity(env)
	defer closeFDs(orig)
	j, err := fromEnv(mapEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Rank != 2 || j.Size != 4 || j.Host != "b" || j.LocalRank != 0 || j.LocalSize != 2 || j.TCPAddr != "10.1.2.3" {
		t.Errorf("job = %+v", j)
	}
	if err := j.Store.Put("k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, err := j.Store.Get("k"); err != nil || v != "v" {
		t.Errorf("Get = %q, %v", v, err)
	}
}

func TestFromEnvRemoteRefused(t *testing.T) {
	key, _ := NewJobKey()
	other, _ := NewJobKey()
	env := remoteEnv(t, storeListener(t, key, 4), other)
	orig := fdIdentity(env)
	defer closeFDs(orig)
	_, err := fromEnv(mapEnv(env))
	if !errors.Is(err, datastore.ErrRefused) || !strings.Contains(err.Error(), EnvStoreAddr) || !strings.Contains(err.Error(), "wrong job key") {
		t.Errorf("fromEnv with a wrong key: %v; want a refusal naming %s and the key", err, EnvStoreAddr)
	}
}

func TestDialStoreNobodyListens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := DialStore(addr, []byte("k"), 0); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("DialStore to a closed port: %v", err)
	}
	if _, err := DialStore("localhost:80", []byte("k"), 0); err == nil || !strings.Contains(err.Error(), "want ip:port") {
		t.Errorf("DialStore to a host name: %v", err)
	}
}

func TestPlacementVars(t *testing.T) {
	p, err := placementVars(mapEnv(nil), 3, 4)
	if err != nil || p != (placement{localRank: 3, local: 4, tcpAddr: LoopbackAddr}) {
		t.Errorf("one host: %+v, %v", p, err)
	}
	p, err = placementVars(mapEnv(map[string]string{EnvLocalRank: "1", EnvLocalSize: "3", EnvHost: "n1", EnvTCPAddr: "fd00::1"}), 3, 4)
	if err != nil || p != (placement{host: "n1", localRank: 1, local: 3, tcpAddr: "fd00::1"}) {
		t.Errorf("across hosts: %+v, %v", p, err)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvLocalRank: "1"}, EnvLocalSize},
		{map[string]string{EnvLocalSize: "2"}, EnvLocalRank},
		{map[string]string{EnvLocalRank: "2", EnvLocalSize: "2"}, EnvLocalRank + "=2"},
		{map[string]string{EnvLocalRank: "-1", EnvLocalSize: "2"}, EnvLocalRank + "=-1"},
		{map[string]string{EnvLocalRank: "0", EnvLocalSize: "5"}, EnvLocalSize + "=5"},
		{map[string]string{EnvLocalRank: "0", EnvLocalSize: "x"}, EnvLocalSize},
		{map[string]string{EnvTCPAddr: "host.example"}, EnvTCPAddr},
		{map[string]string{EnvTCPAddr: "10.0.0.1:80"}, EnvTCPAddr},
	} {
		if _, err := placementVars(mapEnv(c.env), 0, 4); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v does not name %s", c.env, err, c.want)
		}
	}
}

func TestRemoteEnvErrors(t *testing.T) {
	for name, change := range map[string]func(map[string]string){
		"key missing":  func(e map[string]string) { delete(e, EnvJobKey) },
		"key not hex":  func(e map[string]string) { e[EnvJobKey] = "zz" },
		"address junk": func(e map[string]string) { e[EnvStoreAddr] = "nowhere" },
	} {
		t.Run(name, func(t *testing.T) {
			key, _ := NewJobKey()
			env := remoteEnv(t, "127.0.0.1:1", key)
			orig := fdIdentity(env)
			defer closeFDs(orig)
			change(env)
			_, err := fromEnv(mapEnv(env))
			if err == nil || !strings.Contains(err.Error(), "MARTINI_") {
				t.Errorf("error %v names no variable", err)
			}
		})
	}
	if j, err := Singleton(); err != nil || j.Host != "" || j.LocalRank != 0 || j.LocalSize != 1 || j.TCPAddr != LoopbackAddr {
		t.Errorf("singleton placement: %+v, %v", j, err)
	}
	if _, err := ParseJobKey(strconv.Quote("")); err == nil {
		t.Error("ParseJobKey accepted junk")
	}
}
