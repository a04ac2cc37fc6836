package pmi

import (
	"errors"
	"fmt"
	"strings"
)

// The PMI wires carry keys and values as words: printable ASCII without
// spaces (RFC 13 restricts values to '!'..'~'), split at '=' into key and
// value, at spaces into attributes (PMI-1) and at ';' (PMI-2). Newer
// MPICH servers also unescape '\'. A key or value of the store may hold
// any bytes, so the client escapes every byte that is not a safe word
// character as '%' and two upper-case hexadecimal digits. ',' is escaped
// as well, because the client's index keys list keys separated by commas
// (collect.go).

// escaped reports whether byte b travels as %XX.
func escaped(b byte) bool {
	switch b {
	case '%', '=', ';', '\\', ',':
		return true
	}
	return b < '!' || b > '~'
}

const upperHex = "0123456789ABCDEF"

// escape returns s with every byte that the wire cannot carry as %XX.
func escape(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if escaped(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; escaped(c) {
			b = append(b, '%', upperHex[c>>4], upperHex[c&0xf])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

var errEscape = errors.New("malformed escape")

// unescape reverses escape. It accepts only what escape produces: a '%'
// followed by two upper-case hexadecimal digits.
func unescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("%w at byte %d of %q", errEscape, i, s)
		}
		hi, lo := strings.IndexByte(upperHex, s[i+1]), strings.IndexByte(upperHex, s[i+2])
		if hi < 0 || lo < 0 {
			return "", fmt.Errorf("%w at byte %d of %q", errEscape, i, s)
		}
		b = append(b, byte(hi<<4|lo))
		i += 2
	}
	return string(b), nil
}

// reservedPrefix begins the keys that PMI servers reserve for themselves
// (RFC 13: PMI_process_mapping and others).
const reservedPrefix = "PMI_"

// wireKey returns the key under which the store's key travels: escaped,
// and with its first byte escaped too when it would begin with the
// servers' reserved prefix. The client's own keys (index.go) begin with
// '%' and a letter that is not a hexadecimal digit, so no store key
// becomes one of them.
func wireKey(key string) string {
	w := escape(key)
	if strings.HasPrefix(w, reservedPrefix) {
		w = "%50" + w[1:] // 'P'
	}
	return w
}
