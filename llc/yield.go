package llc

import (
	"runtime"
	"syscall"
)

// osYield gives the processor to another runnable process (sched_yield).
// Goroutine scheduling alone is not enough when ranks outnumber cores.
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }

// goschedEvery is how many yields of a waiter pass between two chances it
// gives the process's other goroutines (a power of two).
const goschedEvery = 64

// yieldCPU is the n-th yield of a waiter: the processor goes to another
// process, and now and then the thread to another goroutine. A
// runtime.Gosched at every yield put the waiter on the global run queue
// each time: it hopped between threads and woke idle ones to run it, so
// that with more processes than cores each process kept two or three
// threads busy where one would do.
func yieldCPU(n int) {
	if n%goschedEvery == 0 {
		runtime.Gosched()
	}
	osYield()
}
