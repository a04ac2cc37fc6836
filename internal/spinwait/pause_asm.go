//go:build amd64 || arm64

package spinwait

// Pause is the processor's spin-wait hint (see the package comment).
func Pause()

// readTicks reads the processor's counter (see the package comment).
func readTicks() uint64
