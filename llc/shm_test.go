package llc_test

import (
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/shm"
)

// The tests' memory network receives with package shm.
func init() {
	llc.NewLocalReceiver = func(self int) llc.LocalReceiver { return receiver{shm.NewLocalMemory(self)} }
}

// receiver adapts shm.LocalMemory to llc.LocalReceiver.
type receiver struct{ *shm.LocalMemory }

func (r receiver) Wrote(peer int, w uint8) { r.LocalMemory.Wrote(peer, shm.Write(w)) }

func (r receiver) WatchQueue(mem []byte, procs int, release func(uint64) error) error {
	q, err := shm.NewQueueReader(mem, procs, release)
	if err == nil {
		r.LocalMemory.WatchQueue(q)
	}
	return err
}
