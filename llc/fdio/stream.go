package fdio

import "golang.org/x/sys/unix"

// Stream is what arrived from one descriptor of a byte stream and is not
// consumed yet: a buffer of it, and the payload that is being read
// straight into its destination past the buffer (or skipped), so that a
// large payload is copied once, from the kernel to where it goes. The
// translator parses the buffer (Unread, Consume) and hands a payload it
// does not want in the buffer to Take. The zero Stream has no buffer yet
// (Alloc).
type Stream struct {
	buf  []byte // buf[r:w] is unread
	r, w int
	dst  []byte // the rest of a payload, read straight here
	skip uint64 // or this many bytes of it to discard
}

// Alloc gives the stream a buffer of size bytes, if it has none.
func (s *Stream) Alloc(size int) {
	if s.buf == nil {
		s.buf = make([]byte, size)
	}
}

// Unread returns the bytes of the buffer not consumed yet.
func (s *Stream) Unread() []byte { return s.buf[s.r:s.w] }

// Consume drops the first n unread bytes.
func (s *Stream) Consume(n int) { s.r += n }

// Streaming reports whether a payload handed to Take is still being read
// past the buffer.
func (s *Stream) Streaming() bool { return len(s.dst) > 0 || s.skip > 0 }

// Take consumes n bytes of payload that start at the unread bytes' from:
// those already in the buffer go to dst (nil: dropped) at once, the rest
// will be read straight into dst (or discarded) by the next Reads. It
// consumes the from bytes before them too, and reports whether the
// payload is all consumed already.
func (s *Stream) Take(from int, n uint64, dst []byte) bool {
	k := min(n, uint64(s.w-s.r-from))
	if dst != nil {
		copy(dst, s.buf[s.r+from:s.r+from+int(k)])
	}
	s.r += from + int(k)
	if k == n {
		return true
	}
	s.r, s.w = 0, 0 // the buffer is empty
	if dst != nil {
		s.dst = dst[k:]
	} else {
		s.skip = n - k
	}
	return false
}

// Read reads from fd into the payload being taken, or else into the
// buffer, first moving the unread bytes to its start if fewer than room
// bytes are left after them; it returns how many bytes it asked for and
// got.
func (s *Stream) Read(fd, room int) (want, n int, err unix.Errno) {
	var b []byte
	switch {
	case len(s.dst) > 0:
		b = s.dst
	case s.skip > 0:
		b = s.buf[:min(uint64(len(s.buf)), s.skip)]
	default:
		if s.r == s.w {
			s.r, s.w = 0, 0
		} else if len(s.buf)-s.r < room {
			s.w = copy(s.buf, s.buf[s.r:s.w])
			s.r = 0
		}
		b = s.buf[s.w:]
	}
	n, err = Read(fd, b)
	switch {
	case n <= 0:
		return len(b), 0, err
	case len(s.dst) > 0:
		if s.dst = s.dst[n:]; len(s.dst) == 0 {
			s.dst = nil // keep the destination no longer alive
		}
	case s.skip > 0:
		s.skip -= uint64(n)
	default:
		s.w += n
	}
	return len(b), n, 0
}
