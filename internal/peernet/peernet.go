// Package peernet is a check, for the tests of jobs started by launchers,
// of which network carries the messages between each pair of processes:
// Run, called by every process of an MPI job, has rank 0 exchange
// messages with each other rank in turn, while the others wait, and
// count the bytes its TCP network sent meanwhile (mpi.ReadStats).
package peernet

import (
	"fmt"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

// rounds and size are the messages rank 0 sends each peer, and their size.
const (
	rounds = 8
	size   = 4096
)

// Bytes is what rank 0 sends each peer: over TCP, its TCP network sends
// at least as many bytes during the exchange; over another network, far
// fewer (none, or control records of other traffic).
const Bytes = rounds * size

// tcpBytes is the counter of bytes the TCP network sent: the network's
// own, or the TCP network's within a mux ("tcp.bytes sent").
func tcpBytes(st mpi.Stats) uint64 {
	if st.Network == "tcp" {
		return st.NetworkCounters["bytes sent"]
	}
	return st.NetworkCounters["tcp.bytes sent"]
}

// Run initializes MPI, runs the exchanges and finalizes. It returns what
// the process reports: "rank R of N: network NAME" and, on rank 0, one
// line "peer P: tcp bytes B" a peer, B the bytes the TCP network sent
// during the exchange with P.
func Run() (string, error) {
	if err := mpi.Init(); err != nil {
		return "", err
	}
	w := mpi.World()
	st, err := mpi.ReadStats()
	if err != nil {
		return "", err
	}
	var out strings.Builder
	fmt.Fprintf(&out, "rank %d of %d: network %s\n", w.Rank(), w.Size(), st.Network)
	buf := make([]byte, size)
	for p := 1; p < w.Size(); p++ {
		if w.Rank() == 0 {
			before, _ := mpi.ReadStats()
			if err := exchange(w, p, buf); err != nil {
				return "", err
			}
			after, _ := mpi.ReadStats()
			fmt.Fprintf(&out, "peer %d: tcp bytes %d\n", p, tcpBytes(after)-tcpBytes(before))
		} else if w.Rank() == p {
			if err := exchange(w, 0, buf); err != nil {
				return "", err
			}
		}
	}
	if err := w.Barrier(); err != nil {
		return "", err
	}
	return out.String(), mpi.Finalize()
}

// exchange sends rounds messages of buf to peer and receives as many
// back, in turn.
func exchange(w *mpi.Comm, peer int, buf []byte) error {
	for range rounds {
		if w.Rank() == 0 {
			if err := mpi.Send(w, buf, peer, 0); err != nil {
				return err
			}
			if _, err := mpi.Recv(w, buf, peer, 0); err != nil {
				return err
			}
			continue
		}
		if _, err := mpi.Recv(w, buf, peer, 0); err != nil {
			return err
		}
		if err := mpi.Send(w, buf, peer, 0); err != nil {
			return err
		}
	}
	return nil
}
