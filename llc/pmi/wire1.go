package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// wire1 is the PMI-1 simple wire (Flux RFC 13): a message is one line of
// space-separated key=value attributes, the first cmd=NAME, ended by a
// newline:
//
//	cmd=put kvsname=kvs_1 key=k value=v\n
//
// PMI-2 clients also begin with a PMI-1 init exchange.
type wire1 struct{}

func (wire1) encode(m message) ([]byte, error) {
	b := append([]byte("cmd="), m.cmd...)
	for _, a := range m.attrs {
		if strings.ContainsAny(a.key, " \n=") || strings.ContainsAny(a.value, " \n") {
			return nil, fmt.Errorf("%w: attribute %q=%q of %s cannot travel on the PMI-1 wire", errProtocol, a.key, a.value, m.cmd)
		}
		b = append(b, ' ')
		b = append(b, a.key...)
		b = append(b, '=')
		b = append(b, a.value...)
	}
	return append(b, '\n'), nil
}

func (wire1) decode(r *bufio.Reader) (message, error) {
	line, err := readLine(r)
	if err != nil {
		return message{}, err
	}
	return parse1(line)
}

// parse1 parses a line of the PMI-1 wire. As RFC 13 asks of parsers, the
// attributes may come in any order and with extra white space; an
// attribute without '=' has an empty value.
func parse1(line string) (message, error) {
	var m message
	seen := false
	for _, field := range strings.Fields(line) {
		k, v, _ := strings.Cut(field, "=")
		if k == "cmd" && !seen {
			m.cmd, seen = v, true
			continue
		}
		m.attrs = append(m.attrs, attr{k, v})
	}
	if !seen {
		return message{}, fmt.Errorf("%w: line without cmd: %q", errProtocol, line)
	}
	return m, nil
}

// readLine reads a line of at most maxMessage bytes and returns it
// without its newline.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(b)+len(chunk) > maxMessage {
			return "", fmt.Errorf("%w: line longer than %d bytes", errProtocol, maxMessage)
		}
		b = append(b, chunk...)
		switch {
		case err == nil:
			return string(b[:len(b)-1]), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(b) > 0 && errors.Is(err, io.EOF):
			return "", fmt.Errorf("%w: connection ended inside a line", errProtocol)
		}
		return "", err
	}
}
