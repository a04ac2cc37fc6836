package datastore

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// AbortRequest is an MPI Abort that a rank reported through the data store.
type AbortRequest struct {
	Rank int    // the rank that called Abort
	Code int    // the error code it passed
	Msg  string // its message
}

// ErrServerClosed is returned by Serve for connections ended by Server.Close.
var ErrServerClosed = errors.New("datastore: server closed")

// Server is the launcher side of the data store of a job of a fixed number
// of ranks. Each rank has one connection, handled by Serve in a goroutine of
// its own.
//
// When a rank's connection ends without the rank having closed its Client
// (the rank died), every pending and later Get or Fence of the job fails with
// ErrRankLost instead of hanging. A rank that closed its Client cleanly can no
// longer take part in fences, so fences that still need it fail the same way,
// while Gets go on working.
type Server struct {
	// OnAbort, if not nil, is called when a rank reports an MPI Abort, before
	// the rank's Abort call returns. It is called from the goroutine serving
	// the rank and must not block for long. Set it before calling Serve.
	OnAbort func(AbortRequest)

	size int

	mu       sync.Mutex
	closed   bool
	lost     string // why the job is broken ("" while it is not)
	lostRank int    // the rank whose lost connection broke it, or -1
	kv       map[string]string
	getters  map[string][]waiter
	fences   map[int][]waiter // fence epoch -> ranks waiting in it
	ranks    []rankState
	// left is the rank that closed its client having entered the fewest
	// fences, leftFences; no fence past those can complete. left is -1
	// while every rank is still there.
	left, leftFences int
}

// waiter is a request waiting for an answer: a Get waiting for its key, or
// a Fence or FenceCollect waiting for the other ranks.
type waiter struct {
	rank int
	id   uint64

	collect bool   // a FenceCollect,
	prefix  string // collecting the keys that begin with prefix
}

type rankState struct {
	out    *sender // nil until Serve is called for the rank
	fences int     // number of fences the rank entered
	bye    bool    // the rank closed its client cleanly
	gone   bool    // the connection ended
}

// NewServer returns a Server for a job of size ranks.
func NewServer(size int) *Server {
	return &Server{
		size:     size,
		kv:       make(map[string]string),
		getters:  make(map[string][]waiter),
		fences:   make(map[int][]waiter),
		ranks:    make([]rankState, size),
		left:     -1,
		lostRank: -1,
	}
}

// Size returns the number of ranks the server was created for.
func (s *Server) Size() int { return s.size }

// Serve handles the connection of rank until it ends, then closes conn. It
// returns nil if the rank closed its client cleanly, ErrServerClosed if the
// connection was ended by Close, and otherwise an error saying how the
// connection was lost.
func (s *Server) Serve(rank int, conn Conn) error {
	defer conn.Close()
	out, err := s.register(rank, conn)
	if err != nil {
		return err
	}
	defer out.close()
	r := bufio.NewReader(conn)
	var rerr error
	for {
		f, err := readFrame(r)
		if err != nil {
			rerr = err
			break
		}
		s.handle(rank, out, f)
	}
	return s.disconnect(rank, rerr)
}

func (s *Server) register(rank int, conn Conn) (*sender, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case rank < 0 || rank >= s.size:
		return nil, fmt.Errorf("datastore: serve rank %d: out of range for a job of %d ranks", rank, s.size)
	case s.closed:
		return nil, ErrServerClosed
	case s.ranks[rank].out != nil:
		return nil, fmt.Errorf("datastore: serve rank %d: rank already has a connection", rank)
	}
	out := newSender(conn)
	s.ranks[rank].out = out
	return out, nil
}

func (s *Server) handle(rank int, out *sender, f frame) {
	switch f.kind {
	case opPut:
		s.put(rank, f)
	case opGet:
		s.get(rank, f)
	case opFence, opCollect:
		s.fence(rank, f)
	case opAbort:
		s.abort(rank, f)
	case opCancel:
		s.cancel(rank, f.id)
	case opBye:
		s.mu.Lock()
		s.ranks[rank].bye = true
		s.leave(rank)
		s.mu.Unlock()
	default:
		out.send(frame{kind: stErr, id: f.id, fields: []string{"unknown " + opName(f.kind)}})
	}
}

// reply sends a response to rank; s.mu must be held.
func (s *Server) reply(w waiter, kind byte, field string) {
	if out := s.ranks[w.rank].out; out != nil {
		out.send(frame{kind: kind, id: w.id, fields: []string{field}})
	}
}

func (s *Server) put(rank int, f frame) {
	if len(f.fields) != 2 {
		s.mu.Lock()
		s.reply(waiter{rank: rank, id: f.id}, stErr, "put: want key and value")
		s.mu.Unlock()
		return
	}
	key, value := f.fields[0], f.fields[1]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv[key] = value
	for _, w := range s.getters[key] {
		s.reply(w, stOK, value)
	}
	delete(s.getters, key)
	s.reply(waiter{rank: rank, id: f.id}, stOK, "")
}

func (s *Server) get(rank int, f frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := waiter{rank: rank, id: f.id}
	if len(f.fields) != 1 {
		s.reply(w, stErr, "get: want a key")
		return
	}
	key := f.fields[0]
	if v, ok := s.kv[key]; ok {
		s.reply(w, stOK, v)
		return
	}
	if s.lost != "" {
		s.reply(w, stLost, s.lost)
		return
	}
	s.getters[key] = append(s.getters[key], w)
}

func (s *Server) cancel(rank int, id uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, ws := range s.getters {
		for i, w := range ws {
			if w.rank == rank && w.id == id {
				ws = append(ws[:i], ws[i+1:]...)
				if len(ws) == 0 {
					delete(s.getters, key)
				} else {
					s.getters[key] = ws
				}
				return
			}
		}
	}
}

// fence enters rank into its next fence (a Fence, or a FenceCollect when f
// is a collect request). The fences of the job are numbered by epoch: a
// rank's n-th fence is epoch n, and the fence completes when all ranks have
// entered it.
func (s *Server) fence(rank int, f frame) {
	w := waiter{rank: rank, id: f.id}
	if f.kind == opCollect {
		if len(f.fields) != 1 {
			s.mu.Lock()
			s.reply(w, stErr, "collect: want a key prefix")
			s.mu.Unlock()
			return
		}
		w.collect, w.prefix = true, f.fields[0]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	epoch := s.ranks[rank].fences
	s.ranks[rank].fences++
	switch {
	case s.lost != "":
		s.reply(w, stLost, s.lost)
		return
	case s.left >= 0 && s.leftFences <= epoch:
		s.reply(w, stLost, leftWhy(s.left))
		return
	}
	s.fences[epoch] = append(s.fences[epoch], w)
	if len(s.fences[epoch]) == s.size { // every rank enters an epoch once
		s.release(epoch)
	}
}

// release answers every rank waiting in the fence of epoch, which is
// complete; s.mu must be held. A collection is built once per prefix and
// the same fields are sent to every rank that asked for it.
func (s *Server) release(epoch int) {
	collected := make(map[string]collection)
	for _, w := range s.fences[epoch] {
		if !w.collect {
			s.reply(w, stOK, "")
			continue
		}
		c, ok := collected[w.prefix]
		if !ok {
			c = s.collect(w.prefix)
			collected[w.prefix] = c
		}
		if c.err != "" {
			s.reply(w, stErr, c.err)
		} else if out := s.ranks[w.rank].out; out != nil {
			out.send(frame{kind: stOK, id: w.id, fields: c.fields})
		}
	}
	delete(s.fences, epoch)
}

// collection is the answer to a FenceCollect: the pairs as fields, or why
// they cannot be sent.
type collection struct {
	fields []string
	err    string
}

// collect returns the pairs whose key begins with prefix, sorted by key;
// s.mu must be held.
func (s *Server) collect(prefix string) collection {
	var keys []string
	for k := range s.kv {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	fields := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		fields = append(fields, k, s.kv[k])
	}
	if n := bodyLen(fields); n > maxFrame {
		return collection{err: fmt.Sprintf("collect %q: %d pairs take %d bytes, more than a frame holds (%d)", prefix, len(keys), n, maxFrame)}
	}
	return collection{fields: fields}
}

// leave records that rank closed its client: the fences it has not entered
// can no longer complete, and fail. s.mu must be held.
func (s *Server) leave(rank int) {
	n := s.ranks[rank].fences
	if s.left < 0 || n < s.leftFences {
		s.left, s.leftFences = rank, n
	}
	for epoch, ws := range s.fences {
		if n <= epoch {
			for _, w := range ws {
				s.reply(w, stLost, leftWhy(rank))
			}
			delete(s.fences, epoch)
		}
	}
}

func leftWhy(rank int) string {
	return fmt.Sprintf("rank %d closed its data store before entering the fence", rank)
}

func (s *Server) abort(rank int, f frame) {
	w := waiter{rank: rank, id: f.id}
	code, err := strconv.Atoi(f.field(0))
	if err != nil || len(f.fields) != 2 {
		s.mu.Lock()
		s.reply(w, stErr, "abort: want a decimal code and a message")
		s.mu.Unlock()
		return
	}
	if s.OnAbort != nil {
		s.OnAbort(AbortRequest{Rank: rank, Code: code, Msg: f.fields[1]})
	}
	s.mu.Lock()
	s.reply(w, stOK, "")
	s.mu.Unlock()
}

func (s *Server) disconnect(rank int, rerr error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &s.ranks[rank]
	st.gone = true
	st.out = nil
	// Forget the Gets the rank was waiting in: nobody is left to answer.
	for key, ws := range s.getters {
		kept := ws[:0]
		for _, w := range ws {
			if w.rank != rank {
				kept = append(kept, w)
			}
		}
		if len(kept) == 0 {
			delete(s.getters, key)
		} else {
			s.getters[key] = kept
		}
	}
	switch {
	case s.closed:
		return ErrServerClosed
	case st.bye:
		return nil // leave did the rest when the rank said bye
	}
	why := fmt.Sprintf("rank %d disconnected from the data store without closing it", rank)
	if !errors.Is(rerr, io.EOF) {
		why = fmt.Sprintf("rank %d: data store connection failed: %v", rank, rerr)
	}
	if s.lost == "" {
		s.lostRank = rank
	}
	s.breakJob(why)
	return fmt.Errorf("datastore: %s", why)
}

// LostRank returns the rank whose connection ended without its client
// having closed it, and so broke the job (its pending and later Gets and
// Fences failed because of it), if one did. A launcher can tell from it
// which rank the others failed because of, whichever ended first.
func (s *Server) LostRank() (rank int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lostRank, s.lostRank >= 0
}

// Value returns the value some rank put under key, if one did: what a
// launcher reads of the job once a rank has exited (launch.StateKey).
func (s *Server) Value(key string) (value string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	value, ok = s.kv[key]
	return value, ok
}

// breakJob fails every pending and later Get and Fence; s.mu must be held.
func (s *Server) breakJob(why string) {
	if s.lost != "" {
		return
	}
	s.lost = why
	for key, ws := range s.getters {
		for _, w := range ws {
			s.reply(w, stLost, why)
		}
		delete(s.getters, key)
	}
	for epoch, ws := range s.fences {
		for _, w := range ws {
			s.reply(w, stLost, why)
		}
		delete(s.fences, epoch)
	}
}

// Close fails every pending request with ErrRankLost and ends all
// connections; Serve then returns ErrServerClosed.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.breakJob("the launcher closed the data store")
	s.closed = true
	var outs []*sender
	for _, st := range s.ranks {
		if st.out != nil {
			outs = append(outs, st.out)
		}
	}
	s.mu.Unlock()
	for _, out := range outs {
		out.closeConn()
	}
	return nil
}

// sender writes the responses to one connection from a goroutine of its own,
// so that a rank that does not read its socket cannot stall the server.
type sender struct {
	conn Conn
	wake chan struct{}
	done chan struct{}

	mu     sync.Mutex
	queue  []frame
	closed bool
}

// closeGrace bounds how long a closing sender tries to deliver what it has
// queued.
const closeGrace = time.Second

func newSender(conn Conn) *sender {
	s := &sender{conn: conn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *sender) send(f frame) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, f)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sender) run() {
	defer close(s.done)
	w := bufio.NewWriter(s.conn)
	var buf []byte
	for {
		<-s.wake
		s.mu.Lock()
		q, closed := s.queue, s.closed
		s.queue = nil
		s.mu.Unlock()
		buf = buf[:0]
		for _, f := range q {
			buf = appendFrame(buf, f)
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		if err := w.Flush(); err != nil {
			return
		}
		if closed {
			return
		}
	}
}

// close delivers what is queued (for at most closeGrace) and stops the
// sender.
func (s *sender) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.conn.SetWriteDeadline(time.Now().Add(closeGrace))
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.done
}

// closeConn flushes and stops the sender, then closes the connection, which
// ends the Serve loop of its rank.
func (s *sender) closeConn() {
	s.close()
	s.conn.Close()
}
