package npb

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name  string
		class Class
		np    int
		want  string // the name returned, or a part of the error
		ok    bool
	}{
		{"cg", 'A', 4, "CG", true},
		{"BT", 'S', 9, "BT", true},
		{"lu", 'B', 2, "LU", true},
		{"ep", 'W', 3, "EP", true},
		{"bt", 'A', 2, "BT needs a square number of processes", false},
		{"cg", 'A', 3, "CG needs a power of two", false},
		{"lu", 'A', 3, "LU needs xdim·ydim", false},
		{"is", 'C', 2, "IS", true},
		{"is", 'D', 2, "IS class D", false},
		{"xx", 'A', 2, `kernel "xx"`, false},
	} {
		name, err := Check(c.name, c.class, c.np)
		switch {
		case c.ok && (err != nil || name != c.want):
			t.Errorf("Check(%s, %v, %d) = %q, %v; want %q", c.name, c.class, c.np, name, err, c.want)
		case !c.ok && (!errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Check(%s, %v, %d): %v; want ErrUnsupported saying %q", c.name, c.class, c.np, err, c.want)
		case !c.ok && errors.Is(err, ErrProcs) != strings.Contains(c.want, "needs"):
			t.Errorf("Check(%s, %v, %d): %v; ErrProcs %v", c.name, c.class, c.np, err, errors.Is(err, ErrProcs))
		}
	}
}

func TestProcsRule(t *testing.T) {
	if r := ProcsRule("sp"); r != "a square number of processes" {
		t.Errorf("SP's rule %q", r)
	}
	if r := ProcsRule("xx"); r != "" {
		t.Errorf("an unknown kernel's rule %q", r)
	}
}
