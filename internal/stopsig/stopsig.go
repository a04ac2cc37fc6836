// Package stopsig is how the project's long-running commands (mpibench,
// thesis, npbcompare) learn that they must stop: a context that ends on
// an interrupt, a termination, a hangup or a broken pipe. The run in
// progress then stops (mpirun stops its ranks), removes what it made, and
// the command exits with an error. A broken pipe is among them because a
// command whose output is read by one that ended (as head does) would
// otherwise be killed by the next write, before its cleanup; caught, the
// signal makes that write fail instead.
package stopsig

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Signals are the signals that stop a command.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// NotifyContext returns a copy of parent that is done once one of
// Signals arrives, and the function that stops the notification.
func NotifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, Signals...)
}
