package collectives

// Exchanges: several messages in flight at once.
//
// A pairwise exchange moves one pair of messages a step, and every step
// waits for its two peers. When ranks outnumber cores, a peer is often
// not running: the step waits for the scheduler to run it, while the
// peers of later steps, which are running, have their data ready. An
// exchange that posts the receives and sends of several steps at once
// lets whichever peer runs move its data (a rendezvous receiver reads
// from any peer that has arrived), and waits for them all at the end.

// Transfer is one message of an exchange: to or from rank Peer, the
// data to send or the buffer to receive into. After the exchange, Len of
// a receive is the length of the message that arrived, which may exceed
// len(Data) as with Net.Recv.
type Transfer struct {
	Peer int
	Data []byte
	Len  int
}

// Exchanger is implemented by a Net that can have several messages in
// flight at once. Exchange posts every receive of recvs and every send of
// sends and returns when all are done; messages to or from one rank keep
// their order. Like Sendrecv, it does not deadlock against the matching
// exchanges of the peers, whatever order they post in.
type Exchanger interface {
	Exchange(sends, recvs []Transfer) error
}

// exchangeWindow is how many steps of a pairwise schedule the linear
// algorithms have in flight at once: enough for every peer of the
// process counts where ranks outnumber cores on small machines, few
// enough that a large communicator does not post a receive per rank.
const exchangeWindow = 8

// exchange moves sends[i] and recvs[i] for every i, sends tainted after a
// mismatch, and checks that every receive got exactly len(Data) bytes. A
// Net that is no Exchanger does the pairs one after the other, by
// Sendrecv.
func (c *call) exchange(sends, recvs []Transfer) error {
	for i := range sends {
		sends[i].Data = c.taint(sends[i].Data)
	}
	x, ok := c.Net.(Exchanger)
	if !ok {
		for i := range sends {
			if err := c.sendrecv(sends[i].Peer, sends[i].Data, recvs[i].Peer, recvs[i].Data); err != nil {
				return err
			}
		}
		return nil
	}
	if err := x.Exchange(sends, recvs); err != nil {
		return err
	}
	for _, r := range recvs {
		c.checkLen(r.Peer, r.Len, len(r.Data))
	}
	return nil
}

// exchangeScratch holds the transfers of one exchange of exchangeSteps.
type exchangeScratch struct{ sends, recvs [exchangeWindow]Transfer }

// exchangeSteps runs steps 1 to size-1 of a pairwise schedule, up to
// exchangeWindow at once: in step s the process sends out(rank+s) to
// rank+s and receives in(rank-s) from rank-s.
func (c *call) exchangeSteps(out, in func(peer int) []byte) error {
	size, rank := c.Size(), c.Rank()
	if c.xfer == nil {
		c.xfer = new(exchangeScratch)
	}
	sends, recvs := &c.xfer.sends, &c.xfer.recvs
	defer clear(sends[:]) // no buffer stays referenced
	defer clear(recvs[:])
	for first := 1; first < size; first += exchangeWindow {
		k := 0
		for s := first; s < size && k < exchangeWindow; s++ {
			to, from := (rank+s)%size, (rank-s+size)%size
			sends[k] = Transfer{Peer: to, Data: out(to)}
			recvs[k] = Transfer{Peer: from, Data: in(from)}
			k++
		}
		if err := c.exchange(sends[:k], recvs[:k]); err != nil {
			return err
		}
	}
	return nil
}

// sendEach sends block(i) to every rank i but the caller, in the order of
// the ranks after the caller's: together (up to exchangeWindow at once,
// where the Net is an Exchanger), so that the ranks whose turn comes late
// need not wait for those the scheduler runs before them, or one after
// the other.
func (c *call) sendEach(block func(i int) []byte, together bool) error {
	return c.each(block, together, true)
}

// recvEach receives block(i) from every rank i but the caller, like
// sendEach: together or one after the other.
func (c *call) recvEach(block func(i int) []byte, together bool) error {
	return c.each(block, together, false)
}

// each is sendEach (send) or recvEach.
func (c *call) each(block func(i int) []byte, together, send bool) error {
	size, rank := c.Size(), c.Rank()
	if _, ok := c.Net.(Exchanger); !ok || !together {
		for s := 1; s < size; s++ {
			peer := (rank + s) % size
			var err error
			if send {
				err = c.pass(peer, block(peer))
			} else {
				err = c.recv(peer, block(peer))
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if c.xfer == nil {
		c.xfer = new(exchangeScratch)
	}
	ts := &c.xfer.recvs
	if send {
		ts = &c.xfer.sends
	}
	defer clear(ts[:]) // no buffer stays referenced
	for first := 1; first < size; first += exchangeWindow {
		k := 0
		for s := first; s < size && k < exchangeWindow; s++ {
			peer := (rank + s) % size
			ts[k] = Transfer{Peer: peer, Data: block(peer)}
			k++
		}
		var err error
		if send {
			err = c.exchange(ts[:k], nil)
		} else {
			err = c.exchange(nil, ts[:k])
		}
		if err != nil {
			return err
		}
	}
	return nil
}
