package pmi

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// wire2 is the PMI-2 wire (MPICH's PMI-2 simple client, Slurm's mpi/pmi2
// plugin): a message is a length of six decimal digits, padded with
// spaces, and that many bytes of key=value; attributes, the first
// cmd=NAME:
//
//	38    cmd=kvs-put;key=k;value=v;
//
// A ';' inside a value is doubled. The client never sends one: Hydra's
// server does not undouble it, and the client escapes ';' in keys and
// values (escape). Responses are parsed with the doubling.
type wire2 struct{}

// lenDigits is the width of a PMI-2 frame's length.
const lenDigits = 6

func (wire2) encode(m message) ([]byte, error) {
	var body strings.Builder
	body.WriteString("cmd=" + m.cmd + ";")
	for _, a := range m.attrs {
		if strings.ContainsAny(a.key, ";=") || strings.Contains(a.value, ";") {
			return nil, fmt.Errorf("%w: attribute %q=%q of %s cannot travel on the PMI-2 wire", errProtocol, a.key, a.value, m.cmd)
		}
		body.WriteString(a.key + "=" + a.value + ";")
	}
	if body.Len() >= 1e6 {
		return nil, fmt.Errorf("%w: %s of %d bytes does not fit a PMI-2 frame", errProtocol, m.cmd, body.Len())
	}
	return fmt.Appendf(nil, "%-*d%s", lenDigits, body.Len(), body.String()), nil
}

func (wire2) decode(r *bufio.Reader) (message, error) {
	var hdr [lenDigits]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return message{}, fmt.Errorf("%w: connection ended inside a frame length", errProtocol)
		}
		return message{}, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(hdr[:])))
	if err != nil || n < 0 || n > maxMessage {
		return message{}, fmt.Errorf("%w: bad frame length %q", errProtocol, hdr[:])
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return message{}, fmt.Errorf("%w: connection ended inside a frame of %d bytes: %v", errProtocol, n, err)
	}
	return parse2(string(body))
}

// parse2 parses the body of a PMI-2 frame: attributes ended by ';' (the
// last one's may be missing), ";;" standing for a ';' in a value. The
// first attribute is cmd.
func parse2(body string) (message, error) {
	var attrs []attr
	for len(body) > 0 {
		k, rest, ok := strings.Cut(body, "=")
		if !ok || strings.Contains(k, ";") {
			return message{}, fmt.Errorf("%w: attribute without '=' in %q", errProtocol, body)
		}
		var v strings.Builder
		for {
			i := strings.IndexByte(rest, ';')
			if i < 0 {
				v.WriteString(rest)
				rest = ""
				break
			}
			v.WriteString(rest[:i])
			if i+1 < len(rest) && rest[i+1] == ';' {
				v.WriteByte(';')
				rest = rest[i+2:]
				continue
			}
			rest = rest[i+1:]
			break
		}
		attrs = append(attrs, attr{k, v.String()})
		body = rest
	}
	if len(attrs) == 0 || attrs[0].key != "cmd" {
		return message{}, fmt.Errorf("%w: frame does not begin with cmd", errProtocol)
	}
	return message{cmd: attrs[0].value, attrs: attrs[1:]}, nil
}
