package pmi

import (
	"bufio"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestEscapeRoundTrip(t *testing.T) {
	var all []byte
	for b := range 256 {
		all = append(all, byte(b))
	}
	for _, s := range []string{"", "plain/key.1", "a b=c;d,e\\f%g\n", string(all), "é"} {
		w := escape(s)
		for i := 0; i < len(w); i++ {
			if c := w[i]; c < '!' || c > '~' || strings.IndexByte("=;\\,", c) >= 0 {
				t.Errorf("escape(%q) = %q: byte %q cannot travel", s, w, c)
			}
		}
		got, err := unescape(w)
		if err != nil || got != s {
			t.Errorf("unescape(escape(%q)) = %q, %v", s, got, err)
		}
	}
	if w := escape("boot/region/12"); w != "boot/region/12" {
		t.Errorf("escape of a plain key = %q, want it unchanged", w)
	}
	if w := escape("a b%"); w != "a%20b%25" {
		t.Errorf("escape(\"a b%%\") = %q, want a%%20b%%25", w)
	}
	for _, bad := range []string{"%", "%4", "abc%4", "%zz", "%4a", "%i0.1"} {
		if _, err := unescape(bad); !errors.Is(err, errEscape) {
			t.Errorf("unescape(%q): error %v, want a malformed escape", bad, err)
		}
	}
}

func TestWireKey(t *testing.T) {
	for key, want := range map[string]string{
		"boot/region/0":       "boot/region/0",
		"PMI_process_mapping": "%50MI_process_mapping",
		"PMI":                 "PMI",
		"a=b":                 "a%3Db",
	} {
		if got := wireKey(key); got != want {
			t.Errorf("wireKey(%q) = %q, want %q", key, got, want)
		}
		if got, err := unescape(wireKey(key)); err != nil || got != key {
			t.Errorf("unescape(wireKey(%q)) = %q, %v", key, got, err)
		}
	}
	// The client's own keys cannot be store keys: their escapes are not
	// what escape writes.
	for _, own := range []string{barrierKey, indexKey(3, 1)} {
		if _, err := unescape(own); err == nil {
			t.Errorf("%q unescapes: a store key could collide with it", own)
		}
	}
}

func TestWire1(t *testing.T) {
	b, err := wire1{}.encode(request("put", "kvsname", "kvs_1", "key", "k", "value", "v%20w"))
	if err != nil || string(b) != "cmd=put kvsname=kvs_1 key=k value=v%20w\n" {
		t.Errorf("encode put = %q, %v", b, err)
	}
	if _, err := (wire1{}).encode(request("put", "value", "a b")); !errors.Is(err, errProtocol) {
		t.Errorf("encode of a value with a space: %v, want a protocol error", err)
	}
	m, err := parse1("  value=x=y   cmd=get_result rc=0 msg=success\t")
	want := message{cmd: "get_result", attrs: []attr{{"value", "x=y"}, {"rc", "0"}, {"msg", "success"}}}
	if err != nil || !reflect.DeepEqual(m, want) {
		t.Errorf("parse1 = %+v, %v; want %+v", m, err, want)
	}
	if _, err := parse1("rc=0"); !errors.Is(err, errProtocol) {
		t.Errorf("parse1 of a line without cmd: %v", err)
	}
	r := bufio.NewReader(strings.NewReader("cmd=barrier_out\ncmd=maxes rc=0 vallen_max=1024\ncmd=trunc"))
	for _, want := range []string{"barrier_out", "maxes"} {
		if m, err := (wire1{}).decode(r); err != nil || m.cmd != want {
			t.Errorf("decode = %+v, %v; want %s", m, err, want)
		}
	}
	if _, err := (wire1{}).decode(r); !errors.Is(err, errProtocol) {
		t.Errorf("decode of a line cut short: %v, want a protocol error", err)
	}
	long := bufio.NewReaderSize(strings.NewReader("cmd=x value="+strings.Repeat("v", maxMessage)+"\n"), 16)
	if _, err := (wire1{}).decode(long); !errors.Is(err, errProtocol) {
		t.Errorf("decode of a line over %d bytes: %v", maxMessage, err)
	}
}

func TestWire2(t *testing.T) {
	b, err := wire2{}.encode(request("kvs-put", "key", "k", "value", "v"))
	if err != nil || string(b) != "26    cmd=kvs-put;key=k;value=v;" {
		t.Errorf("encode kvs-put = %q, %v", b, err)
	}
	if _, err := (wire2{}).encode(request("kvs-put", "value", "a;b")); !errors.Is(err, errProtocol) {
		t.Errorf("encode of a value with ';': %v, want a protocol error", err)
	}
	r := bufio.NewReader(strings.NewReader(
		"    42cmd=kvs-get-response;found=TRUE;value=a;;b" + // last ';' missing
			"11    cmd=x;rc=0;" +
			"  9x"))
	m, err := wire2{}.decode(r)
	want := message{cmd: "kvs-get-response", attrs: []attr{{"found", "TRUE"}, {"value", "a;b"}}}
	if err != nil || !reflect.DeepEqual(m, want) {
		t.Errorf("decode = %+v, %v; want %+v", m, err, want)
	}
	if m, err := (wire2{}).decode(r); err != nil || m.cmd != "x" {
		t.Errorf("decode = %+v, %v", m, err)
	}
	if _, err := (wire2{}).decode(r); !errors.Is(err, errProtocol) {
		t.Errorf("decode of a frame cut short: %v", err)
	}
	for _, bad := range []string{"abcdefcmd=x;", "    -1", "     5rc=0;"} {
		if _, err := (wire2{}).decode(bufio.NewReader(strings.NewReader(bad))); !errors.Is(err, errProtocol) {
			t.Errorf("decode(%q): %v, want a protocol error", bad, err)
		}
	}
}

func TestJoinUpTo(t *testing.T) {
	keys := []string{"aaaa", "bb", "cccc"}
	for _, c := range []struct {
		max  int
		want string
		n    int
	}{{3, "", 0}, {4, "aaaa", 1}, {7, "aaaa,bb", 2}, {11, "aaaa,bb", 2}, {12, "aaaa,bb,cccc", 3}} {
		if got, n := joinUpTo(keys, c.max); got != c.want || n != c.n {
			t.Errorf("joinUpTo(%d) = %q, %d; want %q, %d", c.max, got, n, c.want, c.n)
		}
	}
}
