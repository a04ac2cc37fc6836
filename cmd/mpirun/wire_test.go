package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestWireRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := newWireWriter(&buf)
	frames := []wireFrame{
		{msgStdout, 3, []byte("a line\n")},
		{msgStop, noRank, []byte{}},
		{msgStderr, 0, bytes.Repeat([]byte("x"), maxLine)},
	}
	for _, f := range frames {
		if err := w.send(f.kind, f.rank, f.data); err != nil {
			t.Fatal(err)
		}
	}
	cfg := agentConfig{Host: "b", First: 2, Count: 2, Size: 4, Args: []string{"-x", "a b"}, Env: []string{"MARTINI_RNDV=push"}}
	if err := w.sendJSON(msgConfig, noRank, cfg); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(&buf)
	for _, want := range frames {
		got, err := readWireFrame(r)
		if err != nil || got.kind != want.kind || got.rank != want.rank || !bytes.Equal(got.data, want.data) {
			t.Errorf("frame %q %d: got %q %d (%d bytes), %v", want.kind, want.rank, got.kind, got.rank, len(got.data), err)
		}
	}
	f, err := readWireFrame(r)
	if err != nil || f.kind != msgConfig {
		t.Fatalf("config frame: %q, %v", f.kind, err)
	}
	if _, err := readWireFrame(r); err != io.EOF {
		t.Errorf("after the last frame: %v, want EOF", err)
	}
}

func TestWireBadFrames(t *testing.T) {
	frame := func(n uint32, rest string) []byte { return append(binary.BigEndian.AppendUint32(nil, n), rest...) }
	for name, c := range map[string]struct {
		in   []byte
		want string
	}{
		"too short": {frame(4, "oxxxx"), "a frame of 4 bytes"},
		"too long":  {frame(maxWireFrame+1, ""), "a frame of"},
		"cut":       {frame(20, "o\x00\x00\x00\x01abc"), "unexpected EOF"},
		"cut head":  {frame(20, "o\x00"), "unexpected EOF"},
	} {
		_, err := readWireFrame(bufio.NewReader(bytes.NewReader(c.in)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// A writer that failed once fails every later send without writing.
func TestWireWriterBroken(t *testing.T) {
	fw := &failWriter{}
	w := newWireWriter(fw)
	if err := w.send(msgStdout, 0, []byte("x\n")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("send to a broken stream: %v", err)
	}
	if err := w.send(msgStop, noRank, nil); !errors.Is(err, io.ErrClosedPipe) || fw.writes != 1 {
		t.Errorf("second send: %v after %d writes; want the first error and no write", err, fw.writes)
	}
}

type failWriter struct{ writes int }

func (f *failWriter) Write([]byte) (int, error) {
	f.writes++
	return 0, io.ErrClosedPipe
}
