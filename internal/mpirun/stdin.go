package mpirun

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// stdinOf returns mpirun's standard input f as the ranks' (see -stdin), or
// nil when it is a terminal of which mpirun is not in the foreground: read
// from the background, it would stop mpirun (SIGTTIN).
func stdinOf(f *os.File) io.Reader {
	fg, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	if err != nil {
		return f // not a terminal
	}
	if fg != unix.Getpgrp() {
		return nil
	}
	return f
}

// forwardStdin returns the read end of a pipe to which a goroutine copies
// src until it ends, then closing the pipe, so that the rank reading it
// sees the end of its input. The rank runs in a process group of its own,
// so it could not read mpirun's terminal itself. The goroutine ends when
// src ends or the reader has gone; one blocked reading src does not keep
// mpirun from exiting.
func forwardStdin(src io.Reader) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	go func() {
		io.Copy(w, src) // EPIPE once the rank has gone
		w.Close()
	}()
	return r, nil
}

// rankInput is the standard input of an agent's rank of -stdin: the bytes
// of the head's msgStdin frames, queued by the reader of the head (which
// must never block, or it would miss a stop) and written to the rank's
// pipe by feed (which blocks while the rank does not read).
type rankInput struct {
	rank int

	mu     sync.Mutex
	more   sync.Cond // signalled when chunks grow or eof is set
	chunks [][]byte
	eof    bool
}

func newRankInput(rank int) *rankInput {
	in := &rankInput{rank: rank}
	in.more.L = &in.mu
	return in
}

// put queues data, or the end of the input when data is empty.
func (in *rankInput) put(data []byte) {
	in.mu.Lock()
	if len(data) == 0 {
		in.eof = true
	} else if !in.eof {
		in.chunks = append(in.chunks, bytes.Clone(data))
	}
	in.mu.Unlock()
	in.more.Signal()
}

// feed writes the queued input to w until its end, or until the rank has
// gone, and closes w.
func (in *rankInput) feed(w *os.File) {
	defer w.Close()
	for {
		in.mu.Lock()
		for len(in.chunks) == 0 && !in.eof {
			in.more.Wait()
		}
		if len(in.chunks) == 0 {
			in.mu.Unlock()
			return
		}
		c := in.chunks[0]
		in.chunks = in.chunks[1:]
		in.mu.Unlock()
		if _, err := w.Write(c); err != nil {
			return
		}
	}
}
