package mpirun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rhinet-go/martini/internal/netif"
	"github.com/rhinet-go/martini/llc/launch"
	"golang.org/x/sys/unix"
)

// agentGrace is how long the head waits, beyond termGrace, for the agents
// it told to stop to report their ranks and exit, before it kills their
// launch commands.
const agentGrace = 2 * time.Second

// defaultAgentTimeout is how long the head waits, by default, for the
// agent of a host to answer once its launch command has started: long
// enough for ssh to connect, and for a password prompt to be answered.
const defaultAgentTimeout = 30 * time.Second

// hostsJob is the head's side of a job across hosts: mpirun starts an
// agent on each host with the launch command (-launch), which reports
// back through its standard output (see wire.go), and serves the data
// store over TCP to the ranks the agents start.
type hostsJob struct {
	j      *job
	key    []byte
	pgid   uint64
	agents []*hostAgent
	ln     *storeListener // set by configure, closed by close
	setup  chan struct{}  // closed when configure has returned
}

// hostAgent is the head's end of the agent of one host.
type hostAgent struct {
	place  placement
	launch string // its launch command, for messages
	proc   *process
	stdin  *os.File // the write end of its standard input
	in     *wireWriter
	hello  chan agentHello // its hello, once
	done   chan struct{}   // closed once it has been reaped
	said   bool            // it said hello (set by its reader; read by waitAgent once the reader has returned)
	// reported[i] is set when the end of its rank place.first+i has been
	// reported (under job.mu).
	reported []bool
}

// startHosts starts the agents of a job across hosts, and the goroutine
// that configures them once they have said hello. Failures to start an
// agent fail the job. The caller closes the hostsJob once the job is over.
func (j *job) startHosts() (*hostsJob, error) {
	key, err := launch.NewJobKey()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("the path of mpirun, for its agents: %w", err)
	}
	h := &hostsJob{j: j, key: key, pgid: launch.RandomPGID(), setup: make(chan struct{})}
	j.hosts = h
	for _, pl := range j.opts.hosts {
		for i := range pl.count {
			j.ranks = append(j.ranks, &rank{id: pl.first + i, host: pl.host})
		}
	}
	if j.opts.verbose {
		j.out.logf("job %s: %d ranks of %s on %d hosts", launch.FormatPGID(h.pgid), j.opts.np, j.path, len(j.opts.hosts))
	}
	for _, pl := range j.opts.hosts {
		argv := launchCommand(j.opts.launch, pl.host, self)
		if isLocalHost(pl.host) {
			argv = []string{self, agentCommand} // this host's agent needs no ssh
		}
		a, err := h.startAgent(pl, argv)
		if err != nil {
			j.fail(fmt.Sprintf("host %s: cannot start its agent (%s): %v", pl.host, strings.Join(argv, " "), err), exitFailure, causeLauncher)
			break
		}
		h.agents = append(h.agents, a)
	}
	go h.configure()
	return h, nil
}

// startAgent starts the agent of the host of pl with the command argv.
func (h *hostsJob) startAgent(pl placement, argv []string) (*hostAgent, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = stdinR
	// SIGTERM rather than SIGKILL when mpirun dies: the agent then ends
	// its ranks (as it does when its standard input ends).
	p, err := newProc("the agent of host "+pl.host, cmd, syscall.SIGTERM)
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, err
	}
	a := &hostAgent{place: pl, launch: strings.Join(argv, " "), proc: p, stdin: stdinW, in: newWireWriter(stdinW),
		hello: make(chan agentHello, 1), done: make(chan struct{}), reported: make([]bool, pl.count)}
	h.j.mu.Lock()
	err = p.start()
	if err == nil {
		h.j.procs.add(p)
	}
	h.j.mu.Unlock()
	stdinR.Close()
	if err != nil {
		stdinW.Close()
		return nil, err
	}
	if h.j.opts.verbose {
		h.j.out.logf("host %s: agent pid %d: %s", pl.host, p.pid, strings.Join(argv, " "))
	}
	p.read(func(r io.Reader) { h.readAgent(a, r) }, func(r io.Reader) {
		splitLines(r, func(line []byte) { h.j.out.logf("host %s: %s", pl.host, line) })
	})
	h.j.wg.Add(1)
	go h.waitAgent(a)
	return a, nil
}

// configure waits for every agent's hello, chooses the address of the
// data store, listens there and sends every agent its configuration. It
// gives up when the job fails meanwhile (see awaitHellos).
func (h *hostsJob) configure() {
	defer close(h.setup)
	if len(h.agents) < len(h.j.opts.hosts) {
		return // an agent did not start: the job has failed
	}
	hellos, ok := h.awaitHellos()
	if !ok {
		return
	}
	ip, err := h.storeIP(hellos)
	if err != nil {
		h.j.fail(err.Error(), exitFailure, causeLauncher)
		return
	}
	var logf func(string, ...any)
	if h.j.opts.verbose {
		logf = h.j.out.logf
	}
	ln, err := listenStore(ip, h.key, h.j.srv, logf)
	if err != nil {
		h.j.fail(err.Error(), exitFailure, causeLauncher)
		return
	}
	h.ln = ln
	if h.j.opts.verbose {
		h.j.out.logf("data store at %s", ln.addr)
	}
	for _, a := range h.agents {
		// An agent that cannot take it has ended: waitAgent reports it.
		a.in.sendJSON(msgConfig, noRank, h.config(a.place, ln.addr))
	}
	r := h.j.opts.stdinRank
	for _, a := range h.agents {
		if h.j.stdin != nil && r >= a.place.first && r < a.place.first+a.place.count {
			go sendStdin(h.j.stdin, a.in, uint32(r))
		}
	}
}

// sendStdin sends src to the agent of the rank of -stdin in msgStdin
// frames, and an empty one when src ends, until the agent is gone.
func sendStdin(src io.Reader, w *wireWriter, rank uint32) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && w.send(msgStdin, rank, buf[:n]) != nil {
			return
		}
		if err != nil {
			w.send(msgStdin, rank, nil)
			return
		}
	}
}

// awaitHellos waits for the hello of every agent, and returns them. It
// gives up when an agent ends before its hello (waitAgent reports why),
// when the job fails, or when -agent-timeout passes: then it fails the
// job, naming the hosts whose agents did not answer.
func (h *hostsJob) awaitHellos() ([]agentHello, bool) {
	var timeout <-chan time.Time
	if d := h.j.opts.agentTimeout; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	hellos := make([]agentHello, len(h.agents))
	for i, a := range h.agents {
		select {
		case hellos[i] = <-a.hello:
		case <-a.done:
			return nil, false
		case <-h.j.failed:
			return nil, false
		case <-timeout:
			var silent []*hostAgent
			for k := i; k < len(h.agents); k++ {
				select {
				case hellos[k] = <-h.agents[k].hello:
				default:
					silent = append(silent, h.agents[k])
				}
			}
			if len(silent) == 0 {
				return hellos, true
			}
			h.failSilent(silent)
			return nil, false
		}
	}
	return hellos, true
}

// failSilent fails the job for agents, which have not said hello within
// -agent-timeout.
func (h *hostsJob) failSilent(agents []*hostAgent) {
	a := agents[0]
	msg := fmt.Sprintf("host %s: its agent did not answer within %v of the start of its launch command (%s): "+
		"the command did not start mpirun's agent, or is waiting for something (a password, a host key to accept); -agent-timeout sets the bound",
		a.place.host, h.j.opts.agentTimeout, a.launch)
	var others []string
	for _, o := range agents[1:] {
		others = append(others, o.place.host)
	}
	switch len(others) {
	case 0:
	case 1:
		msg += "; nor did the agent of host " + others[0]
	default:
		msg += "; nor did the agents of hosts " + strings.Join(others, ", ")
	}
	h.j.fail(msg, exitFailure, causeLauncher)
}

// storeIP returns the address on which to serve the data store: the
// head's address chosen by -if, or else one that reaches the hosts.
func (h *hostsJob) storeIP(hellos []agentHello) (netip.Addr, error) {
	if h.j.opts.ifSpec != "" {
		return h.j.opts.ifAddr, nil
	}
	self, err := netif.Identity()
	if err != nil {
		return netip.Addr{}, err
	}
	own, err := netif.Addrs()
	if err != nil {
		return netip.Addr{}, err
	}
	names := make([]string, len(h.agents))
	for i, a := range h.agents {
		names[i] = a.place.host
	}
	return headAddr(names, hellos, self, own, netif.RouteSource)
}

// config is what the agent of the host of pl is told.
func (h *hostsJob) config(pl placement, store netip.AddrPort) agentConfig {
	o := h.j.opts
	stdinRank := o.stdinRank
	if h.j.stdin == nil {
		stdinRank = -1
	}
	return agentConfig{
		Host: pl.host, First: pl.first, Count: pl.count, Size: o.np,
		PGID: h.pgid, Key: launch.FormatJobKey(h.key), StoreAddr: store.String(),
		If: o.ifSpec, Profile: o.profile, NoNIC: !o.opensNIC(), Program: h.j.path, Args: o.args,
		Env: append(remoteSettings(o.settings), o.exports...), Dir: o.wdir, StdinRank: stdinRank, Verbose: o.verbose,
	}
}

// readAgent reads the output of agent a from r, agentMagic and then
// frames, until it ends.
func (h *hostsJob) readAgent(a *hostAgent, r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	err := readAgentMagic(br)
	for err == nil {
		var f wireFrame
		if f, err = readWireFrame(br); err == nil {
			err = h.handle(a, f)
		}
	}
	if err == io.EOF {
		return
	}
	h.j.fail(fmt.Sprintf("host %s: %v", a.place.host, a.explain(err)), exitFailure, causeLauncher)
	io.Copy(io.Discard, br) // until the agent is stopped
}

// explain returns err, an error reading the output of agent a, or what
// it means when it is output that is not the agent's.
func (a *hostAgent) explain(err error) error {
	var fo *foreignOutput
	switch {
	case !errors.As(err, &fo):
		return err
	case fo.text():
		line := bytes.TrimRight(fo.data, "\r\n")
		cut := ""
		if len(fo.data) == maxForeignLine && fo.data[len(fo.data)-1] != '\n' {
			cut = "..."
		}
		return fmt.Errorf("the launch command '%s' wrote %q%s before the agent's protocol: something other than the agent wrote to its standard output "+
			"(a login banner or a shell start-up file such as ~/.bashrc printing text is the usual cause)", a.launch, line, cut)
	default:
		return fmt.Errorf("the launch command '%s' started something that does not speak this mpirun's agent protocol (its output began %q): "+
			"run the same mpirun on every host", a.launch, fo.data)
	}
}

// handle acts on frame f from agent a.
func (h *hostsJob) handle(a *hostAgent, f wireFrame) error {
	if f.kind == msgHello {
		return a.takeHello(f.data)
	}
	if f.kind == msgFail && f.rank == noRank {
		h.j.fail(fmt.Sprintf("host %s: %s", a.place.host, f.data), exitFailure, causeLauncher)
		return nil
	}
	if f.rank < uint32(a.place.first) || f.rank >= uint32(a.place.first+a.place.count) {
		return fmt.Errorf("agent protocol: a frame %q about rank %d, not one of this host's", f.kind, f.rank)
	}
	r := h.j.ranks[f.rank]
	switch f.kind {
	case msgStarted:
		return h.started(r, f.data)
	case msgStdout:
		h.j.out.rankLine(streamStdout, r.id, h.j.out.prefix(r.id), f.data)
	case msgStderr:
		r.inspectStderr(bytes.TrimSuffix(f.data, []byte("\n")))
		h.j.out.rankLine(streamStderr, r.id, h.j.out.prefix(r.id), f.data)
	case msgExit:
		return h.ended(a, r, f.data)
	case msgFail:
		h.j.fail(fmt.Sprintf("rank %d: cannot start %s on host %s: %s", r.id, h.j.path, a.place.host, f.data), exitFailure, causeLauncher)
	default:
		return fmt.Errorf("agent protocol: unknown frame %q", f.kind)
	}
	return nil
}

// takeHello takes the hello of agent a.
func (a *hostAgent) takeHello(data []byte) error {
	var hello agentHello
	if err := json.Unmarshal(data, &hello); err != nil {
		return fmt.Errorf("agent protocol: hello: %w", err)
	}
	switch {
	case a.said:
		return fmt.Errorf("agent protocol: a second hello")
	case hello.Version != agentProtocol:
		return fmt.Errorf("its mpirun speaks version %d of the agent protocol, this one %d: run the same mpirun on every host", hello.Version, agentProtocol)
	}
	a.said = true
	a.hello <- hello
	return nil
}

// started records the pid of rank r.
func (h *hostsJob) started(r *rank, data []byte) error {
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		return fmt.Errorf("agent protocol: rank %d started with pid %q", r.id, data)
	}
	h.j.mu.Lock()
	r.pid = pid
	h.j.mu.Unlock()
	if h.j.opts.verbose {
		h.j.out.logf("rank %d: pid %d on %s", r.id, pid, r.host)
	}
	return nil
}

// ended judges how rank r of agent a ended.
func (h *hostsJob) ended(a *hostAgent, r *rank, data []byte) error {
	var e rankExit
	if err := json.Unmarshal(data, &e); err != nil {
		return fmt.Errorf("agent protocol: rank %d ended: %w", r.id, err)
	}
	h.j.mu.Lock()
	seen := a.reported[r.id-a.place.first]
	a.reported[r.id-a.place.first] = true
	h.j.mu.Unlock()
	if seen {
		return fmt.Errorf("agent protocol: rank %d ended twice", r.id)
	}
	h.j.judge(r, syscall.WaitStatus(e.Status), h.j.rankState(r.id))
	return nil
}

// waitAgent waits for agent a to end and reports it if it failed: if it
// ended with a status other than 0, or without reporting how each of its
// ranks ended.
func (h *hostsJob) waitAgent(a *hostAgent) {
	defer h.j.wg.Done()
	ws := a.proc.wait(&h.j.procs)
	a.stdin.Close()
	close(a.done)
	h.j.mu.Lock()
	var missing []string
	for i, ok := range a.reported {
		if !ok {
			missing = append(missing, strconv.Itoa(a.place.first+i))
		}
	}
	h.j.mu.Unlock()
	host := a.place.host
	switch {
	case !a.said:
		h.j.fail(fmt.Sprintf("host %s: its agent ended (%s) before it started (see its messages above)", host, describeStatus(ws)), exitFailure, causeLauncher)
	case len(missing) > 0:
		h.j.fail(fmt.Sprintf("host %s: its agent ended (%s) without reporting how rank %s ended", host, describeStatus(ws), strings.Join(missing, ", ")), exitFailure, causeLauncher)
	case ws != 0:
		h.j.fail(fmt.Sprintf("host %s: its agent ended with %s", host, describeStatus(ws)), exitFailure, causeLauncher)
	}
	if h.j.opts.verbose {
		h.j.out.logf("host %s: agent ended: %s", host, describeStatus(ws))
	}
}

// stop tells every agent to end its ranks, and kills the launch commands
// of those that have not ended after termGrace and agentGrace. all is
// closed once every agent has been reaped.
func (h *hostsJob) stop(all <-chan struct{}) {
	for _, a := range h.agents {
		go a.in.send(msgStop, noRank, nil) // a blocked agent must not hold the others up
	}
	select {
	case <-all:
		return
	case <-time.After(termGrace + agentGrace):
	}
	h.j.procs.signal(unix.SIGKILL)
}

// close stops serving the data store, once the agents are configured or
// the job has failed.
func (h *hostsJob) close() {
	<-h.setup
	if h.ln != nil {
		h.ln.Close()
	}
}

// remoteSettings returns the settings the ranks on other hosts get: those
// of the command line and of mpirun's environment, as environment entries.
// (The rest of mpirun's environment stays on this host.)
func remoteSettings(s launch.Settings) []string {
	all, err := launch.ParseSettings(envGetter(settingsEnv(s)))
	if err != nil { // checked by parseFlags
		return s.Env()
	}
	return all.Env()
}
