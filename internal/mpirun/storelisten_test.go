package mpirun

import (
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
	"golang.org/x/sys/unix"
)

func TestStoreListener(t *testing.T) {
	key, err := launch.NewJobKey()
	if err != nil {
		t.Fatal(err)
	}
	srv := datastore.NewServer(2)
	defer srv.Close()
	ln, err := listenStore(netip.MustParseAddr("127.0.0.1"), key, srv, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.addr.String()
	if ln.addr.Port() == 0 || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("listening on %s", addr)
	}

	// A wrong key is refused, and takes no rank.
	other, _ := launch.NewJobKey()
	if _, err := launch.DialStore(addr, other, 0); !errors.Is(err, datastore.ErrRefused) || !strings.Contains(err.Error(), "wrong job key") {
		t.Errorf("a wrong key: %v", err)
	}
	var clients []*datastore.Client
	for r := range 2 {
		f, err := launch.DialStore(addr, key, r)
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		c := datastore.NewClient(f)
		defer c.Close()
		clients = append(clients, c)
	}
	// Each rank connects once.
	if _, err := launch.DialStore(addr, key, 1); !errors.Is(err, datastore.ErrRefused) || !strings.Contains(err.Error(), "rank 1 is already connected") {
		t.Errorf("rank 1 again: %v", err)
	}
	if _, err := launch.DialStore(addr, key, 2); !errors.Is(err, datastore.ErrRefused) || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("rank 2 of 2: %v", err)
	}
	// The ranks that were accepted are one job.
	if err := clients[1].Put("k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, err := clients[0].Get("k"); err != nil || v != "v" {
		t.Errorf("Get = %q, %v", v, err)
	}
}

// Close ends the connections still in their handshake rather than wait
// for them.
func TestStoreListenerCloseEndsHandshakes(t *testing.T) {
	srv := datastore.NewServer(1)
	defer srv.Close()
	ln, err := listenStore(netip.MustParseAddr("127.0.0.1"), []byte("k"), srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A client that connects and never answers the challenge.
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	silent := os.NewFile(uintptr(fd), "silent")
	defer silent.Close()
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: int(ln.addr.Port()), Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	challenge := make([]byte, 16)
	if _, err := silent.Read(challenge); err != nil { // the handshake has begun
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		ln.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(handshakeTimeout / 2):
		t.Fatal("Close waited for a handshake")
	}
	if _, err := launch.DialStore(ln.addr.String(), []byte("k"), 0); err == nil {
		t.Error("a closed listener accepted a rank")
	}
}
