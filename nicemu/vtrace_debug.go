package nicemu

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

var vtraceMu sync.Mutex
var vtraceBuf []string
var vtraceOn = os.Getenv("MARTINI_VT_TRACE") != ""

func vtrace(pid int, format string, args ...any) {
	if !vtraceOn {
		return
	}
	vtraceMu.Lock()
	vtraceBuf = append(vtraceBuf, fmt.Sprintf(format, args...))
	vtraceMu.Unlock()
}

func vtraceFlush(pid int) {
	if !vtraceOn {
		return
	}
	f, _ := os.Create(fmt.Sprintf("%s/p%d", os.Getenv("MARTINI_VT_TRACE"), pid))
	for _, l := range vtraceBuf {
		fmt.Fprintln(f, l)
	}
	f.Close()
}

func vjump(pid int, from, to int64) {
	fmt.Fprintf(os.Stderr, "vjump pid %d from %d to %d (+%d)\n%s\n", pid, from, to, to-from, debug.Stack())
}
