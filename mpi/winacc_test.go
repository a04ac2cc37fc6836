package mpi

import "testing"

// TestAccLockWord plays draws and releases of the accumulate lock's word
// as the network's fetch-and-add makes them (modulo 2^64) across the
// wrap of both halves: each holder's draw reads its own ticket served
// once the holders before it released, and the word's halves stay equal
// when nobody holds the lock.
func TestAccLockWord(t *testing.T) {
	for _, start := range []uint64{0, 0xffff_fffd_ffff_fffd, 0xffff_ffff_ffff_ffff} {
		word := start
		for i := range 6 {
			old := word
			word += accDraw // draw
			ticket := uint32(old >> 32)
			if uint32(old) != ticket {
				t.Fatalf("start %#x, holder %d: ticket %d, serving %d with nobody holding", start, i, ticket, uint32(old))
			}
			// A second process draws while the first holds the lock.
			waiting := uint32(word >> 32)
			word += accDraw
			if uint32(word) == waiting {
				t.Fatalf("start %#x, holder %d: ticket %d served while %d holds", start, i, waiting, ticket)
			}
			word += accServeNext(ticket) // release
			if uint32(word) != waiting {
				t.Fatalf("start %#x, holder %d: serving %d after the release, want %d", start, i, uint32(word), waiting)
			}
			word += accServeNext(waiting)
			if uint32(word>>32) != uint32(word) {
				t.Fatalf("start %#x, holder %d: word %#x with nobody holding", start, i, word)
			}
		}
	}
}
