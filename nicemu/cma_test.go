package nicemu

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// transferSizes are the lengths every PUSH/PULL path is exercised with.
var transferSizes = []int{1, 7, 8, 100, 4096, 1 << 20}

// TestCMAInProcess pushes to and pulls from process memory (a Go slice)
// registered by another NIC of the same OS process: the target PID differs,
// so the NIC takes the cross-memory-attach path to its own OS pid.
func TestCMAInProcess(t *testing.T) {
	seg := newSegment(t, testConfig(2))
	n0 := openNIC(t, seg, 0)
	n1 := openNIC(t, seg, 1)
	if !n0.CMA() {
		t.Skip("MARTINI_NO_CMA=1 in the environment")
	}
	region := make([]byte, 4<<20)
	sid := mustRegisterMemory(t, n1, region)
	// Past cmaChunk a copy takes several system calls.
	for _, size := range append(transferSizes, cmaChunk+1, 3*cmaChunk-5) {
		for _, off := range []uint64{0, 3} {
			t.Run(fmt.Sprintf("%d@%d", size, off), func(t *testing.T) {
				clear(region)
				mid := checkCMAPush(t, n0, sid, region, off, size)
				checkCMAPull(t, n0, sid, region, off, size, mid)
			})
		}
	}
	if !n0.CMA() {
		t.Errorf("NIC fell back to bounce buffers")
	}
}

// checkCMAPush pushes size bytes to off of region, process memory of
// PID 1, and checks the data lands there only and n0 counts one CMA
// copy; it returns n0's statistics after.
func checkCMAPush(t *testing.T, n0 *NIC, sid SID, region []byte, off uint64, size int) Stats {
	t.Helper()
	before, mid := pushChecked(t, n0, sid, region, off, pattern(size, uint64(size)+off))
	if d := mid.CMAOps - before.CMAOps; d != 1 {
		t.Errorf("Stats.CMAOps +%d, want +1", d)
	}
	if d := mid.CMABytes - before.CMABytes; d != uint64(size) {
		t.Errorf("Stats.CMABytes +%d, want +%d", d, size)
	}
	if mid.SegmentOps != before.SegmentOps || mid.BounceOps != before.BounceOps {
		t.Errorf("PUSH to process memory counted as segment or bounce transfer")
	}
	return mid
}

// checkCMAPull refills size bytes at off of region, pulls them back and
// checks the data and that n0 counts one CMA copy since mid.
func checkCMAPull(t *testing.T, n0 *NIC, sid SID, region []byte, off uint64, size int, mid Stats) {
	t.Helper()
	after := pullRefilled(t, n0, sid, region, off, size, 99, mid)
	if d := after.CMAOps - mid.CMAOps; d != 1 {
		t.Errorf("Stats.CMAOps +%d, want +1", d)
	}
	if after.SegmentOps != mid.SegmentOps || after.BounceOps != 0 {
		t.Errorf("PULL from process memory counted as segment or bounce transfer")
	}
}

// Child process protocol. The child opens slot NICEMU_CHILD_PID of the
// segment inherited as fd 3, registers a 64-byte control region in segment
// memory and a Go byte slice of NICEMU_CHILD_SIZE bytes filled with
// pattern(size, NICEMU_CHILD_SEED), and prints "READY <ctl SID> <buf SID>".
// The parent then writes commands into control word 0; the child answers
// with the status in word 2, then echoes the command in word 1. Between
// commands it serves bounce requests and sleeps on its doorbell.
const (
	childEnv = "NICEMU_TEST_CHILD"

	cmdVerify = 1 // check the buffer holds pattern(size, seed)
	cmdFill   = 2 // fill the buffer with pattern(size, seed)
	cmdExit   = 3 // report and exit
	cmdPing   = 4 // just acknowledge

	ctlCmd    = 0
	ctlAck    = 8
	ctlStatus = 16
)

func makeCmd(seq, kind, seed uint64) uint64 { return seq<<32 | kind<<24 | seed&0xffffff }

// childMain is the child process: it opens its NIC and serves the
// parent's commands until told to exit.
func childMain() int {
	n, ctl, buf, rc := openChildNIC()
	if rc != 0 {
		return rc
	}
	return serveChildCommands(n, ctl, buf)
}

// childFail reports a child's failure on its standard error and returns
// its exit status.
func childFail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "nicemu child: "+format+"\n", args...)
	return 2
}

// openChildNIC opens the child's NIC as the environment says, registers
// its control region and its patterned buffer and prints READY; rc is
// the exit status of a failure, 0 on success.
func openChildNIC() (n *NIC, ctl, buf []byte, rc int) {
	pid, err1 := strconv.Atoi(os.Getenv("NICEMU_CHILD_PID"))
	size, err2 := strconv.Atoi(os.Getenv("NICEMU_CHILD_SIZE"))
	seed, err3 := strconv.ParseUint(os.Getenv("NICEMU_CHILD_SEED"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, nil, nil, childFail("bad environment: %v %v %v", err1, err2, err3)
	}
	seg, err := AttachSegment(os.NewFile(3, "martini-segment"))
	if err != nil {
		return nil, nil, nil, childFail("%v", err)
	}
	n, err = Open(seg, pid)
	if err != nil {
		return nil, nil, nil, childFail("%v", err)
	}
	ctlSID, ctl, err := n.RegisterSegment(64)
	if err != nil {
		return nil, nil, nil, childFail("%v", err)
	}
	buf = make([]byte, size)
	fillPattern(buf, seed)
	bufSID, err := n.RegisterMemory(buf)
	if err != nil {
		return nil, nil, nil, childFail("%v", err)
	}
	fmt.Printf("READY %d %d\n", ctlSID, bufSID)
	return n, ctl, buf, 0
}

// serveChildCommands answers each new command in ctl, serving bounce
// requests and sleeping on the doorbell between them, until cmdExit or
// a minute without a command.
func serveChildCommands(n *NIC, ctl, buf []byte) int {
	cmdWord, ackWord, statusWord := wordAt(ctl, ctlCmd), wordAt(ctl, ctlAck), wordAt(ctl, ctlStatus)
	var last uint64
	sleeps := 0
	idle := time.Now()
	for {
		if cmd := atomic.LoadUint64(cmdWord); cmd != last {
			last = cmd
			idle = time.Now()
			status, exit := runChildCommand(n, buf, cmd, sleeps)
			if exit {
				atomic.StoreUint64(statusWord, 0)
				atomic.StoreUint64(ackWord, cmd)
				return 0
			}
			atomic.StoreUint64(statusWord, status)
			atomic.StoreUint64(ackWord, cmd)
			continue
		}
		if n.Service() {
			continue
		}
		if time.Since(idle) > time.Minute {
			return childFail("no command for a minute, giving up")
		}
		seen := n.ArmDoorbell()
		if atomic.LoadUint64(cmdWord) != last || n.Service() {
			n.DisarmDoorbell()
			continue
		}
		sleeps++
		n.WaitDoorbell(seen, time.Second)
	}
}

// runChildCommand carries out cmd on buf and returns its status, or, for
// cmdExit, prints the child's statistics and reports exit.
func runChildCommand(n *NIC, buf []byte, cmd uint64, sleeps int) (status uint64, exit bool) {
	size := len(buf)
	seed := cmd & 0xffffff
	switch kind := cmd >> 24 & 0xff; kind {
	case cmdVerify:
		if i := firstDiff(buf, pattern(size, seed)); i >= 0 {
			status = uint64(i) + 1
		}
	case cmdFill:
		fillPattern(buf, seed)
	case cmdPing:
	case cmdExit:
		st := n.Stats()
		fmt.Printf("STATS served=%d sleeps=%d\n", st.Served, sleeps)
		return 0, true
	default:
		status = 1 << 40
	}
	return status, false
}

// child is the parent's handle on a rank process started by startChild.
type child struct {
	t        *testing.T
	nic      *NIC // the parent's NIC
	pid      int
	size     int
	cmd      *exec.Cmd
	ctl, buf SID
	seq      uint64
	lines    chan string
	waited   chan struct{} // closed when the child has been reaped
	stderr   bytes.Buffer
	exited   bool
}

func startChild(t *testing.T, seg *Segment, nic *NIC, pid, size int, seed uint64) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{t: t, nic: nic, pid: pid, size: size, lines: make(chan string, 16), waited: make(chan struct{})}
	c.cmd = exec.Command(exe, "-test.run=^$")
	c.cmd.Env = append(os.Environ(),
		childEnv+"=1",
		"NICEMU_CHILD_PID="+strconv.Itoa(pid),
		"NICEMU_CHILD_SIZE="+strconv.Itoa(size),
		"NICEMU_CHILD_SEED="+strconv.FormatUint(seed, 10),
		// Under the race detector, do not linger a second at exit.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	c.cmd.ExtraFiles = []*os.File{seg.File()}
	c.cmd.Stderr = &c.stderr
	out, pw := io.Pipe()
	c.cmd.Stdout = pw
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.cmd.Wait()
		pw.Close()
		close(c.waited)
	}()
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		if !c.exited {
			c.cmd.Process.Kill()
			<-c.waited
			t.Logf("child stderr:\n%s", c.stderr.String())
		}
	})
	line := c.line("READY")
	if _, err := fmt.Sscanf(line, "READY %d %d", &c.ctl, &c.buf); err != nil {
		t.Fatalf("child said %q: %v", line, err)
	}
	return c
}

// line returns the next line of the child's output, which must start with
// prefix.
func (c *child) line(prefix string) string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok || !strings.HasPrefix(l, prefix) {
			c.t.Fatalf("child output %q (open %v), want %s; stderr:\n%s", l, ok, prefix, c.stderr.String())
		}
		return l
	case <-time.After(30 * time.Second):
		c.t.Fatalf("child silent for 30 s, want %s", prefix)
	}
	return ""
}

// command sends a command through the child's control word (a PUSH that
// rings the child's doorbell) and returns the child's status.
func (c *child) command(kind, seed uint64) uint64 {
	c.t.Helper()
	c.seq++
	cmd := makeCmd(c.seq, kind, seed)
	if err := c.nic.Push(c.pid, c.ctl, ctlCmd, u64(cmd), nil); err != nil {
		c.t.Fatalf("command push: %v", err)
	}
	var w [8]byte
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := c.nic.Pull(c.pid, c.ctl, ctlAck, w[:], nil); err != nil {
			c.t.Fatalf("ack pull: %v", err)
		}
		if u := binary.LittleEndian.Uint64(w[:]); u == cmd {
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("child did not acknowledge command %#x; stderr:\n%s", cmd, c.stderr.String())
		}
		time.Sleep(20 * time.Microsecond)
	}
	if err := c.nic.Pull(c.pid, c.ctl, ctlStatus, w[:], nil); err != nil {
		c.t.Fatalf("status pull: %v", err)
	}
	return binary.LittleEndian.Uint64(w[:])
}

// exchange moves the child's whole buffer three times: a PULL of its initial
// contents, a PUSH the child verifies, and a PULL of contents it refilled.
func (c *child) exchange(seed uint64) {
	c.t.Helper()
	got := make([]byte, c.size)
	var done uint64
	if err := c.nic.Pull(c.pid, c.buf, 0, got, &done); err != nil {
		c.t.Fatalf("PULL of the child's buffer: %v", err)
	}
	if done != 1 {
		c.t.Errorf("PULL done flag not set")
	}
	checkBytes(c.t, "PULL of the child's initial buffer", got, pattern(c.size, seed))

	var ack uint64
	if err := c.nic.Push(c.pid, c.buf, 0, pattern(c.size, seed+1), &ack); err != nil {
		c.t.Fatalf("PUSH into the child's buffer: %v", err)
	}
	if ack != 1 {
		c.t.Errorf("PUSH ack flag not set")
	}
	if st := c.command(cmdVerify, seed+1); st != 0 {
		c.t.Fatalf("child found the pushed buffer wrong from byte %d", st-1)
	}

	if st := c.command(cmdFill, seed+2); st != 0 {
		c.t.Fatalf("fill command: status %d", st)
	}
	if err := c.nic.Pull(c.pid, c.buf, 0, got, nil); err != nil {
		c.t.Fatalf("PULL of the refilled buffer: %v", err)
	}
	checkBytes(c.t, "PULL of the child's refilled buffer", got, pattern(c.size, seed+2))
}

// ping waits for the child to fall asleep on its doorbell, then measures
// how long a command takes to be acknowledged: the PUSH of the command must
// ring the child awake (it would otherwise sleep for a second).
func (c *child) ping() time.Duration {
	c.t.Helper()
	sleepers := &c.nic.seg.proc(c.pid).sleepers
	deadline := time.Now().Add(10 * time.Second)
	for atomic.LoadUint32(sleepers) == 0 {
		if time.Now().After(deadline) {
			c.t.Fatalf("child never slept on its doorbell")
		}
		time.Sleep(100 * time.Microsecond)
	}
	start := time.Now()
	if st := c.command(cmdPing, 0); st != 0 {
		c.t.Fatalf("ping: status %d", st)
	}
	return time.Since(start)
}

// exit tells the child to exit and returns its final STATS line.
func (c *child) exit() (served, sleeps int) {
	c.t.Helper()
	c.command(cmdExit, 0)
	l := c.line("STATS")
	if _, err := fmt.Sscanf(l, "STATS served=%d sleeps=%d", &served, &sleeps); err != nil {
		c.t.Fatalf("child said %q: %v", l, err)
	}
	select {
	case <-c.waited:
	case <-time.After(30 * time.Second):
		c.t.Fatalf("child did not exit")
	}
	c.exited = true
	if !c.cmd.ProcessState.Success() {
		c.t.Fatalf("child: %v; stderr:\n%s", c.cmd.ProcessState, c.stderr.String())
	}
	return served, sleeps
}

const childBufSize = 4 << 20

// TestChildProcessCMA moves 4 MiB into and out of another process's Go heap
// by cross-memory attach, twice: the second time a new process has taken
// over the same slot, so the NIC must address the new OS process.
func TestChildProcessCMA(t *testing.T) {
	cfg := testConfig(2)
	cfg.HeapSize = 1 << 20
	seg := newSegment(t, cfg)
	n := openNIC(t, seg, 0)
	if !n.CMA() {
		t.Skip("MARTINI_NO_CMA=1 in the environment")
	}
	for round := range 2 {
		seed := uint64(10 * (round + 1))
		c := startChild(t, seg, n, 1, childBufSize, seed)
		if got := atomic.LoadUint64(&seg.proc(1).ospid); got != uint64(c.cmd.Process.Pid) {
			t.Errorf("child's slot names OS process %d, want %d", got, c.cmd.Process.Pid)
		}
		if d := c.ping(); d > 500*time.Millisecond {
			t.Errorf("round %d: a sleeping child took %v to answer", round, d)
		}
		before := n.Stats()
		c.exchange(seed)
		after := n.Stats()
		if !n.CMA() {
			c.exit()
			t.Skip("the kernel denied cross-memory attach to the child (ptrace restrictions?); the data went through the bounce fallback")
		}
		if d := after.CMAOps - before.CMAOps; d != 3 {
			t.Errorf("round %d: Stats.CMAOps +%d, want +3", round, d)
		}
		if d := after.CMABytes - before.CMABytes; d != 3*childBufSize {
			t.Errorf("round %d: Stats.CMABytes +%d, want +%d", round, d, 3*childBufSize)
		}
		if after.BounceOps != 0 {
			t.Errorf("round %d: %d bounce transfers", round, after.BounceOps)
		}
		served, sleeps := c.exit()
		if served != 0 {
			t.Errorf("round %d: child served %d bounce requests", round, served)
		}
		t.Logf("round %d: child slept %d times; parent rang %d times in all", round, sleeps, after.Wakeups)
	}
}

// TestChildProcessBounce moves 4 MiB through the child's bounce buffer: the
// initiator's NIC is opened with MARTINI_NO_CMA=1, the child serves.
func TestChildProcessBounce(t *testing.T) {
	t.Setenv("MARTINI_NO_CMA", "1")
	cfg := testConfig(2)
	cfg.HeapSize = 1 << 20
	cfg.BounceSize = 64 << 10
	seg := newSegment(t, cfg)
	n := openNIC(t, seg, 0)
	if n.CMA() {
		t.Fatal("MARTINI_NO_CMA=1 but CMA() is true")
	}
	const seed = 77
	c := startChild(t, seg, n, 1, childBufSize, seed)
	if d := c.ping(); d > 500*time.Millisecond {
		t.Errorf("a sleeping child took %v to answer", d)
	}
	before := n.Stats()
	c.exchange(seed)
	after := n.Stats()
	chunks := uint64(childBufSize / cfg.BounceSize)
	if d := after.BounceOps - before.BounceOps; d != 3*chunks {
		t.Errorf("Stats.BounceOps +%d, want +%d", d, 3*chunks)
	}
	if d := after.BounceBytes - before.BounceBytes; d != 3*childBufSize {
		t.Errorf("Stats.BounceBytes +%d, want +%d", d, 3*childBufSize)
	}
	if after.CMAOps != 0 {
		t.Errorf("%d CMA transfers with MARTINI_NO_CMA=1", after.CMAOps)
	}
	served, sleeps := c.exit()
	if uint64(served) != 3*chunks {
		t.Errorf("child served %d bounce requests, want %d", served, 3*chunks)
	}
	t.Logf("child slept %d times, parent rang %d times", sleeps, after.Wakeups)
}
