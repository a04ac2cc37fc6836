package llc

import "syscall"

// osYield gives the processor to another runnable process (sched_yield).
// Goroutine scheduling alone is not enough when ranks outnumber cores.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
