package mpirun

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rhinet-go/martini/internal/netif"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/martini"
)

// agentCommand is the hidden subcommand that makes mpirun the agent of a
// host in a job across hosts: "mpirun agent", started by the head with
// the launch command. The agent protocol (wire.go) carries the rest on
// its standard input and output.
const agentCommand = "agent"

// agent runs the ranks of one host for the head: like mpirun on one host
// it creates the host's segment and starts its ranks, each leading a
// process group of its own, and kills what a rank leaves behind; it
// sends their output, line by line, and how each ended to the head, which
// judges. It stops its ranks when the head says so, when its standard
// input ends, or when it is signalled.
type agent struct {
	out    *wireWriter // to the head
	stderr io.Writer   // the agent's own messages, which the head forwards
	cfg    agentConfig
	seg    *martini.Job
	env    []string // the ranks' environment, but for their ranks
	procs  procSet
	wg     sync.WaitGroup // one per started rank, done once reported
	// input is the standard input of the rank of -stdin, if it is one of
	// this host's (set by listen before it passes on the config).
	input *rankInput

	stopOnce sync.Once
	stop     chan struct{} // closed when the ranks are to be stopped
}

// runAgent is mpirun agent, talking to the head through stdin and
// stdout, its own messages on stderr, and stopping its ranks when a
// signal arrives on sigs. It returns the agent's exit status.
func runAgent(stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	// A write to a head that has gone fails with EPIPE, rather than
	// killing the agent before it has stopped its ranks.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	a := &agent{out: newWireWriter(stdout), stderr: stderr, stop: make(chan struct{})}
	a.procs.logf = a.logf
	if err := a.hello(); err != nil {
		a.logf("%v", err)
		return exitFailure
	}
	configs := make(chan agentConfig, 1)
	go a.listen(bufio.NewReader(stdin), configs)
	go func() {
		select {
		case <-sigs:
			a.halt()
		case <-a.stop:
		}
	}()
	select {
	case a.cfg = <-configs:
	case <-a.stop:
		return exitFailure
	}
	if err := a.setup(); err != nil {
		a.fatal(err)
		return exitFailure
	}
	if a.seg != nil {
		defer a.seg.Close()
	}
	a.run()
	return 0
}

// hello begins the agent's output with agentMagic and tells the head the
// agent's protocol and its host's network.
func (a *agent) hello() error {
	network, err := netif.Identity()
	if err != nil {
		return err
	}
	addrs, err := netif.Addrs()
	if err != nil {
		return err
	}
	h := agentHello{Version: agentProtocol, Network: network}
	for _, ad := range addrs {
		h.Addrs = append(h.Addrs, ad.Prefix.String())
	}
	if err := a.out.sendMagic(); err != nil {
		return err
	}
	return a.out.sendJSON(msgHello, noRank, h)
}

// listen reads the head's frames: the configuration, sent to configs, then
// a stop. A stop, the end of the stream or an error stops the ranks.
func (a *agent) listen(in *bufio.Reader, configs chan<- agentConfig) {
	defer a.halt()
	defer func() {
		if a.input != nil {
			a.input.put(nil) // the rank's input ends with the head's
		}
	}()
	for {
		f, err := readWireFrame(in)
		if err != nil {
			if err != io.EOF {
				a.logf("%v", err)
			}
			return
		}
		switch f.kind {
		case msgStop:
			return
		case msgConfig:
			var c agentConfig
			if err := json.Unmarshal(f.data, &c); err != nil {
				a.logf("agent protocol: config: %v", err)
				return
			}
			if c.StdinRank >= c.First && c.StdinRank < c.First+c.Count {
				a.input = newRankInput(c.StdinRank)
			}
			configs <- c // buffered; the head sends one
		case msgStdin:
			if a.input == nil || int(f.rank) != a.input.rank {
				a.logf("agent protocol: input for rank %d, which does not read it here", f.rank)
				return
			}
			a.input.put(f.data)
		default:
			a.logf("agent protocol: unknown frame %q", f.kind)
			return
		}
	}
}

// halt stops the ranks (see run).
func (a *agent) halt() { a.stopOnce.Do(func() { close(a.stop) }) }

func (a *agent) halted() bool {
	select {
	case <-a.stop:
		return true
	default:
		return false
	}
}

// setup creates the host's segment (unless the ranks open no NIC) and
// the environment of its ranks.
func (a *agent) setup() error {
	c := a.cfg
	store, err := netip.ParseAddrPort(c.StoreAddr)
	if err != nil {
		return fmt.Errorf("the data store's address %q: %w", c.StoreAddr, err)
	}
	own, err := netif.Addrs()
	if err != nil {
		return err
	}
	tcp, err := agentTCPAddr(c.If, store.Addr(), own)
	if err != nil {
		return err
	}
	if !c.NoNIC {
		if a.seg, err = martini.CreateJob(martini.JobConfig{Procs: c.Count, PGID: c.PGID, Profile: c.Profile}); err != nil {
			return err
		}
		if c.Verbose {
			a.logf("ranks %d-%d, segment of %d bytes, TCP address %s", c.First, c.First+c.Count-1, a.seg.Size(), tcp)
		}
	}
	a.env = append(append(os.Environ(), c.Env...),
		launch.EnvSize+"="+strconv.Itoa(c.Size),
		launch.EnvPGID+"="+launch.FormatPGID(c.PGID),
		launch.EnvStoreAddr+"="+c.StoreAddr,
		launch.EnvJobKey+"="+c.Key,
		launch.EnvLocalSize+"="+strconv.Itoa(c.Count),
		launch.EnvHost+"="+c.Host,
		launch.EnvTCPAddr+"="+tcp.String(),
	)
	if a.seg != nil {
		a.env = append(a.env, launch.EnvSegmentFD+"="+strconv.Itoa(launch.SegmentFD))
	}
	placement := launch.PlacementEnv(c.Count, envGetter(a.env)(launch.EnvBind))
	if cpus, _ := strings.CutPrefix(placement, launch.EnvCPUs+"="); cpus != "" && c.Verbose {
		a.logf("ranks %d-%d pin themselves to CPUs %s, in rank order", c.First, c.First+c.Count-1, cpus)
	}
	a.env = append(a.env, placement)
	return nil
}

// run starts the ranks and waits until they have ended, or stops them
// when told to.
func (a *agent) run() {
	for i := range a.cfg.Count {
		if a.halted() {
			break
		}
		if err := a.start(i); err != nil {
			msg := fmt.Sprintf("%v", err)
			if errors.Is(err, fs.ErrNotExist) {
				msg += " (the program must be at the same path on every host)"
			}
			a.tell(msgFail, uint32(a.cfg.First+i), []byte(msg))
			break // the head ends the job
		}
	}
	all := make(chan struct{})
	go func() {
		a.wg.Wait()
		close(all)
	}()
	select {
	case <-all:
		return
	case <-a.stop:
		a.procs.killAll(all)
	}
	select {
	case <-all:
	case <-time.After(reapTimeout):
		a.logf("some ranks could not be reaped after SIGKILL; giving up")
	}
}

// start starts the i-th rank of the host.
func (a *agent) start(i int) error {
	rank := a.cfg.First + i
	cmd := exec.Command(a.cfg.Program, a.cfg.Args...)
	cmd.Env = append(a.env[:len(a.env):len(a.env)],
		launch.EnvRank+"="+strconv.Itoa(rank),
		launch.EnvLocalRank+"="+strconv.Itoa(i),
	)
	cmd.Dir = a.cfg.Dir
	if a.seg != nil {
		cmd.ExtraFiles = []*os.File{a.seg.File()} // fd 3
	}
	// input is the write end of its standard input, if it reads mpirun's.
	var input *os.File
	if rank == a.cfg.StdinRank && a.input != nil {
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("stdin pipe: %w", err)
		}
		defer r.Close() // the rank has its own copy once started
		cmd.Stdin, input = r, w
	}
	p, err := newProc(fmt.Sprintf("rank %d", rank), cmd, syscall.SIGKILL)
	if err == nil {
		err = p.start()
	}
	if err != nil {
		if input != nil {
			input.Close()
		}
		return err
	}
	if input != nil {
		go a.input.feed(input)
	}
	a.procs.add(p)
	a.tell(msgStarted, uint32(rank), []byte(strconv.Itoa(p.pid)))
	p.read(a.lines(msgStdout, rank), a.lines(msgStderr, rank))
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ws := p.wait(&a.procs)
		data, _ := json.Marshal(rankExit{Status: int(ws)})
		a.tell(msgExit, uint32(rank), data)
	}()
	return nil
}

// lines returns a reader of a rank's output that sends it line by line
// in frames of kind.
func (a *agent) lines(kind byte, rank int) func(io.Reader) {
	return func(r io.Reader) {
		splitLines(r, func(line []byte) { a.tell(kind, uint32(rank), line) })
	}
}

// tell sends the head a frame; if the head is gone, the ranks stop.
func (a *agent) tell(kind byte, rank uint32, data []byte) {
	if a.out.send(kind, rank, data) != nil {
		a.halt()
	}
}

// fatal reports an error that ends the agent before it started ranks.
func (a *agent) fatal(err error) {
	if a.out.send(msgFail, noRank, []byte(err.Error())) != nil {
		a.logf("%v", err)
	}
}

// logf writes a message of the agent's own to stderr, which the head
// forwards with the name of the host.
func (a *agent) logf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "agent: "+format+"\n", args...)
}
