package collectives

import (
	"encoding/binary"
	"fmt"
	"reflect"
)

// Collective names a collective operation.
type Collective uint8

// The collective operations.
const (
	CollBarrier Collective = iota + 1
	CollBcast
	CollReduce
	CollAllreduce
	CollGather
	CollGatherv
	CollScatter
	CollScatterv
	CollAllgather
	CollAllgatherv
	CollAlltoall
	CollAlltoallv
	CollReduceScatterBlock
	CollReduceScatter
	CollScan
	CollExscan
	numCollectives
)

var collNames = [numCollectives]string{
	"invalid", "barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
	"allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter_block", "reduce_scatter",
	"scan", "exscan",
}

// String returns the collective's lower-case MPI name, as used in
// selections and statistics ("allreduce").
func (c Collective) String() string {
	if c >= numCollectives {
		return "invalid"
	}
	return collNames[c]
}

// ParseCollective returns the collective named s (as String spells it).
func ParseCollective(s string) (Collective, bool) {
	for c := CollBarrier; c < numCollectives; c++ {
		if collNames[c] == s {
			return c, true
		}
	}
	return 0, false
}

// Key is one process's arguments to a collective call, as the processes
// compare them before moving data: a difference is an error on every
// process instead of a hang or garbage.
type Key struct {
	Coll Collective
	// Bad says the process found its own arguments invalid: it publishes
	// that, so that the others fail too instead of waiting for it.
	Bad  bool
	Elem int    // element size in bytes, 0 if the call has no data
	Op   uint16 // reduction operation (opID), 0 if none
	Root int    // root rank, 0 if none (at most 2^23-1)
	// Kind is the element type's reflect.Kind for a reduction (0 if
	// none): int32 and float32 elements have one size but do not add up
	// alike.
	Kind uint8
	// Bytes is the count every process must agree on, in bytes; -1 when
	// counts differ by process (the v variants).
	Bytes int
	// Own is this process's count, in bytes, where counts differ by
	// process, and Counts a hash of the counts (countsHash) this process
	// expects every rank to have as its Own, or 0 if it expects none.
	Own    int
	Counts uint64
}

// keySize is the encoded size of a Key.
const keySize = 32

func (k Key) put(b []byte) {
	b[0] = byte(k.Coll)
	b[1] = byte(k.Elem) & 0x7f
	if k.Bad {
		b[1] |= 0x80
	}
	binary.LittleEndian.PutUint16(b[2:], k.Op)
	putRoot(b, k.Root)
	b[7] = k.Kind
	binary.LittleEndian.PutUint64(b[8:], uint64(k.Bytes))
	binary.LittleEndian.PutUint64(b[16:], uint64(k.Own))
	binary.LittleEndian.PutUint64(b[24:], k.Counts)
}

// putRoot encodes root in b, an encoded Key: 24 bits at b[4:7].
func putRoot(b []byte, root int) {
	r := uint32(int32(root)) & 0xffffff
	b[4], b[5], b[6] = byte(r), byte(r>>8), byte(r>>16)
}

// keyRoot returns the root encoded in b, as putRoot encodes it.
func keyRoot(b []byte) uint32 { return binary.LittleEndian.Uint32(b[4:]) & 0xffffff }

func getKey(b []byte) Key {
	if len(b) < keySize {
		return Key{}
	}
	return Key{
		Coll:   Collective(b[0]),
		Bad:    b[1]&0x80 != 0,
		Elem:   int(b[1] & 0x7f),
		Op:     binary.LittleEndian.Uint16(b[2:]),
		Root:   int(int32(binary.LittleEndian.Uint32(b[4:])<<8) >> 8),
		Kind:   b[7],
		Bytes:  int(int64(binary.LittleEndian.Uint64(b[8:]))),
		Own:    int(int64(binary.LittleEndian.Uint64(b[16:]))),
		Counts: binary.LittleEndian.Uint64(b[24:]),
	}
}

// opID identifies a reduction operation by a hash of its name.
func opID(r Reducer) uint16 {
	if r.Apply == nil {
		return 0
	}
	v := uint32(2166136261) // FNV-1a
	for i := 0; i < len(r.Op); i++ {
		v = (v ^ uint32(r.Op[i])) * 16777619
	}
	return uint16(v^v>>16) | 1
}

// keyHash hashes an encoded Key (the first keySize bytes of b) to a
// non-zero word, for the synchronisation network's sum of keys: a hash of
// everything but the root (baseHash), and the root mixed in (rootedHash),
// so that calls differing only by their root, as a broadcast's or a
// reduction's rotating one, hash without hashing the rest again.
func keyHash(b []byte) uint64 {
	return rootedHash(baseHash(b), keyRoot(b))
}

// baseHash hashes an encoded Key but its root.
func baseHash(b []byte) uint64 {
	v := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < keySize; i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if i == 0 {
			w &^= 0xffffff << 32 // the root
		}
		v = (v ^ w) * 0xbf58476d1ce4e5b9
		v ^= v >> 31
	}
	return v
}

// rootedHash mixes root into a baseHash.
func rootedHash(base uint64, root uint32) uint64 {
	v := base ^ uint64(root)*0x9e3779b97f4a7c15
	v ^= v >> 29
	v *= 0x94d049bb133111eb
	v ^= v >> 32
	return v | 1
}

// countsHash hashes a list of per-rank counts.
func countsHash(counts []int) uint64 {
	v := uint64(14695981039346656037) // FNV-1a over the counts' bytes
	for _, c := range counts {
		for i := 0; i < 64; i += 8 {
			v = (v ^ uint64(c)>>i&0xff) * 1099511628211
		}
	}
	return v | 1
}

func (k Key) String() string {
	s := k.Coll.String()
	switch {
	case k.Bytes >= 0:
		s += fmt.Sprintf(" of %d bytes", k.Bytes)
	default:
		s += fmt.Sprintf(" with own count %d bytes", k.Own)
	}
	switch {
	case k.Kind != 0:
		s += fmt.Sprintf(" of %v", reflect.Kind(k.Kind))
	case k.Elem != 0:
		s += fmt.Sprintf(" in %d-byte elements", k.Elem)
	}
	if k.Op != 0 {
		s += fmt.Sprintf(" op #%04x", k.Op)
	}
	switch k.Coll {
	case CollBcast, CollReduce, CollGather, CollGatherv, CollScatter, CollScatterv:
		s += fmt.Sprintf(" root %d", k.Root)
	}
	return s
}

// verify compares the keys of all n ranks (key(r) is rank r's) and
// describes the first difference. Every process that sees the same keys
// returns the same error.
func verify(n int, key func(r int) Key) error {
	for r := 0; r < n; r++ {
		if key(r).Bad {
			return fmt.Errorf("%w: rank %d passed invalid arguments to %v", ErrMismatch, r, key(r).Coll)
		}
	}
	k0 := key(0)
	var own []int
	for r := 0; r < n; r++ {
		k := key(r)
		if k.Coll != k0.Coll || k.Elem != k0.Elem || k.Kind != k0.Kind || k.Op != k0.Op || k.Root != k0.Root || k.Bytes != k0.Bytes {
			return fmt.Errorf("%w: rank 0 called %v, rank %d called %v", ErrMismatch, k0, r, k)
		}
		if k.Counts != 0 && own == nil {
			own = make([]int, n)
			for i := range own {
				own[i] = key(i).Own
			}
		}
	}
	if own == nil {
		return nil
	}
	h := countsHash(own)
	for r := 0; r < n; r++ {
		if c := key(r).Counts; c != 0 && c != h {
			return fmt.Errorf("%w: in %v, the counts rank %d passed differ from the ranks' own counts %v (bytes)",
				ErrMismatch, k0.Coll, r, own)
		}
	}
	return nil
}
