package collectives

import "testing"

// TestSharedPays: at two processes AlgShared runs inputs up to the
// measured crossovers (smaller for reductions), beyond two wherever the
// record holds them, and a data word always.
func TestSharedPays(t *testing.T) {
	for _, tc := range []struct {
		n     int
		coll  Collective
		share int
		want  bool
	}{
		{2, CollBcast, sharedPair, true},
		{2, CollBcast, sharedPair + 1, false},
		{2, CollAlltoall, sharedPair + 1, false},
		{2, CollAllreduce, sharedPairReduce, true},
		{2, CollAllreduce, sharedPairReduce + 1, false},
		{2, CollReduce, sharedPairReduce + 1, false},
		{2, CollReduce, DatumSize, true},
		{3, CollAllreduce, 16 << 10, true},
		{4, CollAlltoall, 16 << 10, true},
	} {
		u := &Runner{Net: &memNet{w: newMemWorld(tc.n)}}
		if got := u.sharedPays(tc.coll, tc.share); got != tc.want {
			t.Errorf("%d processes, %v of %d bytes: sharedPays %v, want %v", tc.n, tc.coll, tc.share, got, tc.want)
		}
	}
}
