package collectives

import "testing"

// TestRelayout checks that the records of a message laid out at another
// length than the receiver's land key first at the receiver's places:
// longer ones cut, shorter ones followed by zeros.
func TestRelayout(t *testing.T) {
	for _, tc := range []struct{ l, size, cnt int }{{48, 40, 3}, {40, 48, 3}, {40, 40, 2}, {100, 32, 4}, {32, 100, 4}} {
		buf := make([]byte, tc.cnt*max(tc.l, tc.size))
		for i := range tc.cnt {
			for j := range tc.l {
				buf[i*tc.l+j] = byte(i*16 + j%16 + 1)
			}
		}
		relayout(buf, tc.cnt*tc.l, tc.cnt, tc.size)
		for i := range tc.cnt {
			for j := range tc.size {
				want := byte(0)
				if j < tc.l {
					want = byte(i*16 + j%16 + 1)
				}
				if got := buf[i*tc.size+j]; got != want {
					t.Fatalf("records of %d bytes to places of %d: record %d byte %d is %d, want %d", tc.l, tc.size, i, j, got, want)
				}
			}
		}
	}
}
