package main

// Collectives move plain bytes. A buffer whose items are not contiguous
// (a vector, an indexed or resized datatype with gaps, a transpose) is
// staged: its items are packed into a contiguous copy, the collective
// moves the copy, and a buffer that receives is unpacked from the copy
// once the call has completed: before a blocking call returns, when a
// nonblocking one's request completes. A receiving buffer's items are
// packed too, since an in-place call reads the caller's own block from
// it. Contiguous buffers are the program's own bytes, as before. A
// persistent collective keeps its staged copies from round to round and
// packs them again before each round starts (refresh).

import "C"

import (
	"math"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// staging is the staged buffers of one call.
type staging struct {
	packs   []pack   // every staged copy, in the order made
	unpacks []unpack // the receiving ones' ranges
	round   bool     // a persistent collective's round was started, not yet unpacked
}

// pack is a staged copy: count items of dt of the program's bytes user
// packed into to, or with no dt a plain copy of user (an in-place side).
type pack struct {
	user, to []byte
	count    int
	dt       *mpi.Datatype
}

// unpack is a range of items to copy back from a packed copy into the
// program's buffer.
type unpack struct {
	from  []byte // the packed items
	to    []byte // the program's bytes, from the range's first item
	count int
	dt    *mpi.Datatype
}

// staged returns the packed copy of cb, which is not contiguous.
func (s *staging) staged(cb cbuf) ([]byte, error) {
	packed, err := cb.packed()
	if err == nil {
		s.packs = append(s.packs, pack{user: cb.bytes(), to: packed, count: cb.count, dt: cb.dt})
	}
	return packed, err
}

// send returns the bytes a collective sends for count items of datatype
// h at p: nil for MPI_IN_PLACE, the program's bytes when they are
// contiguous, else a packed copy.
func (s *staging) send(p unsafe.Pointer, count int64, h int32) ([]byte, error) {
	if isInPlace(p) {
		return nil, nil
	}
	cb, err := cbufOf(p, count, h)
	if err != nil || cb.dt == nil {
		return cb.bytes(), err
	}
	return s.staged(cb)
}

// recv returns the bytes a collective moves for count items of datatype
// h at p, a buffer it writes (and may read): the program's bytes when
// they are contiguous, else a packed copy that finish unpacks.
func (s *staging) recv(p unsafe.Pointer, count int64, h int32) ([]byte, error) {
	cb, err := cbufOf(p, count, h)
	if err != nil || cb.dt == nil {
		return cb.bytes(), err
	}
	packed, err := s.staged(cb)
	if err != nil {
		return nil, err
	}
	s.unpacks = append(s.unpacks, unpack{from: packed, to: cb.bytes(), count: cb.count, dt: cb.dt})
	return packed, nil
}

// copyOf returns a copy of b, which refresh makes again.
func (s *staging) copyOf(b []byte) []byte {
	c := append(make([]byte, 0, len(b)), b...)
	s.packs = append(s.packs, pack{user: b, to: c})
	return c
}

// v returns the bytes, and the counts and displacements in bytes, of a
// v-form's buffer of datatype h over n processes, with counts and
// displacements in items in cp and dp (C ints, or MPI_Count and MPI_Aint
// values of a _c form). Items that are not contiguous are packed over the
// whole span the blocks cover, so that a displacement of d items is d
// items' data into the copy; when recv is set, finish unpacks each block
// (and only the blocks) into the program's buffer.
func (s *staging) v(p unsafe.Pointer, cp, dp cArray, h int32, n int, recv bool) ([]byte, []int, []int, error) {
	size, ok := dataSize(h)
	if !ok {
		return nil, nil, nil, errorf(errType, "invalid datatype %#x", uint32(h))
	}
	if neg := negBoundsOf(h); neg != nil {
		return nil, nil, nil, errorf(errType, "a v-form buffer of a datatype of negative extent %d: not supported", neg.extent)
	}
	if err := cp.countsOK(n); err != nil {
		return nil, nil, nil, err
	}
	items := 0
	for i := 0; i < n && cp.p != nil && dp.p != nil; i++ {
		c, d := cp.at(i), dp.at(i)
		if c > 0 && d < 0 {
			return nil, nil, nil, errorf(errArg, "negative displacement %d of process %d", d, i)
		}
		if c > 0 && d > math.MaxInt-c {
			return nil, nil, nil, errorf(errCount, "count %d at displacement %d of process %d: past any buffer", c, d, i)
		}
		items = max(items, c+d)
	}
	cs, ds := cp.scaled(n, size), dp.scaled(n, size)
	cb, err := cbufOf(p, int64(items), h)
	if err != nil || cb.dt == nil {
		return cb.bytes(), cs, ds, err
	}
	packed, err := s.staged(cb)
	if err != nil || !recv {
		return packed, cs, ds, err
	}
	ext := cb.dt.Extent()
	for i := 0; i < n && cp.p != nil && dp.p != nil; i++ {
		if c := cp.at(i); c > 0 {
			s.unpacks = append(s.unpacks, unpack{from: packed[ds[i]:], to: cb.bytes()[dp.at(i)*ext:], count: c, dt: cb.dt})
		}
	}
	return packed, cs, ds, nil
}

// finish unpacks the staged buffers into the program's, after the call
// moved their packed copies.
func (s *staging) finish() error {
	for _, u := range s.unpacks {
		if _, err := mpi.Unpack(u.from, u.to, u.count, u.dt); err != nil {
			return err
		}
	}
	return nil
}

// after finishes a blocking call that returned err: it unpacks the
// staged buffers if the call succeeded.
func (s *staging) after(err error) error {
	if err != nil {
		return err
	}
	return s.finish()
}

// onDone returns what a nonblocking call's request runs when it
// completes: nil when nothing is staged. The copies were packed from the
// same buffers, counts and datatypes, so unpacking cannot fail.
func (s *staging) onDone() func() {
	if len(s.unpacks) == 0 {
		return nil
	}
	return func() { _ = s.finish() }
}

// refresh packs the staged copies again from the program's buffers, as
// a persistent collective's round starts.
func (s *staging) refresh() {
	for _, p := range s.packs {
		if p.dt == nil {
			copy(p.to, p.user)
			continue
		}
		_, _ = mpi.Pack(p.user, p.count, p.dt, p.to) // as first packed: cannot fail
	}
	s.round = true
}

// roundDone unpacks a persistent collective's round once: completing
// the request again while it is inactive finds no round to unpack.
func (s *staging) roundDone() {
	if s.round {
		_ = s.finish() // packed from the same buffers and datatypes: cannot fail
		s.round = false
	}
}
