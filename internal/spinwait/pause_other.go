//go:build !amd64 && !arm64

package spinwait

// Pause does nothing where the processor has no spin-wait hint that Go's
// assembler names here.
func Pause() {}

// readTicks returns 0: no counter is read here.
func readTicks() uint64 { return 0 }
