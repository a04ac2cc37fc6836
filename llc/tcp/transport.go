// Package tcp is the translator between the network-independent LLC
// layer and TCP sockets: the second network under the same protocol
// engine. Processes of a job connect lazily, one connection per pair (two
// while both dial at once, until they converge on one: converge.go), and
// a dial waits only for the peer's kernel, never for its process (see
// peer); remote writes, reads, compare-and-swaps and fetch-and-adds travel
// as frames (frame.go) that the target's Poll serves on its registered
// memory, and receive-queue records travel as frames of their own. The
// memory, the commands a process addresses to itself and the watching of
// rings and slots are network-independent (package softmem), as are the
// descriptors' reads and writes, the streams' buffers and queues and the
// sleeping (package fdio), so every eager transport and rendezvous
// variant of the engine runs unchanged and this package holds only the
// wire: connections, the handshake and frames.
//
// A connection that stalls, its peer's host acknowledging nothing (a link
// down, a host gone), counts as lost after Options.StallTimeout (20 s by
// default; mpirun's -tcp-timeout, MARTINI_TCP_TIMEOUT): the engine then
// fails with an error naming the peer and its address. Shorter outages
// are survived. The bound is the kernel's (TCP_USER_TIMEOUT, and
// keepalive probes on idle connections), so it costs nothing per frame;
// older kernels (before Linux 6.4) may also end a connection whose peer
// keeps its receive window shut (reads nothing) for that long.
package tcp

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/fdio"
	"github.com/rhinet-go/martini/llc/softmem"
)

// Options configures a Transport.
type Options struct {
	// Addr is the address to listen on, "ip:port"; "" means 127.0.0.1:0
	// (any free port of the loopback interface).
	Addr string
	// Key names the job: a connection whose handshake carries another key
	// is refused, so that a stray connection cannot join.
	Key uint64
	// SleepTimeout bounds one Sleep, as a safety net (default 500 ms).
	SleepTimeout time.Duration
	// CloseTimeout bounds how long Close keeps writing output that waits
	// for the peers (default 5 s).
	CloseTimeout time.Duration
	// StallTimeout bounds how long a connection may stall before it
	// counts as lost, failing the job with an error that names the peer:
	// how long what was sent may stay unacknowledged by the peer's host
	// (TCP_USER_TIMEOUT), how long an idle connection's keepalive probes
	// may go unanswered, and how long a dial may take (default
	// DefaultStallTimeout). Only the peer's kernel answers these, not
	// its process: a peer that computes for hours does not stall its
	// connections.
	StallTimeout time.Duration
	// SendBuffer is the send buffer each connection asks the kernel for
	// (SO_SNDBUF, which the kernel doubles and bounds by
	// net.core.wmem_max); 0 leaves it to the kernel's autotuning. The
	// buffer bounds the bytes a sender has in flight on a connection;
	// ListenJob takes it from the job's settings (mpirun -tcp-sndbuf,
	// MARTINI_TCP_SNDBUF), CacheSendBuffer's where they do not say.
	SendBuffer int
}

// DefaultStallTimeout is Options.StallTimeout's default: a link that
// flaps for a few seconds is survived, one that stays down fails the job
// well before a person would think it hung.
const DefaultStallTimeout = 20 * time.Second

// Transport implements llc.Transport and llc.StatsReporter over TCP.
// Execute, Poll, SetPeers, Stats and Close must not run concurrently (an
// llc.Endpoint serialises Execute and Poll); Arm, Sleep, Disarm and Wake
// are safe for concurrent use.
//
// A write or record completes once its data is in the kernel or in the
// send queue, and what waits in the queue leaves only while the process
// polls (or in Close): a process must keep polling until its peers have
// what it sent.
type Transport struct {
	// ev is the event delivered to the sink, refilled each time (see
	// llc.Sink and deliver).
	ev         llc.Event
	done       llc.Event // the event Execute returns, refilled
	self, size int
	opt        Options
	lfd        int
	addr       string
	addrs      []unix.Sockaddr
	peers      []peer
	incoming   []incoming
	polls      uint
	closed     bool

	mem  *softmem.Memory
	late []llc.Event // completions and failures for the next Poll
	// prev holds the bytes a combination found, for its answer;
	// orphans the tickets of lost connections' combinations, released
	// once served.
	prev    []byte
	orphans []ticket
	iov     [fdio.MaxIov]unix.Iovec
	stats   counters

	sleeper *fdio.Sleeper
	pollfds []unix.PollFd // what sleeper waits on but its own
	dirty   bool          // pollfds is out of date
}

// counters are the transport's statistics.
type counters struct {
	dialed, accepted, refused       uint64
	framesOut, framesIn             uint64
	bytesOut, bytesIn               uint64
	blocked, zeroCopy, served, lost uint64
	combined, stalls, lazy          uint64
}

// Listen returns the transport of process self of a job of size
// processes, listening on o.Addr.
func Listen(self, size int, o Options) (*Transport, error) {
	if size < 1 || self < 0 || self >= size {
		return nil, fmt.Errorf("tcp: process %d of a job of %d", self, size)
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.SleepTimeout <= 0 {
		o.SleepTimeout = 500 * time.Millisecond
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = 5 * time.Second
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	sa, err := parseAddr(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: listening: %w", err)
	}
	lfd, err := listen(sa, min(size+16, 4096))
	if err != nil {
		return nil, fmt.Errorf("tcp: listening on %s: %w", o.Addr, err)
	}
	bound, err := unix.Getsockname(lfd)
	if err != nil {
		unix.Close(lfd)
		return nil, fmt.Errorf("tcp: the address of the listener on %s: %w", o.Addr, err)
	}
	sleeper, err := fdio.NewSleeper(o.SleepTimeout)
	if err != nil {
		unix.Close(lfd)
		return nil, fmt.Errorf("tcp: %w", err)
	}
	t := &Transport{self: self, size: size, opt: o, lfd: lfd, sleeper: sleeper, addr: sockaddrString(bound),
		peers: make([]peer, size), mem: softmem.New(self), dirty: true}
	for i := range t.peers {
		t.peers[i] = peer{id: i, fd: -1, rfd: -1, oldFD: -1, hsOff: hdrSize}
	}
	t.syncPollset()
	return t, nil
}

// Addr returns the address the transport listens on, for the other
// processes of the job.
func (t *Transport) Addr() string { return t.addr }

// SetPeers gives the address of every process of the job (Addr of each,
// indexed by process), before the first command to another process.
func (t *Transport) SetPeers(addrs []string) error {
	if len(addrs) != t.size {
		return fmt.Errorf("tcp: %d peer addresses for a job of %d processes", len(addrs), t.size)
	}
	sas := make([]unix.Sockaddr, len(addrs))
	for i, a := range addrs {
		sa, err := parseAddr(a)
		if err != nil {
			return fmt.Errorf("tcp: process %d: %w", i, err)
		}
		sas[i] = sa
	}
	t.addrs = sas
	return nil
}

// Caps reports the transport's facts: records of up to MaxRecord bytes
// on a stream, no memory shared with peers, completions that come later,
// combinations its targets apply.
func (t *Transport) Caps() llc.Caps {
	return llc.Caps{Name: "tcp", MaxRecord: MaxRecord, Async: true, Combine: true}
}

// Execute issues cmd. Commands to this process and commands that need no
// peer complete at once; a write or record to another process completes
// once its data is written to the socket or copied into the send queue (a
// large write with a Token, once written: its Data is sent from where it
// is), and a read, compare-and-swap, fetch-and-add or combination once
// its answer arrives, from Poll. A small Lazy write waits in the queue
// for the next frame to its process or the next Poll (send.go).
func (t *Transport) Execute(c *llc.Command) *llc.Event {
	if t.closed {
		return llc.Report(&t.done, llc.Event{Kind: llc.EvError, Token: c.Token, Err: errors.New("tcp: the transport is closed")})
	}
	switch c.Kind {
	case llc.CmdWrite, llc.CmdRead, llc.CmdCAS, llc.CmdFetchAdd, llc.CmdEnqueue, llc.CmdCombine:
		h, head, data, err := frameOf(c)
		if err != nil {
			return llc.Report(&t.done, done(c, 0, err))
		}
		if c.Peer != t.self {
			ev := t.send(c, &h, head, data)
			t.syncPollset()
			return llc.Report(&t.done, ev)
		}
	}
	// Records arrive as frames and are delivered from the receive
	// buffer: the receive queue needs no memory, only a name.
	ev := t.mem.Execute(c)
	if ev != nil && ev.Err != nil {
		ev.Err = fmt.Errorf("tcp: %w", ev.Err)
	}
	return ev
}

// done returns the completion event of c, done now with value val or
// failed with err.
func done(c *llc.Command, val uint64, err error) llc.Event {
	ev := softmem.Done(c, val, err)
	if ev.Err != nil {
		ev.Err = fmt.Errorf("tcp: %w", ev.Err)
	}
	return ev
}

// Poll accepts connections and reads their hellos, reads every connection
// (applying writes, serving requests, delivering records and answers),
// writes what waits, and delivers what arrived in watched memory and the
// completions and failures since the last Poll. It never blocks.
func (t *Transport) Poll(sink llc.Sink) bool {
	if t.closed {
		return false
	}
	progressed := t.pollListener()
	for i := range t.peers {
		p := &t.peers[i]
		switch p.state {
		case stUp:
			var got bool
			var err error
			if p.fd >= 0 {
				got, err = t.receive(p, false, sink)
			}
			if err == nil && p.rfd >= 0 {
				var more bool
				more, err = t.receive(p, true, sink)
				got = got || more
			}
			if err == nil && p.state == stUp {
				err = t.converge(p)
				if err == nil {
					err = t.finishSwitch(p)
				}
				if err == nil {
					err = t.flush(p)
				}
				if err != nil {
					err = t.connErr(p, err)
				}
			}
			if err != nil {
				t.lose(p, err)
				got = true
			}
			// A combination waiting for its lock is work not done: the
			// caller must not sleep on sockets that will not say when
			// the lock is free.
			progressed = got || progressed || p.in.lock != nil || p.rin.lock != nil
		}
	}
	progressed = t.mem.Poll(sink) || progressed
	if len(t.orphans) > 0 {
		progressed = t.releaseOrphans() || progressed
	}
	if len(t.late) > 0 {
		for i := range t.late {
			sink.Step(&t.late[i])
		}
		clear(t.late)
		t.late = t.late[:0]
		progressed = true
	}
	t.syncPollset()
	return progressed
}

// pollListener accepts connections and reads their hellos (accept) on
// one Poll in 64, or on every Poll while an accepted connection's hello
// has not all arrived, and reports whether that progressed. Connections
// arrive once per pair: the listener is looked at now and then (a
// sleeper wakes on it), not at the cost of a system call per poll.
func (t *Transport) pollListener() bool {
	if t.polls++; t.polls%64 == 0 || len(t.incoming) > 0 {
		return t.accept()
	}
	return false
}

// Stats returns the transport's counters.
func (t *Transport) Stats() []llc.Stat {
	s := &t.stats
	return []llc.Stat{
		{Name: "connections dialed", Value: s.dialed},
		{Name: "connections accepted", Value: s.accepted},
		{Name: "connections refused", Value: s.refused},
		{Name: "connections lost", Value: s.lost},
		{Name: "frames sent", Value: s.framesOut},
		{Name: "frames received", Value: s.framesIn},
		{Name: "bytes sent", Value: s.bytesOut},
		{Name: "bytes received", Value: s.bytesIn},
		{Name: "writes blocked", Value: s.blocked},
		{Name: "zero-copy writes", Value: s.zeroCopy},
		{Name: "writes sent with the next frame", Value: s.lazy},
		{Name: "requests served", Value: s.served},
		{Name: "combinations served", Value: s.combined},
		{Name: "combinations stalled", Value: s.stalls},
		{Name: "sleeps", Value: t.sleeper.Sleeps()},
	}
}

// Close writes what waits for the peers (for at most
// Options.CloseTimeout, discarding what they send meanwhile), then closes
// every connection, the listener and the wakeup descriptor. The transport
// starts no goroutine, so none is left behind.
func (t *Transport) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	t.linger()
	for i := range t.peers {
		if p := &t.peers[i]; p.fd >= 0 {
			if p.state == stUp && p.out.Empty() {
				sayBye(p.fd, 0)
			}
			closeConn(p.fd)
			p.fd = -1
		}
		if p := &t.peers[i]; p.rfd >= 0 {
			sayBye(p.rfd, byeElsewhere) // nothing else was written on it
			closeConn(p.rfd)
			p.rfd = -1
		}
		if p := &t.peers[i]; p.oldFD >= 0 {
			closeConn(p.oldFD) // its fSwitch cut short: the peer takes the end for it
			p.oldFD = -1
		}
	}
	for _, c := range t.incoming {
		unix.Close(c.fd)
	}
	t.incoming = nil
	err := unix.Close(t.lfd)
	if e := t.sleeper.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("tcp: closing: %w", err)
	}
	return nil
}

// sayBye tells the peer on connection fd that this process closes its
// transport, so that the end of the stream is no failure there. Best
// effort: a socket that cannot take the header at once gets none, and
// the peer sees a lost connection.
func sayBye(fd int, a uint64) {
	var b [hdrSize]byte
	h := header{kind: fBye, a: a}
	h.put(b[:])
	fdio.Write(fd, b[:])
}

// closeConn closes connection fd after reading what is left on it, so
// that closing sends a FIN after the output, not a reset that could drop
// it.
func closeConn(fd int) {
	var drain [4096]byte
	unix.Shutdown(fd, unix.SHUT_WR)
	for n, _ := fdio.Read(fd, drain[:]); n > 0; n, _ = fdio.Read(fd, drain[:]) {
	}
	unix.Close(fd)
}

// linger writes the output that waits for connected peers, and the rest
// of a switch's fSwitch, until it is all written or Options.CloseTimeout
// passes.
func (t *Transport) linger() {
	deadline := time.Now().Add(t.opt.CloseTimeout)
	var junk []byte
	for {
		var fds []unix.PollFd
		for i := range t.peers {
			p := &t.peers[i]
			if p.state == stUp && p.fd >= 0 && t.flush(p) == nil && !p.out.Empty() {
				fds = append(fds, unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN | unix.POLLOUT})
			}
			if p.oldFD >= 0 && t.finishSwitch(p) == nil && p.oldFD >= 0 {
				fds = append(fds, unix.PollFd{Fd: int32(p.oldFD), Events: unix.POLLOUT})
			}
		}
		left := time.Until(deadline)
		if len(fds) == 0 || left <= 0 {
			return
		}
		unix.Poll(fds, int(left.Milliseconds())+1)
		for _, f := range fds {
			if f.Revents&unix.POLLIN != 0 {
				if junk == nil {
					junk = make([]byte, 64<<10)
				}
				fdio.Read(int(f.Fd), junk)
			}
		}
	}
}
