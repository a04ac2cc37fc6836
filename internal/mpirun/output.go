package mpirun

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// maxLine is the longest piece of output forwarded as one line; a longer
// line is forwarded in pieces of this size.
const maxLine = 1 << 20

// output serializes what the ranks and mpirun write, line by line, so that
// lines of different ranks never interleave within a line.
type output struct {
	stdout, stderr io.Writer
	tag            bool
	files          *rankFiles // -output-filename; nil without it

	mu sync.Mutex // held while writing one line to stdout or stderr
}

func newOutput(stdout, stderr io.Writer, tag bool) *output {
	return &output{stdout: stdout, stderr: stderr, tag: tag}
}

// logf writes a message of mpirun's own to stderr.
func (o *output) logf(format string, a ...any) {
	msg := fmt.Sprintf("mpirun: "+format, a...)
	if len(msg) == 0 || msg[len(msg)-1] != '\n' {
		msg += "\n"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	io.WriteString(o.stderr, msg)
}

// A stream of a rank's output.
type stream int

const (
	streamStdout stream = iota
	streamStderr
)

// forward copies r, the stream s of rank, line by line until r ends (see
// rankLine). Every line is also passed to inspect, if not nil, without
// its newline.
func (o *output) forward(r io.Reader, s stream, rank int, inspect func(line []byte)) {
	prefix := o.prefix(rank)
	splitLines(r, func(line []byte) {
		if inspect != nil {
			inspect(bytes.TrimSuffix(line, []byte("\n")))
		}
		o.rankLine(s, rank, prefix, line)
	})
}

// rankLine writes a line of stream s of rank to mpirun's stdout or
// stderr, after prefix, and to the rank's file of -output-filename if
// there is one (unless its nocopy leaves the terminal out).
func (o *output) rankLine(s stream, rank int, prefix, line []byte) {
	if o.files != nil && !o.files.write(o, rank, s, line) {
		return
	}
	w := o.stdout
	if s == streamStderr {
		w = o.stderr
	}
	o.writeLine(w, prefix, line)
}

// prefix returns what starts every line of rank: its tag, or nothing.
func (o *output) prefix(rank int) []byte {
	if !o.tag {
		return nil
	}
	return []byte("[" + strconv.Itoa(rank) + "] ")
}

// splitLines reads r until it ends and passes emit every line with its
// newline; a last line without a newline gets one, and a line longer
// than maxLine comes in pieces of that size. emit must not keep line.
func splitLines(r io.Reader, emit func(line []byte)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		complete := len(line) > 0 && line[len(line)-1] == '\n'
		if complete || len(line) >= maxLine || (err != nil && err != bufio.ErrBufferFull && len(line) > 0) {
			if !complete {
				line = append(line, '\n')
			}
			emit(line)
			line = line[:0]
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (o *output) writeLine(w io.Writer, prefix, line []byte) {
	buf := line
	if prefix != nil {
		buf = make([]byte, 0, len(prefix)+len(line))
		buf = append(append(buf, prefix...), line...)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	w.Write(buf)
}
