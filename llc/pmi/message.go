package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
)

// message is a command or a response of either wire: its command name
// (the value of its cmd attribute) and its other attributes, in order.
type message struct {
	cmd   string
	attrs []attr
}

type attr struct{ key, value string }

// request returns a message of command name and attributes given as key,
// value, key, value...
func request(name string, kv ...string) message {
	m := message{cmd: name}
	for i := 0; i+1 < len(kv); i += 2 {
		m.attrs = append(m.attrs, attr{kv[i], kv[i+1]})
	}
	return m
}

// get returns the value of the first attribute named key.
func (m message) get(key string) (string, bool) {
	for _, a := range m.attrs {
		if a.key == key {
			return a.value, true
		}
	}
	return "", false
}

// int returns the value of attribute key as an integer.
func (m message) int(key string) (int, error) {
	v, ok := m.get(key)
	if !ok {
		return 0, fmt.Errorf("%w: %s has no %s", errProtocol, m.cmd, key)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %s=%q is not an integer", errProtocol, m.cmd, key, v)
	}
	return n, nil
}

// rc returns the return code of a response: 0 when it has none (RFC 13:
// success may omit it).
func (m message) rc() (int, error) {
	if _, ok := m.get("rc"); !ok {
		return 0, nil
	}
	return m.int("rc")
}

// failure describes a response whose rc is not 0, with the server's
// message if it gave one.
func (m message) failure(rc int) error {
	for _, k := range []string{"msg", "errmsg", "reason"} {
		if v, ok := m.get(k); ok {
			return fmt.Errorf("%w: %s rc=%d: %s", ErrRefused, m.cmd, rc, v)
		}
	}
	return fmt.Errorf("%w: %s rc=%d", ErrRefused, m.cmd, rc)
}

// A codec frames messages on one of the two wires.
type codec interface {
	// encode returns the bytes of m on the wire; it fails if an
	// attribute holds a byte the wire cannot carry.
	encode(m message) ([]byte, error)
	// decode reads the next message.
	decode(r *bufio.Reader) (message, error)
}

var errProtocol = errors.New("PMI protocol error")

// maxMessage bounds what the client reads as one message, so that a
// broken server cannot make it allocate without limit. PMI-2 frames
// cannot exceed 999999 bytes; Hydra's buffers hold 64 KiB.
const maxMessage = 1 << 20
