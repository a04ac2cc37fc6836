//go:build amd64 || arm64

package spinwait

// Pause is the processor's spin-wait hint (see the package comment).
func Pause()

// Ticks reads the processor's counter: a count that grows at a constant
// rate (TicksPerMicrosecond), on every processor of the machine alike
// where the operating system keeps them in step.
func Ticks() uint64
