package mpirun

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sync"
)

// The agent protocol: mpirun (the head) and the agent it starts on each
// host talk through the agent's standard input and output, which the
// launch command (ssh, ip netns exec) carries. The agent's output
// begins with agentMagic, which the head checks before it trusts a
// frame's length: what the launch command or the shell on the host
// wrote there before the agent (a login banner, the output of a shell
// start-up file) is then reported as such. Both directions carry
// frames:
//
//	uint32  length of the rest of the frame (big endian)
//	byte    kind
//	uint32  rank (noRank when the frame is about no rank)
//	bytes   payload
//
// The exchange:
//
//	agent -> head  'h' hello: JSON agentHello (protocol version, the host's addresses)
//	head -> agent  'c' config: JSON agentConfig (the job, the host's ranks, the store's address)
//	agent -> head  's' rank started: its pid, in decimal
//	agent -> head  'o', 'e' a line of the rank's stdout, stderr (with its newline)
//	agent -> head  'x' rank ended: JSON rankExit (wait status)
//	agent -> head  'f' failure: a message (a rank that could not start, or noRank: the agent's own)
//	head -> agent  'i' input: bytes of mpirun's standard input for the rank of -stdin (empty: its end)
//	head -> agent  'k' stop: end the ranks (SIGTERM, SIGKILL after termGrace)
//
// The agent exits once every rank it started has ended and been
// reported. When its standard input ends (the head or the connection to
// it is gone) it stops its ranks as for 'k' and exits.
const (
	msgHello   byte = 'h'
	msgConfig  byte = 'c'
	msgStarted byte = 's'
	msgStdout  byte = 'o'
	msgStderr  byte = 'e'
	msgExit    byte = 'x'
	msgFail    byte = 'f'
	msgStop    byte = 'k'
	msgStdin   byte = 'i'
)

// agentProtocol is the version of the agent protocol; the head refuses an
// agent of another version.
const agentProtocol = 4

// agentMagic begins the agent's standard output, before its first
// frame. Its first byte, NUL, starts no text, so that a line of text
// differs from it at once, while an agent of protocol version 1, which
// sends frames without it, differs from it at the second byte.
const agentMagic = "\x00mpirun-agent\x00"

// maxForeignLine and maxForeignBinary bound what the head reads, to
// quote it, of what came instead of agentMagic: a line of text, or the
// binary bytes that had already arrived.
const (
	maxForeignLine   = 200
	maxForeignBinary = 16
)

// noRank is the rank of a frame that is about no rank.
const noRank = math.MaxUint32

// maxWireFrame bounds a frame: a line of output is at most maxLine, and
// a config holds the program's arguments and the settings.
const maxWireFrame = 64 << 20

// agentHello is the agent's first frame.
type agentHello struct {
	Version int
	// Network names the host's network stack (see networkIdentity): the
	// head's own when the host is the head's.
	Network string
	// Addrs are the host's addresses (see interfaceAddrs), as CIDRs.
	Addrs []string
}

// agentConfig is what the head tells the agent of a host.
type agentConfig struct {
	Host         string
	First, Count int    // the host's ranks: First, ..., First+Count-1
	Size         int    // ranks of the job
	PGID         uint64 // the NIC's job key
	Key          string // the data store's secret key, formatted by launch.FormatJobKey
	StoreAddr    string // the data store, ip:port
	If           string // mpirun -if, "" if not given
	Profile      string // the NIC's timing profile
	NoNIC        bool   // the ranks open no NIC (-transport tcp): no segment
	Program      string // the executable
	Args         []string
	Env          []string // the settings and -x's variables, NAME=value
	Dir          string   // the ranks' working directory (-wdir), "" for the agent's
	StdinRank    int      // the rank that reads mpirun's standard input, -1 for none
	Verbose      bool
}

// rankExit is how a rank ended.
type rankExit struct {
	Status int // its wait status (syscall.WaitStatus)
}

// wireFrame is a frame of the agent protocol.
type wireFrame struct {
	kind byte
	rank uint32
	data []byte
}

// readWireFrame reads the next frame from r.
func readWireFrame(r *bufio.Reader) (wireFrame, error) {
	var head [9]byte
	if _, err := io.ReadFull(r, head[:4]); err != nil {
		return wireFrame{}, err
	}
	n := binary.BigEndian.Uint32(head[:4])
	switch {
	case n < 5:
		return wireFrame{}, fmt.Errorf("agent protocol: a frame of %d bytes, shorter than a frame's 5-byte head: the stream is corrupt", n)
	case n > maxWireFrame:
		return wireFrame{}, fmt.Errorf("agent protocol: a frame of %d bytes, longer than the %d bytes a frame may have: the stream is corrupt", n, maxWireFrame)
	}
	if _, err := io.ReadFull(r, head[4:]); err != nil {
		return wireFrame{}, fmt.Errorf("agent protocol: %w", noEOF(err))
	}
	f := wireFrame{kind: head[4], rank: binary.BigEndian.Uint32(head[5:]), data: make([]byte, n-5)}
	if _, err := io.ReadFull(r, f.data); err != nil {
		return wireFrame{}, fmt.Errorf("agent protocol: %w", noEOF(err))
	}
	return f, nil
}

// readAgentMagic reads agentMagic, which begins the agent's output. It
// returns io.EOF when the output ends at once (the agent never started),
// and a *foreignOutput when something else came first.
func readAgentMagic(r *bufio.Reader) error {
	for i := range len(agentMagic) {
		b, err := r.ReadByte()
		switch {
		case err != nil && i == 0:
			return err
		case err != nil:
			return fmt.Errorf("agent protocol: its start: %w", noEOF(err))
		case b != agentMagic[i]:
			return readForeign(r, append([]byte(agentMagic[:i]), b))
		}
	}
	return nil
}

// readForeign returns a *foreignOutput of seen, what came instead of
// agentMagic, and what follows it: the rest of the line for text, read
// until a newline or the end of the output, or what has already arrived
// of binary output (which may have no newline to wait for).
func readForeign(r *bufio.Reader, seen []byte) error {
	fo := &foreignOutput{data: seen}
	if !fo.text() {
		more, _ := r.Peek(min(r.Buffered(), maxForeignBinary-len(seen)))
		fo.data = append(fo.data, more...)
		return fo
	}
	for len(fo.data) < maxForeignLine && fo.data[len(fo.data)-1] != '\n' {
		b, err := r.ReadByte()
		if err != nil {
			break
		}
		fo.data = append(fo.data, b)
	}
	return fo
}

// foreignOutput is the error of output that is not the agent's: what
// came instead of agentMagic (see readForeign).
type foreignOutput struct{ data []byte }

func (e *foreignOutput) Error() string {
	return fmt.Sprintf("agent protocol: %q where the agent's output begins", e.data)
}

// text says whether the output is text (a NUL byte is in no text).
func (e *foreignOutput) text() bool { return bytes.IndexByte(e.data, 0) < 0 }

// noEOF turns the end of the stream within a frame into an error.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// wireWriter writes whole frames to a stream shared by goroutines.
type wireWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error // the first write error; later sends fail at once
}

func newWireWriter(w io.Writer) *wireWriter { return &wireWriter{w: w} }

// send writes a frame of kind about rank with data.
func (w *wireWriter) send(kind byte, rank uint32, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = binary.BigEndian.AppendUint32(w.buf[:0], uint32(5+len(data)))
	w.buf = append(w.buf, kind)
	w.buf = binary.BigEndian.AppendUint32(w.buf, rank)
	w.buf = append(w.buf, data...)
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("agent protocol: %w", err)
	}
	return w.err
}

// sendMagic writes agentMagic, which begins the agent's output.
func (w *wireWriter) sendMagic() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := io.WriteString(w.w, agentMagic); err != nil {
		w.err = fmt.Errorf("agent protocol: %w", err)
	}
	return w.err
}

// sendJSON writes a frame whose payload is v in JSON.
func (w *wireWriter) sendJSON(kind byte, rank uint32, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("agent protocol: %w", err)
	}
	return w.send(kind, rank, data)
}
