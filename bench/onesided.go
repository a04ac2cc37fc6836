package bench

import (
	"errors"
	"fmt"

	"github.com/rhinet-go/martini/mpi"
)

// oneSided returns the operation of an IMB-RMA benchmark at size bytes on
// c, and the function that ends it: a window of size bytes on every
// process (WinAllocate), which rank 0 accesses at rank 1 under a shared
// lock held from here to the end, each operation a Put, Get or
// Accumulate (Sum of float32 elements) followed by a Flush, as IMB's
// non-aggregate mode does. The other ranks only take part in the timing's
// barriers.
func oneSided(c *mpi.Comm, benchmark string, size int, bufs *buffers) (op func(int) error, done func() error, err error) {
	if c.Size() < 2 {
		return nil, nil, fmt.Errorf("bench: %s on %d process: %w", benchmark, c.Size(), ErrTooFewRanks)
	}
	var win *mpi.Win
	if benchmark == "Accumulate" {
		win, _, err = mpi.WinAllocate[float32](c, size/4)
	} else {
		win, _, err = mpi.WinAllocate[byte](c, size)
	}
	if err != nil {
		return nil, nil, err
	}
	origin := c.Rank() == 0
	if origin {
		if err := win.Lock(mpi.LockShared, 1); err != nil {
			return nil, nil, errors.Join(err, win.Free())
		}
	}
	done = func() error {
		var err error
		if origin {
			err = win.Unlock(1)
		}
		return errors.Join(err, win.Free())
	}
	op = func(int) error {
		if !origin {
			return nil
		}
		s, _ := bufs.get(size)
		var err error
		switch benchmark {
		case "Unidir_put":
			err = mpi.Put(win, s[:size], 1, 0)
		case "Unidir_get":
			err = mpi.Get(win, s[:size], 1, 0)
		default:
			err = mpi.Accumulate(win, floats(s[:size]), 1, 0, mpi.Sum)
		}
		if err != nil {
			return err
		}
		return win.Flush(1)
	}
	return op, done, nil
}
