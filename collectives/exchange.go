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
	// Whole marks a receive whose sender has other work while the
	// message is in flight (a linear scatter's root, copying its own
	// block): a Net that can have the receiver alone copy the message
	// does so, rather than share the copy with that sender.
	Whole bool
}

// Exchanger is implemented by a Net that can have several messages in
// flight at once. Exchange posts every receive of recvs and every send of
// sends and returns when all are done; messages to or from one rank keep
// their order. Like Sendrecv, it does not deadlock against the matching
// exchanges of the peers, whatever order they post in.
type Exchanger interface {
	Exchange(sends, recvs []Transfer) error
}

// CopyingExchanger is an Exchanger that makes the caller's own copy while
// an exchange's messages are in flight: ExchangeCopying posts every send
// and receive as Exchange does, copies src into dst, then waits for them
// all.
type CopyingExchanger interface {
	Exchanger
	ExchangeCopying(sends, recvs []Transfer, dst, src []byte) error
}

// ownCopy is a copy a process makes of its own block during an exchange
// (CopyingExchanger), or none.
type ownCopy struct{ dst, src []byte }

// do makes the copy (none for the zero ownCopy).
func (o ownCopy) do() { copy(o.dst, o.src) }

// exchangeWindow is how many steps of a pairwise schedule the linear
// algorithms have in flight at once: enough for every peer of the
// process counts where ranks outnumber cores on small machines, few
// enough that a large communicator does not post a receive per rank.
const exchangeWindow = 8

// exchange moves sends[i] and recvs[i] for every i, sends tainted after a
// mismatch, and checks that every receive got exactly len(Data) bytes.
// One of sends and recvs may be empty (a one-way exchange); otherwise
// they are as long as each other. A Net that is no Exchanger does the
// pairs one after the other, by Sendrecv, or the one-way transfers one
// after the other.
func (c *call) exchange(sends, recvs []Transfer) error {
	return c.exchangeCopying(sends, recvs, ownCopy{})
}

// exchangeCopying is exchange that also makes own: while the messages
// are in flight where the Net is a CopyingExchanger, after them
// otherwise.
func (c *call) exchangeCopying(sends, recvs []Transfer, own ownCopy) error {
	for i := range sends {
		sends[i].Data = c.taint(sends[i].Data)
	}
	var err error
	switch x := c.Net.(type) {
	case CopyingExchanger:
		err = x.ExchangeCopying(sends, recvs, own.dst, own.src)
		own = ownCopy{}
	case Exchanger:
		err = x.Exchange(sends, recvs)
	default:
		// The receives in turn check their lengths themselves.
		err = c.exchangeInTurn(sends, recvs)
		own.do()
		return err
	}
	own.do()
	if err != nil {
		return err
	}
	for _, r := range recvs {
		c.checkLen(r.Peer, r.Len, len(r.Data))
	}
	return nil
}

// exchangeInTurn is exchange one transfer or pair after the other, sends
// already tainted.
func (c *call) exchangeInTurn(sends, recvs []Transfer) error {
	for i := range max(len(sends), len(recvs)) {
		var err error
		switch {
		case len(recvs) == 0:
			err = c.Send(sends[i].Peer, sends[i].Data)
		case len(sends) == 0:
			err = c.recv(recvs[i].Peer, recvs[i].Data)
		default:
			err = c.sendrecv(sends[i].Peer, sends[i].Data, recvs[i].Peer, recvs[i].Data)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// exchangeScratch holds the transfers of one exchange of exchangeSteps.
type exchangeScratch struct{ sends, recvs [exchangeWindow]Transfer }

// scratch returns the call's exchangeScratch, made on first use.
func (c *call) scratch() *exchangeScratch {
	if c.xfer == nil {
		c.xfer = new(exchangeScratch)
	}
	return c.xfer
}

// exchangeSteps runs steps 1 to size-1 of a pairwise schedule, up to
// exchangeWindow at once: in step s the process sends out(rank+s) to
// rank+s and receives in(rank-s) from rank-s. A nil out or in makes the
// steps one-way: receives only or sends only.
func (c *call) exchangeSteps(out, in func(peer int) []byte) error {
	return c.steps(out, in, exchangeWindow, ownCopy{})
}

// steps is exchangeSteps with window steps at once; own is made during
// the first window's exchange (exchangeCopying).
func (c *call) steps(out, in func(peer int) []byte, window int, own ownCopy) error {
	size, rank := c.Size(), c.Rank()
	x := c.scratch()
	sends, recvs := &x.sends, &x.recvs
	defer clear(sends[:]) // no buffer stays referenced
	defer clear(recvs[:])
	for first := 1; first < size; first += window {
		ns, nr := 0, 0
		for s := first; s < size && s < first+window; s++ {
			if to := (rank + s) % size; out != nil {
				sends[ns] = Transfer{Peer: to, Data: out(to)}
				ns++
			}
			if from := (rank - s + size) % size; in != nil {
				recvs[nr] = Transfer{Peer: from, Data: in(from)}
				nr++
			}
		}
		err := c.exchangeCopying(sends[:ns], recvs[:nr], own)
		if own = (ownCopy{}); err != nil {
			return err
		}
	}
	own.do() // no window: one process
	return nil
}

// recvExchanged receives exactly len(buf) bytes from rank from as a
// one-way exchange of one receive: an Exchanger may read it whole where
// its receives from several senders would be (mpi's reads whole where
// processes outnumber cores, rather than splitting the copy with a
// sender busy with its other receivers).
func (c *call) recvExchanged(from int, buf []byte) error {
	r := c.scratch().recvs[:1]
	defer clear(r) // no buffer stays referenced
	r[0] = Transfer{Peer: from, Data: buf, Whole: true}
	return c.exchange(nil, r)
}

// sendEach sends block(i) to every rank i but the caller, in the order of
// the ranks after the caller's: together (up to exchangeWindow at once), so
// that the ranks whose turn comes late need not wait for those the
// scheduler runs before them, or one after the other.
func (c *call) sendEach(block func(i int) []byte, together bool) error {
	return c.steps(block, nil, eachWindow(together), ownCopy{})
}

// sendEachCopying is sendEach that copies src into dst while the first
// sends are in flight (exchangeCopying): a root's copy of its own block.
func (c *call) sendEachCopying(block func(i int) []byte, together bool, dst, src []byte) error {
	return c.steps(block, nil, eachWindow(together), ownCopy{dst, src})
}

// recvEach receives block(i) from every rank i but the caller, like
// sendEach: together or one after the other.
func (c *call) recvEach(block func(i int) []byte, together bool) error {
	return c.steps(nil, block, eachWindow(together), ownCopy{})
}

// eachWindow is the window of sendEach and recvEach.
func eachWindow(together bool) int {
	if together {
		return exchangeWindow
	}
	return 1
}
