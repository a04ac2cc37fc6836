package nicemu

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// errCMADenied means the kernel refused cross-memory attach; the NIC then
// falls back to bounce buffers for good.
var errCMADenied = errors.New("nicemu: cross-memory attach denied")

// cmaWrite copies src into another process's memory at addr in a single
// copy (process_vm_writev).
func (n *NIC) cmaWrite(p int, at uint64, src []byte) error {
	return n.cma1(p, at, src, true)
}

// cmaRead copies another process's memory at addr into dst in a single
// copy (process_vm_readv).
func (n *NIC) cmaRead(p int, at uint64, dst []byte) error {
	return n.cma1(p, at, dst, false)
}

func (n *NIC) cma1(p int, at uint64, b []byte, write bool) error {
	pid := n.ospid(p)
	if pid == 0 {
		return fmt.Errorf("nicemu: PID %d has not attached to the NIC", p)
	}
	for done := 0; done < len(b); {
		n.liov[0].Base = &b[done]
		n.liov[0].SetLen(len(b) - done)
		n.riov[0] = unix.RemoteIovec{Base: uintptr(at) + uintptr(done), Len: len(b) - done}
		var k int
		var err error
		if write {
			k, err = unix.ProcessVMWritev(pid, n.liov[:], n.riov[:], 0)
		} else {
			k, err = unix.ProcessVMReadv(pid, n.liov[:], n.riov[:], 0)
		}
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err == unix.EPERM || err == unix.EACCES || err == unix.ENOSYS:
			return errCMADenied
		case err != nil:
			return fmt.Errorf("nicemu: cross-memory copy with PID %d (os pid %d): %w", p, pid, err)
		case k == 0:
			return fmt.Errorf("nicemu: cross-memory copy with PID %d made no progress", p)
		}
		done += k
	}
	n.stats.CMAOps++
	n.stats.CMABytes += uint64(len(b))
	return nil
}
