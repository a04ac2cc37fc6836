package tcp

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc"
)

// peerEnv makes the test binary the echo process of
// BenchmarkPingPongProcesses instead of running tests: process 1 of a job
// of two, given process 0's address and bootstrap region, the message
// size and the engine's eager mode, rendezvous, eager limit and queue
// size.
const peerEnv = "LLC_TCP_BENCH_PEER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(peerEnv); spec != "" {
		if err := benchPeer(spec); err != nil {
			fmt.Fprintln(os.Stderr, "benchmark peer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// quitTag ends the echo process's loop.
const quitTag = 1

// benchPeer is the echo process: it prints its address and bootstrap
// region, then sends back every message until one of quitTag.
func benchPeer(spec string) error {
	var (
		addr0             string
		boot0             llc.RegionID
		size              int
		eager, rndv       uint8
		limit, queueSpace int
	)
	if _, err := fmt.Sscan(spec, &addr0, &boot0, &size, &eager, &rndv, &limit, &queueSpace); err != nil {
		return fmt.Errorf("%s=%q: %w", peerEnv, spec, err)
	}
	tr, err := Listen(1, 2, Options{})
	if err != nil {
		return err
	}
	defer tr.Close()
	boot1, err := llc.AllocBoot(tr, 1, 2)
	if err != nil {
		return err
	}
	fmt.Println(tr.Addr(), boot1)
	if err := tr.SetPeers([]string{addr0, tr.Addr()}); err != nil {
		return err
	}
	cfg := config(tr, 1, []llc.RegionID{boot0, boot1}, llc.EagerMode(eager))
	cfg.Rendezvous, cfg.EagerLimit, cfg.QueueSize = llc.RndvMode(rndv), limit, queueSpace
	ep, err := endpoint(tr, cfg)
	if err != nil {
		return err
	}
	buf := make([]byte, size)
	for {
		st, err := ep.RecvWait(0, llc.AnyTag, 0, buf)
		if err != nil || st.Tag == quitTag {
			return err
		}
		if err := ep.SendWait(0, st.Tag, 0, buf[:st.Len]); err != nil {
			return err
		}
	}
}

// benchPingPongProcesses is benchPingPong with the echo process a process
// of its own, as MPI ranks are.
func benchPingPongProcesses(b *testing.B, size int, eager llc.EagerMode, mod func(*llc.Config)) {
	tr, err := Listen(0, 2, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	boot0, err := llc.AllocBoot(tr, 0, 2)
	if err != nil {
		b.Fatal(err)
	}
	cfg := config(tr, 0, []llc.RegionID{boot0, 0}, eager)
	if mod != nil {
		mod(&cfg)
	}
	exited, addr1 := startEchoProcess(b, tr, boot0, size, &cfg)
	if err := tr.SetPeers([]string{tr.Addr(), addr1}); err != nil {
		b.Fatal(err)
	}
	ep, err := endpoint(tr, cfg)
	if err != nil {
		b.Fatal(err)
	}
	half := timePingPongs(b, ep, size)
	b.StopTimer()
	quitEchoProcess(b, ep, exited)
	b.ReportMetric(half*1e9, "ns/halfRTT")
	b.ReportMetric(float64(size)/half/1e6, "MB/s")
}

// startEchoProcess starts this test binary as the echo process, told the
// address of tr, boot0, size and cfg, reads its address and boot area
// into cfg.Boot[1], and returns a channel of its exit and its address.
func startEchoProcess(b *testing.B, tr *Transport, boot0 llc.RegionID, size int, cfg *llc.Config) (chan error, string) {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d %d %d %d", peerEnv, tr.Addr(), boot0, size,
		cfg.Eager, cfg.Rendezvous, cfg.EagerLimit, cfg.QueueSize))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	var addr1 string
	if _, err := fmt.Fscan(bufio.NewReader(out), &addr1, &cfg.Boot[1]); err != nil {
		cmd.Process.Kill()
		b.Fatalf("reading the peer's address: %v", err)
	}
	go func() { exited <- cmd.Wait() }()
	return exited, addr1
}

// timePingPongs warms up with one ping-pong of size bytes, then times b.N
// of them and returns the time of half a round trip in seconds.
func timePingPongs(b *testing.B, ep *llc.Endpoint, size int) float64 {
	b.Helper()
	data, back := pattern(1, size), make([]byte, size)
	if err := pingPong(ep, 1, 0, data); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := ep.SendWait(1, 0, 0, data); err != nil {
			b.Fatal(err)
		}
		if _, err := ep.RecvWait(1, 0, 0, back); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start).Seconds() / float64(2*b.N)
}

// quitEchoProcess tells the echo process to quit, and progresses until it
// has left.
func quitEchoProcess(b *testing.B, ep *llc.Endpoint, exited chan error) {
	b.Helper()
	if err := ep.SendWait(1, quitTag, 0, nil); err != nil {
		b.Fatal(err)
	}
	for done := false; !done; { // progress until the peer has left
		select {
		case err := <-exited:
			if err != nil {
				b.Fatalf("the peer process: %v", err)
			}
			done = true
		default:
			ep.Progress()
		}
	}
}

// The same with the echo process a process of its own, as MPI ranks are
// (the comparison with Open MPI's TCP transport):
//
//	go test -run XXX -bench Processes -count 5 ./llc/tcp
func BenchmarkPingPongProcesses(b *testing.B) {
	for _, size := range []int{8, 1 << 10, 64 << 10, 4 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchPingPongProcesses(b, size, llc.EagerQueue, nil) })
	}
}
