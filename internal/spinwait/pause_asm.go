//go:build amd64 || arm64

package spinwait

// Pause is the processor's spin-wait hint (see the package comment).
func Pause()
