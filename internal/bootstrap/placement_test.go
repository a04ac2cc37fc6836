package bootstrap

import (
	"slices"
	"strings"
	"testing"
)

// readPlacement groups the processes pinned to one CPU of one host, gives
// an unpinned process a processor of its own, returns nil when no two
// share one, and names a missing or malformed entry.
func TestReadPlacement(t *testing.T) {
	kv := func(vals ...string) map[string]string {
		m := map[string]string{}
		for r, v := range vals {
			if v != "" {
				m[cpuKey(r)] = v
			}
		}
		return m
	}
	for _, tc := range []struct {
		vals []string
		want []int
		err  string
	}{
		{[]string{"0@a", "1@a", "0@a", "1@a"}, []int{0, 1, 0, 1}, ""},
		{[]string{"0@a", "0@b", "1@a", "1@b"}, nil, ""}, // other hosts' CPU 0 is another
		{[]string{"0@a", "-1@a", "0@a", "-1@a"}, []int{0, 5, 0, 7}, ""},
		{[]string{"-1@a", "-1@a"}, nil, ""},
		{[]string{"3@h@x", "3@h@x"}, []int{0, 0}, ""}, // a host name may hold @
		{[]string{"0@a", ""}, nil, "rank 1 published no CPU"},
		{[]string{"0@a", "one@a"}, nil, `"one@a" is not CPU@HOST`},
		{[]string{"0@a", "7"}, nil, `"7" is not CPU@HOST`},
		{[]string{"0@a", "-2@a"}, nil, `"-2@a" is not CPU@HOST`},
	} {
		got, err := readPlacement(kv(tc.vals...), len(tc.vals))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: error %v, want one containing %q", tc.vals, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%v: %v", tc.vals, err)
		case !slices.Equal(got, tc.want):
			t.Errorf("%v: %v, want %v", tc.vals, got, tc.want)
		}
	}
}
