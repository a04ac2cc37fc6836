package softmem

import "github.com/rhinet-go/martini/llc"

// Requests are the reads, compare-and-swaps and fetch-and-adds that a
// process sent to one peer and whose answers have not come, oldest first:
// a peer that serves them in order (Memory.Serve) answers them in order.
// The zero Requests is empty.
type Requests struct {
	q    []Request
	head int
}

// Request is one of Requests: its command's kind and token, and where
// its answer's bytes go: a read's destination, a combination's Result.
type Request struct {
	Kind  llc.CmdKind
	Token uint64
	Data  []byte
}

// Add appends c's request.
func (r *Requests) Add(c *llc.Command) {
	data := c.Data
	if c.Kind == llc.CmdCombine {
		data = c.Result
	}
	r.q = append(r.q, Request{Kind: c.Kind, Token: c.Token, Data: data})
}

// Oldest returns the oldest request, or nil when none waits.
func (r *Requests) Oldest() *Request {
	if r.head == len(r.q) {
		return nil
	}
	return &r.q[r.head]
}

// Pop removes and returns the oldest request, which must wait.
func (r *Requests) Pop() Request {
	q := r.q[r.head]
	r.q[r.head] = Request{}
	if r.head++; r.head == len(r.q) {
		r.q, r.head = r.q[:0], 0
	}
	return q
}

// Fail empties the requests; each with a token fails with err, in late.
func (r *Requests) Fail(err error, late *[]llc.Event) {
	for _, q := range r.q[r.head:] {
		if q.Token != 0 {
			*late = append(*late, llc.Event{Kind: llc.EvError, Token: q.Token, Err: err})
		}
	}
	*r = Requests{}
}

// Serve performs a request of kind CmdRead, CmdCAS or CmdFetchAdd that a
// peer sent on the word or bytes at (id, off): a read of a bytes returns
// them; a compare-and-swap (old a, new b) or fetch-and-add (addend b) the
// previous word.
func (m *Memory) Serve(kind llc.CmdKind, id llc.RegionID, off, a, b uint64) (uint64, []byte, error) {
	if kind == llc.CmdRead {
		data, err := m.Span(id, off, a)
		return 0, data, err
	}
	v, err := m.Atomic(kind, id, off, a, b)
	return v, nil, err
}
