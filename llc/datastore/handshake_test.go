package datastore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// handshake runs Check and Prove on the two ends of a socket pair and
// returns what each side returned.
func handshake(t *testing.T, serverKey, rankKey []byte, rank, size int, claim func(int) error) (int, error, error) {
	t.Helper()
	sc, cc := socketPair(t)
	defer sc.Close()
	defer cc.Close()
	deadline := time.Now().Add(5 * time.Second)
	sc.SetDeadline(deadline)
	cc.SetDeadline(deadline)
	type checked struct {
		rank int
		err  error
	}
	done := make(chan checked, 1)
	go func() {
		r, err := Check(sc, serverKey, size, claim)
		if err != nil {
			sc.Close() // as the server does with a refused connection
		}
		done <- checked{r, err}
	}()
	perr := Prove(cc, rankKey, rank)
	c := <-done
	return c.rank, c.err, perr
}

func TestHandshakeAccepts(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	var claimed []int
	got, cerr, perr := handshake(t, key, key, 3, 4, func(r int) error {
		claimed = append(claimed, r)
		return nil
	})
	if cerr != nil || perr != nil {
		t.Fatalf("Check: %v; Prove: %v", cerr, perr)
	}
	if got != 3 || len(claimed) != 1 || claimed[0] != 3 {
		t.Errorf("Check returned rank %d, claimed %v; want 3 and [3]", got, claimed)
	}
}

func TestHandshakeRefuses(t *testing.T) {
	key := []byte("the job's key")
	for _, c := range []struct {
		name    string
		rankKey []byte
		rank    int
		claim   func(int) error
		why     string
	}{
		{"wrong key", []byte("another job's key"), 1, nil, "wrong job key"},
		{"empty key", nil, 1, nil, "wrong job key"},
		{"rank out of range", key, 4, nil, "rank 4 out of range for a job of 4 ranks"},
		{"rank taken", key, 2, func(r int) error { return fmt.Errorf("rank %d is already connected", r) }, "rank 2 is already connected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			claimCalled := false
			claim := c.claim
			if claim == nil {
				claim = func(int) error { claimCalled = true; return nil }
			}
			got, cerr, perr := handshake(t, key, c.rankKey, c.rank, 4, claim)
			if !errors.Is(perr, ErrRefused) || !strings.HasSuffix(perr.Error(), ": "+c.why) {
				t.Errorf("Prove: %v; want a refusal ending in %q", perr, c.why)
			}
			if cerr == nil || got != -1 || !strings.Contains(cerr.Error(), c.why) {
				t.Errorf("Check: rank %d, %v; want -1 and an error naming %q", got, cerr, c.why)
			}
			if claimCalled {
				t.Error("claim was called for a refused connection")
			}
		})
	}
}

func TestHandshakeNotAStore(t *testing.T) {
	sc, cc := socketPair(t)
	defer sc.Close()
	defer cc.Close()
	cc.SetDeadline(time.Now().Add(5 * time.Second))
	go sc.Write([]byte("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n" + strings.Repeat("x", 64)))
	if err := Prove(cc, []byte("k"), 0); err == nil || !strings.Contains(err.Error(), "does not speak") {
		t.Errorf("Prove against another server: %v", err)
	}
}
