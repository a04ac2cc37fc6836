package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/rhinet-go/martini/mpi"
)

// Performance targets live here, not in timed tests. Run with
//
//	go test -run XXX -bench PingPong -count 5 ./mpi | benchstat -
//
// Each benchmark starts a job of two ranks through mpirun; rank 0 times
// b.N round trips of a message and reports the half round trip
// (ns/halfRTT, the one-way latency) and the bandwidth it implies.

const (
	envBenchSize  = "MPI_BENCH_SIZE"
	envBenchIters = "MPI_BENCH_ITERS"
)

var halfRTT = regexp.MustCompile(`halfRTT_ns=([0-9.]+)`)

func benchPingPong(b *testing.B, size int, flags ...string) {
	args := append([]string{"-np", "2", "-timeout", jobTimeout.String()}, flags...)
	args = append(args, self)
	r := mpirun(b, []string{envScenario + "=bench-pingpong",
		envBenchSize + "=" + strconv.Itoa(size), envBenchIters + "=" + strconv.Itoa(b.N)}, args...)
	m := halfRTT.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		b.Fatalf("ping-pong job failed:\n%v", r)
	}
	ns, _ := strconv.ParseFloat(m[1], 64)
	b.ReportMetric(ns, "ns/halfRTT")
	if size > 0 {
		b.ReportMetric(float64(size)/ns*1e3, "MB/s")
	}
}

// BenchmarkPingPong8B: target ≤ 300 ns/halfRTT (Open MPI 4.1.4 does
// 160-200 ns on this machine kind).
func BenchmarkPingPong8B(b *testing.B) { benchPingPong(b, 8) }

// BenchmarkPingPong1KiB is the eager path with a payload of several cache
// lines.
func BenchmarkPingPong1KiB(b *testing.B) { benchPingPong(b, 1024) }

// BenchmarkPingPong4MiB: target ≥ 8000 MB/s (Open MPI: about 11,000).
func BenchmarkPingPong4MiB(b *testing.B) { benchPingPong(b, 4<<20) }

// BenchmarkPingPong4MiBPull is the single-copy pull rendezvous alone.
func BenchmarkPingPong4MiBPull(b *testing.B) { benchPingPong(b, 4<<20, "-rndv", "pull") }

// scenarioBenchPingPong times MPI_BENCH_ITERS round trips between ranks 0
// and 1 after a warm-up, and rank 0 prints the half round trip.
func scenarioBenchPingPong(w *mpi.Comm) error {
	size, iters, err := benchSettings()
	if err != nil {
		return err
	}
	buf := make([]byte, size)
	peer := 1 - w.Rank()
	round := func(n int) error {
		for i := 0; i < n; i++ {
			if w.Rank() == 0 {
				if err := mpi.Send(w, buf, peer, 0); err != nil {
					return err
				}
				if _, err := mpi.Recv(w, buf, peer, 0); err != nil {
					return err
				}
			} else {
				if _, err := mpi.Recv(w, buf, peer, 0); err != nil {
					return err
				}
				if err := mpi.Send(w, buf, peer, 0); err != nil {
					return err
				}
			}
		}
		return nil
	}
	secs, err := timeRounds(w, iters, round)
	if err == nil && w.Rank() == 0 {
		fmt.Printf("halfRTT_ns=%.1f\n", secs/float64(2*iters)*1e9)
	}
	return err
}

// The MPI layer's own work on a message, without a second process: one
// rank sends to itself (Isend, Recv, Wait), or probes for a message that
// is not there (Iprobe), and prints the time of a call. Run alone, the
// scenario is what callgrind counts (docs/performance.md):
//
//	GOGC=off MPI_TEST_SINGLETON=1 MPI_TEST_SCENARIO=bench-self MPI_BENCH_SIZE=8 MPI_BENCH_ITERS=100000 mpi.test

// BenchmarkSelfIsend8B: Isend, Recv and Wait of 8 bytes to itself.
func BenchmarkSelfIsend8B(b *testing.B) { benchSelf(b, "bench-self", 8) }

// BenchmarkSelfIrecv8B: Irecv, Isend and both Waits of 8 bytes to
// itself, the Requests given back.
func BenchmarkSelfIrecv8B(b *testing.B) { benchSelf(b, "bench-irecv", 8) }

// BenchmarkSelfSendrecv8B: a Sendrecv of 8 bytes to itself.
func BenchmarkSelfSendrecv8B(b *testing.B) { benchSelf(b, "bench-sendrecv", 8) }

// BenchmarkSelfExchange8B: IMB's Exchange to itself, two Isends of 8
// bytes, their two Recvs, and both Waits, the Requests given back.
func BenchmarkSelfExchange8B(b *testing.B) { benchSelf(b, "bench-exchange", 8) }

// BenchmarkIprobeEmpty: an Iprobe that finds nothing.
func BenchmarkIprobeEmpty(b *testing.B) { benchSelf(b, "bench-iprobe", 0) }

var opNs = regexp.MustCompile(`op_ns=([0-9.]+)`)

func benchSelf(b *testing.B, scenario string, size int) {
	r := mpirun(b, []string{envScenario + "=" + scenario, envBenchSize + "=" + strconv.Itoa(size),
		envBenchIters + "=" + strconv.Itoa(b.N)}, "-np", "1", "-timeout", jobTimeout.String(), self)
	m := opNs.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		b.Fatalf("%s job failed:\n%v", scenario, r)
	}
	ns, _ := strconv.ParseFloat(m[1], 64)
	b.ReportMetric(ns, "ns/call")
}

// scenarioBenchSelf times MPI_BENCH_ITERS rounds of Isend, Recv and Wait
// of MPI_BENCH_SIZE bytes from each rank to itself.
func scenarioBenchSelf(w *mpi.Comm) error {
	return timeSelfRounds(w, func(out, in []byte, me int) error {
		r, err := mpi.Isend(w, out, me, 0)
		if err != nil {
			return err
		}
		if _, err := mpi.Recv(w, in, me, 0); err != nil {
			return err
		}
		_, err = r.Wait()
		return err
	})
}

// scenarioBenchIrecv times MPI_BENCH_ITERS rounds of the pattern that
// programs use most: a receive posted first (Irecv), then its send
// (Isend), both waited for and their Requests given back (Release), one
// rank to itself.
func scenarioBenchIrecv(w *mpi.Comm) error {
	return timeSelfRounds(w, func(out, in []byte, me int) error {
		rr, err := mpi.Irecv(w, in, me, 0)
		if err != nil {
			return err
		}
		sr, err := mpi.Isend(w, out, me, 0)
		if err != nil {
			return err
		}
		for _, r := range [2]*mpi.Request{rr, sr} {
			if _, err := r.Wait(); err != nil {
				return err
			}
			if err := r.Release(); err != nil {
				return err
			}
		}
		return nil
	})
}

// scenarioBenchSendrecv times MPI_BENCH_ITERS Sendrecvs of
// MPI_BENCH_SIZE bytes from each rank to itself.
func scenarioBenchSendrecv(w *mpi.Comm) error {
	return timeSelfRounds(w, func(out, in []byte, me int) error {
		_, err := mpi.Sendrecv(w, out, me, 0, in, me, 0)
		return err
	})
}

// scenarioBenchExchange times MPI_BENCH_ITERS rounds of IMB's Exchange
// (the halo exchange of stencil codes), one rank to itself: two Isends of
// MPI_BENCH_SIZE bytes, as to the left and to the right neighbour, their
// two Recvs, then both Waits, the Requests given back.
func scenarioBenchExchange(w *mpi.Comm) error {
	return timeSelfRounds(w, func(out, in []byte, me int) error {
		var rs [2]*mpi.Request
		for i := range rs {
			r, err := mpi.Isend(w, out, me, 0)
			if err != nil {
				return err
			}
			rs[i] = r
		}
		for range rs {
			if _, err := mpi.Recv(w, in, me, 0); err != nil {
				return err
			}
		}
		for _, r := range rs {
			if _, err := r.Wait(); err != nil {
				return err
			}
			if err := r.Release(); err != nil {
				return err
			}
		}
		return nil
	})
}

// timeSelfRounds times MPI_BENCH_ITERS rounds of round, whose buffers hold
// MPI_BENCH_SIZE bytes and which each rank runs to itself (me), and rank 0
// prints the time of a round.
func timeSelfRounds(w *mpi.Comm, round func(out, in []byte, me int) error) error {
	size, iters, err := benchSettings()
	if err != nil {
		return err
	}
	out, in := make([]byte, size), make([]byte, size)
	me := w.Rank()
	secs, err := timeRounds(w, iters, func(n int) error {
		for i := 0; i < n; i++ {
			if err := round(out, in, me); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && me == 0 {
		fmt.Printf("op_ns=%.1f\n", secs/float64(iters)*1e9)
	}
	return err
}

// scenarioBenchIprobe times MPI_BENCH_ITERS Iprobes for a message that no
// process sends.
func scenarioBenchIprobe(w *mpi.Comm) error {
	_, iters, err := benchSettings()
	if err != nil {
		return err
	}
	secs, err := timeRounds(w, iters, func(n int) error {
		for i := 0; i < n; i++ {
			found, _, err := w.Iprobe(mpi.AnySource, 1)
			if err != nil {
				return err
			}
			if found {
				return errors.New("Iprobe found a message that nobody sent")
			}
		}
		return nil
	})
	if err == nil && w.Rank() == 0 {
		fmt.Printf("op_ns=%.1f\n", secs/float64(iters)*1e9)
	}
	return err
}

// benchSettings reads the message size and the iteration count of a
// benchmark job.
func benchSettings() (size, iters int, err error) {
	size, err = strconv.Atoi(os.Getenv(envBenchSize))
	if err != nil || size < 0 {
		return 0, 0, fmt.Errorf("%s: %v", envBenchSize, err)
	}
	iters, err = strconv.Atoi(os.Getenv(envBenchIters))
	if err != nil || iters < 1 {
		return 0, 0, fmt.Errorf("%s=%q: want a positive count", envBenchIters, os.Getenv(envBenchIters))
	}
	return size, iters, nil
}

// timeRounds runs a warm-up of round, synchronises, and returns how long
// round(iters) takes.
func timeRounds(w *mpi.Comm, iters int, round func(n int) error) (float64, error) {
	if err := round(min(iters, 1000)); err != nil {
		return 0, err
	}
	if err := mpi.Barrier(w); err != nil {
		return 0, err
	}
	start := mpi.Wtime()
	err := round(iters)
	return mpi.Wtime() - start, err
}

// scenarioAllocs checks that the eager path does not allocate: rank 0
// measures its Send+Recv round trips with testing.AllocsPerRun while rank
// 1 echoes.
func scenarioAllocs(w *mpi.Comm) error {
	const runs = 2000
	buf := make([]byte, 8)
	fbuf := make([]float64, 16)
	if w.Rank() == 1 {
		for i := 0; i < 2*(runs+1); i++ {
			st, err := mpi.Recv(w, fbuf, 0, mpi.AnyTag)
			if err != nil {
				return err
			}
			if err := mpi.Send(w, fbuf[:st.Count], 0, st.Tag); err != nil {
				return err
			}
		}
		return nil
	}
	var failure error
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"8-byte Send+Recv", func() error {
			if err := mpi.Send(w, buf, 1, 1); err != nil {
				return err
			}
			_, err := mpi.Recv(w, buf, 1, 1)
			return err
		}},
		{"128-byte float64 Send+Recv", func() error {
			if err := mpi.Send(w, fbuf, 1, 2); err != nil {
				return err
			}
			_, err := mpi.Recv(w, fbuf, 1, 2)
			return err
		}},
	} {
		allocs := testing.AllocsPerRun(runs, func() {
			if err := c.f(); err != nil && failure == nil {
				failure = err
			}
		})
		if failure != nil {
			return failure
		}
		if allocs != 0 {
			return fmt.Errorf("%s allocates %.2f times per round trip, want 0", c.name, allocs)
		}
	}
	return nil
}
