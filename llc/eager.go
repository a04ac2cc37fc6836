package llc

import "fmt"

// EagerMode selects the eager transport: how eager messages and every
// control record (RTS, CTS, FIN, PUT, unsolicited messages) travel.
type EagerMode uint8

// Eager transports.
const (
	// EagerRings: a ring per sender, granted by the receiver on the
	// sender's first contact (lazy connection), records packed in 64-byte
	// cells (after Liu, Wu and Panda). The default.
	EagerRings EagerMode = iota
	// EagerPM: PM/RHiNET (thesis 8.3): the same per-sender rings, but
	// every process connects to every process when its engine starts,
	// every record starts at a PMAlign-aligned position of its ring, the
	// receiver checks every inbound ring on every poll, and the host work
	// of PM's library calls is reported (see HostCharger).
	EagerPM
	// EagerQueue: PM/RHiNET-VP (thesis 8.4): no rings; every process has
	// one receive queue (CmdAllocQueue) into which every sender enqueues
	// its records (CmdEnqueue), so a poll checks one place however many
	// peers there are. Records are at most MaxRecord bytes; a larger
	// eager message travels as several records (parts.go), up to
	// MaxQueueEagerLimit. Host work is reported.
	EagerQueue
)

func (m EagerMode) String() string {
	switch m {
	case EagerRings:
		return "rings"
	case EagerPM:
		return "pm"
	case EagerQueue:
		return "queue"
	}
	return fmt.Sprintf("EagerMode(%d)", m)
}

// WorkCounts counts host work of the PM message layers, indexed by
// HostWork. Only EagerPM and EagerQueue count; a Ready batch reports the
// work done since the last batch, for a driver whose transport is a
// HostCharger to charge.
type WorkCounts [WorkPoll + 1]int
