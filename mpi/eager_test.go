package mpi_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

// TestEagerTransport runs jobs over the PM/RHiNET (pm) and PM/RHiNET-VP
// (vp) eager transports: every rank exchanges messages of every size with
// every rank, and checks that the transport asked for is the one in force.
func TestEagerTransport(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{launch.EagerPM, launch.EagerVP} {
		for _, np := range jobSizes(nps(false)) {
			t.Run(fmt.Sprintf("%s/eager/np=%d", mode, np), func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, np, "eager", "-eager", mode)
			})
		}
		// Under the Martini timing profile, the host work is charged.
		t.Run(fmt.Sprintf("%s/eager/martini", mode), func(t *testing.T) {
			t.Parallel()
			runScenarioJob(t, 2, "eager", "-eager", mode, "-profile", "martini")
		})
		if mode == launch.EagerPM {
			// PM/RHiNET's remote memory access on: a rendezvous above
			// 16 KB, its data pushed into the receiver's buffer.
			t.Run("pm/eager/rma", func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, 3, "eager", "-eager", mode, "-pm-rma", "-profile", "martini", "-clock", "virtual")
			})
		}
		for _, sc := range []string{"sizes", "order", "coll-move"} {
			t.Run(fmt.Sprintf("%s/%s", mode, sc), func(t *testing.T) {
				t.Parallel()
				runScenarioJob(t, 3, sc, "-eager", mode)
			})
		}
	}
}

// scenarioEager exchanges messages of every size with every rank, itself
// included, received from any source, and checks the counters of the
// eager transport named by MARTINI_EAGER.
func scenarioEager(w *mpi.Comm) error {
	E, err := eagerLimit()
	if err != nil {
		return err
	}
	// Around the payload of one queue record (vp sends larger eager
	// messages as several records), then the eager limit.
	rec := llc.MaxQueueRecord - llc.RecordMeta
	sizes := []int{0, 1, 100, rec, rec + 1, 2*rec + 1, E, E + 1, 100000}
	for k, size := range sizes {
		if err := eagerExchange(w, k, size); err != nil {
			return err
		}
	}
	return eagerCheckStats(w, E, len(sizes))
}

// eagerExchange sends a message of size bytes with tag k to every rank
// and receives one from every rank, from any source, checking each.
func eagerExchange(w *mpi.Comm, k, size int) error {
	n, me := w.Size(), w.Rank()
	var reqs []*mpi.Request
	for dst := range n {
		r, err := mpi.Isend(w, pattern[byte](size, me, dst, k), dst, k)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	seen := make([]bool, n)
	buf := make([]byte, size+1)
	for range n {
		st, err := mpi.Recv(w, buf, mpi.AnySource, k)
		if err != nil {
			return fmt.Errorf("%d bytes: %w", size, err)
		}
		src := st.Source
		if src < 0 || src >= n || seen[src] {
			return fmt.Errorf("%d bytes: a second message from rank %d", size, src)
		}
		seen[src] = true
		if err := checkStatus(fmt.Sprintf("%d bytes from %d", size, src), st, src, k, size, size); err != nil {
			return err
		}
		if d := diff(buf[:size], pattern[byte](size, src, me, k)); d != "" {
			return fmt.Errorf("%d bytes from %d: %s", size, src, d)
		}
	}
	_, err := mpi.Waitall(reqs)
	return err
}

// eagerCheckStats checks the eager transport that ReadStats names, its
// connections, and its counts of eager and rendezvous messages after
// nsizes rounds of eagerExchange with eager limit E.
func eagerCheckStats(w *mpi.Comm, E, nsizes int) error {
	n := w.Size()
	st, err := mpi.ReadStats()
	if err != nil {
		return err
	}
	p := st.Protocol
	switch mode := os.Getenv(launch.EnvEager); mode {
	case launch.EagerPM:
		if st.Eager != llc.EagerPM.String() {
			return fmt.Errorf("pm: the engine runs the %q eager transport", st.Eager)
		}
		// Every rank connected to every rank at start.
		if p.Connections != uint64(n) || p.RingsGranted != uint64(n) {
			return fmt.Errorf("pm: %d connections, %d rings granted, want %d each", p.Connections, p.RingsGranted, n)
		}
	case launch.EagerVP:
		if st.Eager != llc.EagerQueue.String() {
			return fmt.Errorf("vp: the engine runs the %q eager transport", st.Eager)
		}
		if p.Connections != 0 || p.RingsGranted != 0 {
			return fmt.Errorf("vp: %d connections, %d rings granted, want none", p.Connections, p.RingsGranted)
		}
		if E != llc.MaxQueueEagerLimit {
			return fmt.Errorf("vp: eager limit %d, want the largest the queue allows in several records, %d", E, llc.MaxQueueEagerLimit)
		}
	default:
		return fmt.Errorf("%s=%q: run with -eager pm or vp", launch.EnvEager, mode)
	}
	if os.Getenv(launch.EnvPMRMA) == "1" {
		// MPICH-SCore over PM's remote memory access: eager up to 16 KB,
		// a rendezvous above.
		if E != launch.PMRMALimit || p.EagerSent != uint64((nsizes-2)*n) || p.RndvSent != uint64(2*n) {
			return fmt.Errorf("pm with RMA: eager limit %d, counters %+v; want %d, %d eager messages, %d rendezvous", E, p, launch.PMRMALimit, (nsizes-2)*n, 2*n)
		}
		return nil
	}
	// Every message eager, above the eager limit in several records, as
	// MPICH-SCore without remote memory access sends them.
	if want := uint64(nsizes * n); p.EagerSent != want || p.RndvSent != 0 {
		return fmt.Errorf("counters %+v: want %d eager messages, no rendezvous", p, want)
	}
	return nil
}

func init() { scenarios["eager"] = scenarioEager }
