package llc

// LocalReceiver is what the tests' memory network (memnet_test.go) needs
// of the receiving half of a load/store transport: package shm's
// LocalMemory, which imports this package, and so is plugged in by
// shm_test.go, a test of package llc_test.
type LocalReceiver interface {
	Track(r RegionID, mem []byte)
	Forget(r RegionID)
	Watch(c *Command) error
	WatchLine(c *Command, mem []byte) error
	// WatchQueue reads the receive queue in mem of a job of procs
	// processes; release tells the network how far it was consumed.
	WatchQueue(mem []byte, procs int, release func(consumed uint64) error) error
	// HoldReads sets the quiet window of reads from peer, in ticks.
	HoldReads(peer int, ticks uint64)
	Poll(sink Sink) bool
	// Wrote tells the receiver what this process wrote to peer: a ring
	// record (0), a line record (1; 2 if it took the writer's own
	// extension lines) or a line's acknowledgement alone (3), as shm.Write
	// numbers them.
	Wrote(peer int, w uint8)
}

// NewLocalReceiver returns the receiver of process self's memory; set by
// shm_test.go.
var NewLocalReceiver func(self int) LocalReceiver

// TestMux is what the tests need of a transport over several networks
// (package mux's Mux, plugged in by mux_hook_test.go as the receiver is).
type TestMux interface {
	Transport
	SharedMemory
	PeerSharer
	YieldAdvisor
	Network(p int) string
	Serves(region RegionID, p int) bool
}

// NewTestMux returns a transport for a job of size processes over nets,
// nets[i] reaching the job processes procs[i]; set by mux_hook_test.go.
var NewTestMux func(size int, nets []Transport, procs [][]int) (TestMux, error)

// RegionNetShift places a network's index in the top bits of the
// regions a TestMux gives; set by mux_hook_test.go.
var RegionNetShift int
