package collectives

// DatumSize is the size of the data word every rank passes to
// Hardware.Barrier: inputs up to this size travel in the barrier itself
// (on the martini network, in the line that says a member has arrived,
// and the line after it).
const DatumSize = 104

// PartsBarrier is a Hardware whose barrier takes its payload in two parts,
// head then tail, and publishes them joined, as Barrier publishes payload:
// a caller whose payload is its input followed by something else need not
// join them first.
type PartsBarrier interface {
	BarrierParts(key uint64, datum *[DatumSize]byte, head, tail []byte) error
}

// Hardware is a network's collective offload for one communicator, as one
// of its processes sees it: a barrier controller of a synchronisation
// network that also carries a small payload from every process, and
// multicast from one process to all the others. Its calls block until
// done. A communicator without offload has no Hardware (nil).
type Hardware interface {
	// Barrier publishes payload (at most PayloadSize bytes) and *datum,
	// and returns once every rank of the communicator has called Barrier.
	// Until this rank calls Barrier again, Payload(r) returns what rank r
	// published, Datum(r) its datum, and KeySum the sum of the keys all
	// ranks passed, modulo 2^KeyBits (keys are below that): ranks that
	// pass equal keys learn that they agree without reading the others'
	// payloads. Barrier reads *datum before it returns and keeps no
	// pointer to it; a nil datum publishes none, and the others must not
	// read this rank's Datum then.
	Barrier(key uint64, datum *[DatumSize]byte, payload []byte) error
	KeySum() uint64
	// KeyBits is the width of Barrier's keys and of their sum.
	KeyBits() int
	// Datum points at the datum rank r passed to the last Barrier, for
	// communicators of at most InlineRanks ranks: DatumSize bytes that
	// travel in the barrier's own messages (on the martini network the
	// first 40 at no cost beyond the barrier's, the rest a line more).
	// They stay the same until this rank calls Barrier again; the caller
	// must not write them.
	Datum(r int) *[DatumSize]byte
	// InlineRanks is the largest communicator whose data words Datum
	// returns.
	InlineRanks() int
	// Payload returns what rank published at the last Barrier, to a
	// caller that reads no more than n bytes of it from offset off (all
	// of it, where n is 0): the hardware may fetch those bytes at once,
	// and the payload's other bytes may then read as anything. It stays
	// the same until this rank calls Barrier again.
	Payload(rank, off, n int) []byte
	PayloadSize() int
	// Multicast sends data (at most MulticastSize bytes) from this rank to
	// every other rank of the communicator, each of which takes it with
	// Deliver(root). The multicasts of a communicator are delivered in the
	// order they were made; Multicast returns when data may be reused.
	Multicast(data []byte) error
	// Deliver receives the next multicast of rank root into buf and
	// returns its length, which may exceed len(buf): buf then holds its
	// beginning.
	Deliver(root int, buf []byte) (int, error)
	MulticastSize() int
}
