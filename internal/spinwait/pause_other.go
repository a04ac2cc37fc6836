//go:build !amd64 && !arm64

package spinwait

// Pause does nothing where the processor has no spin-wait hint that Go's
// assembler names here.
func Pause() {}

// Ticks reads the processor's counter: a count that grows at a constant
// rate (TicksPerMicrosecond), on every processor of the machine alike
// where the operating system keeps them in step. It returns 0 where there
// is no counter to read.
// Here it returns 0: no counter is read.
func Ticks() uint64 { return 0 }
