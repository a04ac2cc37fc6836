package mpirun

import (
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// A job with -transport tcp opens no NIC: neither mpirun nor a rank holds
// or maps a segment while it runs, and nothing appears in /dev/shm; by
// default the ranks of one host share mpirun's segment.
func TestTransportTCPOpensNoNIC(t *testing.T) {
	line := regexp.MustCompile(`(?m)^rank (\d): network (\S+), segments: fds (\d+), mapped (\d+), launcher (\d+)$`)
	for _, tc := range []struct {
		transport, network string
		segments           bool
	}{
		{"tcp", "tcp", false},
		{"auto", "martini", true},
	} {
		shm := shmEntries(t)
		r := mpirun(t, "-np", "2", "-transport", tc.transport, helper("segments"))
		if r.code != 0 {
			t.Fatalf("-transport %s: exit %d\n%s%s", tc.transport, r.code, r.stdout, r.stderr)
		}
		ranks := line.FindAllStringSubmatch(r.stdout, -1)
		if len(ranks) != 2 {
			t.Fatalf("-transport %s: %d ranks reported, want 2:\n%s", tc.transport, len(ranks), r.stdout)
		}
		for _, m := range ranks {
			counts := make([]int, 3)
			for i := range counts {
				counts[i], _ = strconv.Atoi(m[3+i])
			}
			has := counts[0] > 0 && counts[1] > 0 && counts[2] > 0
			none := counts[0] == 0 && counts[1] == 0 && counts[2] == 0
			if m[2] != tc.network || tc.segments && !has || !tc.segments && !none {
				t.Errorf("-transport %s: %s; want network %s and segments %v", tc.transport, m[0], tc.network, tc.segments)
			}
		}
		if after := shmEntries(t); !slices.Equal(after, shm) {
			t.Errorf("-transport %s: /dev/shm held %v before the job, %v after", tc.transport, shm, after)
		}
	}
}
