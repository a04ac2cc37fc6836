package nicemu

import (
	"errors"
	"fmt"
	"unsafe"

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
		k, err := n.cmaCall(pid, at+uint64(done), b[done:min(len(b), done+cmaChunk)], write)
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

// cmaChunk is the most a single cross-memory system call copies. The
// calls are raw (cmaCall), so Go's runtime cannot run other goroutines on
// the caller's processor or stop the world while one lasts; at about 10
// GB/s a chunk holds it for 100 µs at most, and between the chunks the
// copy can be preempted.
const cmaChunk = 1 << 20

// cmaCall copies b from (write false) or to (write true) the memory at
// addr of the process of OS pid pid with one process_vm_readv or
// process_vm_writev, and returns the bytes copied.
//
// The call is raw: Go's runtime is not told that the thread enters the
// kernel. Through an ordinary system call, a copy whose thread the kernel
// preempts (with processes outnumbering cores, two ranks take turns on a
// core) looked blocked to the runtime, which then handed the processor to
// another thread and moved the rank's goroutine over on its return: each
// rank kept two threads running, and the scheduler switched between them
// (docs/decisions.md, raw cross-memory system calls).
func (n *NIC) cmaCall(pid int, addr uint64, b []byte, write bool) (int, error) {
	n.liov[0].Base = &b[0]
	n.liov[0].SetLen(len(b))
	n.riov[0] = unix.RemoteIovec{Base: uintptr(addr), Len: len(b)}
	trap := uintptr(unix.SYS_PROCESS_VM_READV)
	if write {
		trap = unix.SYS_PROCESS_VM_WRITEV
	}
	k, _, e := unix.RawSyscall6(trap, uintptr(pid), uintptr(unsafe.Pointer(&n.liov[0])), 1,
		uintptr(unsafe.Pointer(&n.riov[0])), 1, 0)
	if e != 0 {
		return 0, e
	}
	return int(k), nil
}
