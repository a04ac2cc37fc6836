package mpirun

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
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
		"too short": {frame(4, "oxxxx"), "a frame of 4 bytes, shorter than a frame's 5-byte head"},
		"too long":  {frame(maxWireFrame+1, ""), fmt.Sprintf("a frame of %d bytes, longer than the %d bytes a frame may have", maxWireFrame+1, maxWireFrame)},
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

func TestAgentMagic(t *testing.T) {
	var frame bytes.Buffer
	if err := newWireWriter(&frame).send(msgHello, noRank, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 3*maxForeignLine)
	for name, c := range map[string]struct {
		in      string
		err     error  // the error, or
		foreign string // the output quoted as foreign, or
		text    bool   // whether that looks like text
		want    string // a part of another error
	}{
		"agent":       {in: agentMagic + frame.String()},
		"nothing":     {in: "", err: io.EOF},
		"banner":      {in: "Welcome to b\r\n" + agentMagic + frame.String(), foreign: "Welcome to b\r\n", text: true},
		"no newline":  {in: "Last login: today", foreign: "Last login: today", text: true},
		"long line":   {in: long + "\n" + agentMagic, foreign: long[:maxForeignLine], text: true},
		"older agent": {in: frame.String(), foreign: frame.String(), text: false},
		"cut magic":   {in: agentMagic[:5], want: "unexpected EOF"},
		"binary":      {in: "\x00\x01\x02\n" + long, foreign: "\x00\x01\x02\n" + long[:maxForeignBinary-4], text: false},
	} {
		r := bufio.NewReader(strings.NewReader(c.in))
		err := readAgentMagic(r)
		var fo *foreignOutput
		switch {
		case c.foreign != "":
			if !errors.As(err, &fo) || string(fo.data) != c.foreign || fo.text() != c.text {
				t.Errorf("%s: %v, want the foreign output %q (text %v)", name, err, c.foreign, c.text)
			}
		case c.want != "":
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %q", name, err, c.want)
			}
		case err != c.err:
			t.Errorf("%s: %v, want %v", name, err, c.err)
		case err == nil:
			if f, err := readWireFrame(r); err != nil || f.kind != msgHello {
				t.Errorf("%s: the frame after the magic: %q, %v", name, f.kind, err)
			}
		}
	}
}

func TestExplainForeign(t *testing.T) {
	a := &hostAgent{launch: "ssh b /bin/mpirun agent"}
	long := strings.Repeat("x", maxForeignLine)
	for _, c := range []struct {
		data, want string
	}{
		{"Welcome\r\n", `the launch command 'ssh b /bin/mpirun agent' wrote "Welcome" before the agent's protocol: something other than the agent wrote to its standard output (a login banner or a shell start-up file such as ~/.bashrc printing text is the usual cause)`},
		{long, `wrote "` + long + `"... before`},
		{"\x00\x00\x00\x07h", `the launch command 'ssh b /bin/mpirun agent' started something that does not speak this mpirun's agent protocol (its output began "\x00\x00\x00\ah"): run the same mpirun on every host`},
	} {
		if err := a.explain(&foreignOutput{data: []byte(c.data)}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
	if err := a.explain(io.ErrUnexpectedEOF); err != io.ErrUnexpectedEOF {
		t.Errorf("another error: %v, want it unchanged", err)
	}
}
