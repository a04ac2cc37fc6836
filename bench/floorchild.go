package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// floorChildGrace is how long the child may take to end once told to.
const floorChildGrace = 5 * time.Second

// floorChild is the running child of MeasureFloor, seen from the
// measuring process.
type floorChild struct {
	ctx     context.Context // the caller's
	cmd     *exec.Cmd
	cancel  context.CancelFunc // kills the child
	timeout time.Duration
	timer   *time.Timer // kills it at the timeout
	late    atomic.Bool // set when the timer fired
	abort   atomic.Bool // set once the child has ended
	exited  chan struct{}
	err     error // how it ended, once exited is closed
	output  *limitedBuffer
}

// startFloorChild starts command with "-cpu cpu" appended and the shared
// line as its descriptor 3; the child is sent SIGKILL when the calling
// thread ends, and killed when ctx ends or after timeout.
func startFloorChild(ctx context.Context, command []string, cpu int, line *sharedLine, timeout time.Duration) (*floorChild, error) {
	kill, cancel := context.WithCancel(ctx)
	args := append(slices.Clip(command[1:]), "-cpu", strconv.Itoa(cpu))
	c := &floorChild{ctx: ctx, cmd: exec.CommandContext(kill, command[0], args...), cancel: cancel,
		timeout: timeout, exited: make(chan struct{}), output: &limitedBuffer{max: 4 << 10}}
	c.cmd.ExtraFiles = []*os.File{line.file}
	c.cmd.Stdout, c.cmd.Stderr = c.output, c.output
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("bench: floor: start the child: %w", err)
	}
	c.timer = time.AfterFunc(timeout, func() { c.late.Store(true); cancel() })
	go func() {
		c.err = c.cmd.Wait()
		c.abort.Store(true)
		close(c.exited)
	}()
	return c, nil
}

// wait waits for the child, which has been told to stop, killing it when
// it does not end within floorChildGrace; it reports a child that failed.
func (c *floorChild) wait() error {
	select {
	case <-c.exited:
	case <-time.After(floorChildGrace):
		c.cancel()
		<-c.exited
	}
	c.timer.Stop()
	c.cancel()
	if c.err != nil {
		return fmt.Errorf("bench: floor: the child: %w", c.why())
	}
	return nil
}

// why says why the child ended before the measurement did, once it has.
func (c *floorChild) why() error {
	switch {
	case c.late.Load():
		return fmt.Errorf("not done within %v", c.timeout)
	case c.ctx.Err() != nil:
		return c.ctx.Err()
	case c.err == nil:
		return errors.New("the child ended before the measurement did")
	}
	if out := strings.TrimSpace(c.output.String()); out != "" {
		return fmt.Errorf("the child ended: %w: %s", c.err, out)
	}
	return fmt.Errorf("the child ended: %w", c.err)
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

// Write keeps what fits of p and reports all of it written.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String returns what was kept.
func (b *limitedBuffer) String() string { return b.buf.String() }

// FloorChild is the child process of MeasureFloor: a program whose
// command MeasureFloor was given calls it with the arguments MeasureFloor
// appended to that command ("-cpu N"). It pins itself to CPU N, maps the
// shared line from its descriptor 3 and answers the measuring process's
// ping-pong until told to stop. A bad argument is an error naming it;
// stderr receives the flag package's usage messages.
func FloorChild(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("floor child", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cpu := fs.Int("cpu", -1, "the CPU to run on")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("bench: floor child: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: floor child: unexpected argument %q", fs.Arg(0))
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return fmt.Errorf("bench: floor child: the CPUs allowed: %w", err)
	}
	if *cpu < 0 || *cpu >= len(allowed)*64 || !allowed.IsSet(*cpu) {
		return fmt.Errorf("bench: floor child: -cpu %d: not a CPU this process may run on", *cpu)
	}
	f := os.NewFile(3, "floor line")
	if f == nil {
		return errors.New("bench: floor child: no descriptor 3")
	}
	line, err := mapSharedLine(f)
	if err != nil {
		return err
	}
	defer line.close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := pinThread(*cpu); err != nil {
		return err
	}
	pong(line.counter())
	return nil
}
