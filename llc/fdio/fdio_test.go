package fdio

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
	"golang.org/x/sys/unix"
)

// pipe returns a non-blocking pipe, closed when the test ends.
func pipe(t *testing.T) (r, w int) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], p[1]
}

// Read, Write and Writev move bytes through non-blocking descriptors and
// say EAGAIN when there is nothing to read.
func TestReadWrite(t *testing.T) {
	r, w := pipe(t)
	buf := make([]byte, 16)
	if _, err := Read(r, buf); err != unix.EAGAIN {
		t.Fatalf("read of an empty pipe: %v, want EAGAIN", err)
	}
	if n, err := Write(w, []byte("ab")); n != 2 || err != 0 {
		t.Fatalf("write: %d, %v", n, err)
	}
	a, b := []byte("cd"), []byte("efg")
	iov := []unix.Iovec{{Base: &a[0]}, {Base: &b[0]}}
	iov[0].SetLen(len(a))
	iov[1].SetLen(len(b))
	if n, err := Writev(w, iov); n != 5 || err != 0 {
		t.Fatalf("writev: %d, %v", n, err)
	}
	if n, err := Read(r, buf); string(buf[:n]) != "abcdefg" || err != 0 {
		t.Fatalf("read %q, %v; want abcdefg", buf[:n], err)
	}
	if _, err := Write(-1, []byte("x")); err != unix.EBADF {
		t.Fatalf("a write to no descriptor: %v, want EBADF", err)
	}
}

// Accept takes a connection from a listener as a non-blocking
// descriptor, and says EAGAIN when none waits.
func TestAccept(t *testing.T) {
	lfd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lfd)
	if err := unix.Bind(lfd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(lfd, 1); err != nil {
		t.Fatal(err)
	}
	if _, e := Accept(lfd); e != unix.EAGAIN {
		t.Fatalf("accept with no connection waiting: %v, want EAGAIN", e)
	}
	sa, _ := unix.Getsockname(lfd)
	cfd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(cfd)
	if err := unix.Connect(cfd, sa); err != nil {
		t.Fatal(err)
	}
	fd, e := Accept(lfd)
	if e != 0 {
		t.Fatalf("accept: %v", e)
	}
	defer unix.Close(fd)
	if fl, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); fl&unix.O_NONBLOCK == 0 {
		t.Error("the accepted connection blocks")
	}
}

// within runs f, failing the test if it takes a minute.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("still asleep after a minute")
	}
}

// Sleep returns when a descriptor it waits on is ready or Wake is called,
// and at once for a ticket that a Wake made stale; every Sleep disarms.
func TestSleeper(t *testing.T) {
	s, err := NewSleeper(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, w := pipe(t)
	s.Set([]unix.PollFd{{Fd: int32(r), Events: unix.POLLIN}})
	asleep := func(wake func()) {
		t.Helper()
		before := s.Sleeps()
		within(t, func() {
			go func() {
				for s.Sleeps() == before {
					time.Sleep(time.Millisecond)
				}
				wake()
			}()
			s.Sleep(s.Arm())
		})
	}
	asleep(s.Wake)
	asleep(func() { Write(w, []byte{1}) })
	ticket := s.Arm()
	s.Wake()
	before := s.Sleeps()
	s.Sleep(ticket)
	if s.Sleeps() != before || s.sleepers.Load() != 0 {
		t.Fatal("Sleep with a stale ticket slept, or did not disarm")
	}
}

// drain takes what q gathers, at most step bytes a write (as a descriptor
// that takes part of a write would), and
// returns what came out and the completions.
func drain(t *testing.T, q *Queue, step int) ([]byte, []llc.Event) {
	t.Helper()
	var out []byte
	var late []llc.Event
	for !q.Empty() {
		iov := q.Gather(make([]unix.Iovec, 0, MaxIov))
		n := 0
		for _, v := range iov {
			b := unsafe.Slice(v.Base, v.Len)
			k := min(len(b), step-n)
			out = append(out, b[:k]...)
			if n += k; n == step {
				break
			}
		}
		q.Consume(n, &late)
	}
	return out, late
}

// A Queue writes owned bytes and referenced data in the order added,
// across partial writes, and completes a kept reference once it is
// written whole.
func TestQueue(t *testing.T) {
	var q Queue
	big := bytes.Repeat([]byte("B"), CopyMax+1)
	copy(q.Reserve(2), "h1")
	if q.Add([]byte("x"), []byte("small")) {
		t.Fatal("small data was referenced")
	}
	copy(q.Reserve(2), "h2")
	if !q.Add(nil, big) || !q.Keep(7, CopyMax) {
		t.Fatal("large data was not referenced and kept")
	}
	copy(q.Reserve(2), "h3")
	want := "h1xsmallh2" + string(big) + "h3"
	if n := q.Len(); n != len(want) {
		t.Fatalf("Len %d, want %d", n, len(want))
	}
	q.Gather(make([]unix.Iovec, 0, MaxIov))
	var none []llc.Event
	q.Consume(3, &none)
	if n := q.Len(); n != len(want)-3 {
		t.Fatalf("Len %d after 3 bytes written, want %d", n, len(want)-3)
	}
	out, late := drain(t, &q, 1000)
	out = append([]byte(want[:3]), out...)
	if q.Len() != 0 {
		t.Fatalf("Len %d once written", q.Len())
	}
	if string(out) != want {
		t.Fatalf("wrote %d bytes, not those added", len(out))
	}
	if len(late) != 1 || late[0].Kind != llc.EvDone || late[0].Token != 7 {
		t.Fatalf("completions %+v, want token 7's", late)
	}
	// Data not kept is copied in: the caller may reuse its buffer.
	copy(q.Reserve(2), "h4")
	q.Add(nil, big)
	if q.Keep(0, 0) {
		t.Fatal("a reference without a token was kept")
	}
	big[0] = 'Z'
	if out, _ = drain(t, &q, 1<<20); string(out) != "h4"+strings.Repeat("B", CopyMax+1) {
		t.Fatal("the copied data changed with the caller's buffer")
	}
	// Fail fails the kept references not written and empties the queue.
	q.Reserve(2)
	q.Add(nil, big)
	q.Keep(9, 0)
	late = nil
	q.Fail(errors.New("gone"), &late)
	if !q.Empty() || len(late) != 1 || late[0].Kind != llc.EvError || late[0].Token != 9 {
		t.Fatalf("after Fail: empty %v, events %+v", q.Empty(), late)
	}
}

// A Stream buffers what arrives, and a payload handed to Take goes
// straight to its destination, the part already buffered at once and the
// rest by the next Reads; a skipped payload is read and dropped.
func TestStream(t *testing.T) {
	r, w := pipe(t)
	var s Stream
	s.Alloc(16)
	Write(w, []byte("HHabcdefghij"))
	if _, n, err := s.Read(r, 8); n != 12 || err != 0 {
		t.Fatalf("read %d bytes, %v", n, err)
	}
	dst := make([]byte, 20)
	if s.Take(2, 20, dst) || !s.Streaming() {
		t.Fatal("a payload longer than the buffered bytes was taken whole")
	}
	Write(w, []byte("klmnopqrstXY"))
	if want, n, _ := s.Read(r, 8); want != 10 || n != 10 || s.Streaming() {
		t.Fatalf("read %d of %d bytes into the payload; streaming %v", n, want, s.Streaming())
	}
	if string(dst) != "abcdefghijklmnopqrst" {
		t.Fatalf("payload %q", dst)
	}
	if _, n, _ := s.Read(r, 8); n != 2 || string(s.Unread()) != "XY" {
		t.Fatalf("after the payload: %q", s.Unread())
	}
	s.Consume(2)
	Write(w, []byte("H12345"))
	s.Read(r, 8)
	if s.Take(1, 9, nil) || !s.Streaming() {
		t.Fatal("a skipped payload was taken whole")
	}
	Write(w, []byte("6789Z"))
	s.Read(r, 8)
	if s.Streaming() {
		t.Fatal("still skipping after the payload's end")
	}
	if s.Read(r, 8); string(s.Unread()) != "Z" {
		t.Fatalf("after the skipped payload: %q", s.Unread())
	}
}
