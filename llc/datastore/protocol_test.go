package datastore

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	frames := []frame{
		{kind: opFence, id: 1},
		{kind: opPut, id: 1 << 40, fields: []string{"key", "va\x00lue\n"}},
		{kind: stOK, id: 7, fields: []string{""}},
	}
	var buf bytes.Buffer
	for _, f := range frames {
		if err := writeFrame(&buf, f); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for _, want := range frames {
		got, err := readFrame(r)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("read %+v, want %+v", got, want)
		}
	}
	if _, err := readFrame(r); err != io.EOF {
		t.Errorf("read past the end: %v, want EOF", err)
	}
}

func TestFrameMalformed(t *testing.T) {
	good := appendFrame(nil, frame{kind: opPut, id: 1, fields: []string{"k", "v"}})
	for name, data := range map[string][]byte{
		"short length":    {0, 0, 0, 3, 'P', 0, 0},
		"huge length":     {0xff, 0xff, 0xff, 0xff},
		"truncated frame": good[:len(good)-1],
		"field too long":  append([]byte{0, 0, 0, 14, 'P', 0, 0, 0, 0, 0, 0, 0, 1}, 0, 0, 0, 9, 'x'),
	} {
		_, err := readFrame(bufio.NewReader(bytes.NewReader(data)))
		if err == nil || err == io.EOF {
			t.Errorf("%s: err = %v, want an error", name, err)
		}
		if name != "truncated frame" && !errors.Is(err, errBadFrame) {
			t.Errorf("%s: err = %v, want errBadFrame", name, err)
		}
	}
}
