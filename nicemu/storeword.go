//go:build !race

package nicemu

// copyWords copies src into segment memory at dst, each aligned 8-byte
// word of dst as one store: a receiver may read a word of a write in
// progress (a ring record's first word, which says where its signal is)
// and see it whole. memmove's vector and word stores do that; under the
// race detector, which does not know it, the first word is an atomic
// store of its own (storeword_race.go).
func copyWords(dst, src []byte) { copy(dst, src) }
