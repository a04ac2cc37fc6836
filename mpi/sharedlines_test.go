package mpi_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

// Small messages between two processes go through the pair's shared line
// when it is free, and through the ring otherwise, sharing the ring's
// order (package llc, eager.go): messages of every small size, one at a
// time and in bursts, between every pair, must arrive whole and in order.

func init() { scenarios["sharedlines"] = scenarioSharedLines }

// TestSharedLines runs the scenario on three processes (each line lies in
// the lower-numbered process's memory: both layouts), with the lines and
// without.
func TestSharedLines(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{nil, {"-no-shared-lines"}} {
		t.Run(fmt.Sprint(flags), func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, 3, "sharedlines", flags...)
		})
	}
}

// sharedLinesRounds is how many ping-pongs and bursts each pair runs.
const sharedLinesRounds = 300

func scenarioSharedLines(w *mpi.Comm) error {
	me, n := w.Rank(), w.Size()
	for peer := range n {
		if peer == me {
			continue
		}
		if err := sharedLinesPair(w, me, peer); err != nil {
			return fmt.Errorf("sharedlines: with rank %d: %w", peer, err)
		}
	}
	st, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	off := os.Getenv(launch.EnvNoSharedLines) == "1"
	switch sent := st.Protocol.LineSent; {
	case st.Network != "martini":
	case off && sent != 0:
		return fmt.Errorf("sharedlines: %d line records with the lines off", sent)
	case !off && sent < sharedLinesRounds:
		return fmt.Errorf("sharedlines: %d line records in %d ping-pongs with each peer", sent, sharedLinesRounds)
	}
	return nil
}

// sharedLinesPair runs the rounds with peer, the lower-numbered rank
// leading: a ping-pong of a message of 0 to 16 bytes, then a burst of
// such messages, sent before the other side receives.
func sharedLinesPair(w *mpi.Comm, me, peer int) error {
	lead := me < peer
	msg := func(from, round, k int) []byte {
		b := make([]byte, (round+k)%17)
		for i := range b {
			b[i] = byte(from*31 + round*7 + k*3 + i)
		}
		return b
	}
	check := func(got []byte, st mpi.Status, from, round, k int) error {
		want := msg(from, round, k)
		if st.Count != len(want) || string(got[:st.Count]) != string(want) {
			return fmt.Errorf("round %d, message %d from rank %d: %d bytes %x, want %x", round, k, from, st.Count, got[:st.Count], want)
		}
		return nil
	}
	buf := make([]byte, 16)
	for round := range sharedLinesRounds {
		for turn := range 2 {
			if (turn == 0) == lead {
				if err := mpi.Send(w, msg(me, round, 0), peer, round); err != nil {
					return err
				}
				continue
			}
			st, err := mpi.Recv(w, buf, peer, round)
			if err != nil {
				return err
			}
			if err := check(buf, st, peer, round, 0); err != nil {
				return err
			}
		}
		if round%10 != 9 {
			continue
		}
		const burst = 12
		reqs := make([]*mpi.Request, burst)
		for k := range burst {
			r, err := mpi.Isend(w, msg(me, round, k+1), peer, 1<<20+round)
			if err != nil {
				return err
			}
			reqs[k] = r
		}
		for k := range burst {
			st, err := mpi.Recv(w, buf, peer, 1<<20+round)
			if err != nil {
				return err
			}
			if err := check(buf, st, peer, round, k+1); err != nil {
				return err
			}
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return err
		}
	}
	return nil
}
