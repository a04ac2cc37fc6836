package llc

// The host copies of the PM message layers (EagerPM, EagerQueue), counted
// as host work for a transport that charges them (HostCharger): MPICH-SCore
// copies a message's payload from the user's buffer into PM's send buffer
// and, at the receiver, out of PM's receive buffer into the user's (thesis
// 8.5); PM/RHiNET zeroes a receive buffer on release, since its receiver
// polls for headers and trailers in zeroed memory (8.3.1). A rendezvous
// message is counted as the PM messages MPICH-SCore would have sent it in.

// countRecvCopy counts the host work of taking record m (body) out of the
// receive buffer: in EagerPM the zeroing of its bytes, and the copy of an
// eager or unsolicited message's payload into the user's buffer (a message
// in several records once, whole, at its first record).
func (e *Engine) countRecvCopy(m *meta, body []byte) {
	if e.pm {
		e.addWork(WorkZero, recMeta+len(body))
	}
	switch {
	case m.kind == recPart:
	case m.flags&flagParts != 0:
		total, _ := partsTotal(body)
		e.addCopy(total)
	case m.kind == recEager || m.kind == recUnsolicited:
		e.addCopy(len(body))
	}
}

// countRndvCopy counts a rendezvous message of n bytes as the PM messages
// MPICH-SCore sends every message in: its copy at this end and, received
// under EagerPM, the zeroing of the buffers it passed through; under
// ZeroCopy as nothing (PM's remote memory access moves it).
func (e *Engine) countRndvCopy(n int, recv bool) {
	if e.cfg.ZeroCopy {
		return
	}
	e.addCopy(n)
	if recv && e.pm && e.countsWork {
		e.addWork(WorkZero, n)
	}
}
