package llc

import (
	"fmt"

	"github.com/rhinet-go/martini/llc/layout"
)

// PM/RHiNET (EagerPM) over the eager rings.
//
// Start-up: NewEngine starts the connection protocol (connect.go) towards
// every process, itself included, so that every receiver grants its rings
// for all senders up front. A process that loses a responder's common
// command slot tries again on its next poll, whether or not it has
// anything to send; sends issued before a connection is up wait in the
// peer's queue, as in the lazy mode. No process ever waits for another
// synchronously: requests are served and replies taken on every poll, so
// the handshakes cannot deadlock as long as every process polls (every
// wait of an Endpoint does). Idle is false until every connection this
// process initiated is settled (up or refused), so that Finalize does not
// leave a handshake half done.
//
// Records: a record's size is rounded up to PMAlign, so every record (and
// every wrap marker) starts at a PMAlign-aligned position of the ring, as
// PM/RHiNET's PUSH destinations are.
//
// Host work: WorkSend per record written, WorkRecv per record consumed,
// WorkPoll per inbound ring checked on each Poll.

// PMAlign is the alignment of records in the rings of EagerPM: the MTU of
// RHiNET-2, to which PM/RHiNET aligns its receive positions.
const PMAlign = 2048

// pmRecordSize rounds the ring record size n up to PMAlign.
func pmRecordSize(n uint64) uint64 { return (n + PMAlign - 1) &^ (PMAlign - 1) }

// checkPM checks the ring configuration of EagerPM: a ring must hold two
// records of the eager limit.
func checkPM(cfg *Config) error {
	rec := pmRecordSize(layout.RecordSize(cfg.EagerLimit))
	if 2*rec > uint64(cfg.RingSize) {
		return fmt.Errorf("llc: rings of %d bytes hold fewer than 2 PM records (a record of the eager limit %d takes %d bytes, rounded up to %d-byte boundaries); use rings of at least %d bytes",
			cfg.RingSize, cfg.EagerLimit, rec, PMAlign, 2*rec)
	}
	return nil
}

// startPM starts the connection to every process.
func (e *Engine) startPM() {
	for dst := range e.peers {
		if !e.queuePeer(dst) {
			e.pmPending++
			e.connect(dst)
		}
	}
}

// queuePeer reports whether process p is reached through the receive
// queue in a ring mode (Config.QueuePeers).
func (e *Engine) queuePeer(p int) bool { return e.cfg.QueuePeers != nil && e.cfg.QueuePeers[p] }

// connSettled notes that the connection to a peer is up or was refused.
func (e *Engine) connSettled() {
	if e.pm && e.pmPending > 0 {
		e.pmPending--
	}
}

// pollPM retries the connections whose slot was taken and counts the
// poll of every inbound ring, which the transport reads.
func (e *Engine) pollPM() {
	if e.pmPending > 0 {
		for dst := range e.peers {
			if e.peers[dst].conn == connIdle && !e.queuePeer(dst) {
				e.connect(dst)
			}
		}
	}
	e.addWork(WorkPoll, e.rings)
}
