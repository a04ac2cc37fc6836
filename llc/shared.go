package llc

import "fmt"

// SharedMemory is implemented by transports whose allocated memory
// (CmdAlloc) is mapped into the processes they reach, so that those load
// and store it directly (the martini network: every region of its
// segment is mapped into every process of its host). It is what
// shared-memory windows are made of.
type SharedMemory interface {
	// PeerMemory returns this process's view of region, memory that
	// process peer allocated with CmdAlloc, or an error if the network
	// does not map it here.
	PeerMemory(peer int, region RegionID) ([]byte, error)
}

// PeerSharer is implemented by transports over several networks (mux.Mux)
// that share memory with some processes only.
type PeerSharer interface {
	// SharesMemory reports whether the memory process peer allocates
	// can be mapped into this process.
	SharesMemory(peer int) bool
}

// PeerCapser is implemented by transports over several networks
// (mux.Mux), whose facts differ from peer to peer.
type PeerCapser interface {
	// PeerCaps returns the facts of the network that reaches peer.
	PeerCaps(peer int) Caps
}

// PeerCaps returns the facts of the network that reaches process peer:
// the transport's own unless it joins several networks (PeerCapser).
func (ep *Endpoint) PeerCaps(peer int) Caps {
	if m, ok := ep.tr.(PeerCapser); ok {
		return m.PeerCaps(peer)
	}
	return ep.tr.Caps()
}

// SharesMemory reports whether process peer's allocated memory can be
// mapped into this process (Endpoint.PeerMemory).
func (ep *Endpoint) SharesMemory(peer int) bool {
	if m, ok := ep.tr.(PeerSharer); ok {
		return m.SharesMemory(peer)
	}
	_, ok := ep.tr.(SharedMemory)
	return ok
}

// PeerMemory returns this process's view of region, memory that process
// peer allocated (an ExposeOp with a Size): plain memory this process
// loads and stores, valid until peer releases it. It fails unless the
// network that reaches peer shares memory (SharedMemory).
func (ep *Endpoint) PeerMemory(peer int, region RegionID) ([]byte, error) {
	sm, ok := ep.tr.(SharedMemory)
	if !ok {
		return nil, fmt.Errorf("llc: memory of process %d: the %s network shares no memory with this process", peer, ep.tr.Caps().Name)
	}
	ep.lock()
	defer ep.unlock()
	return sm.PeerMemory(peer, region)
}
