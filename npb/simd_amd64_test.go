//go:build amd64 && !purego

package npb

import (
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// withAVX2 runs f with the AVX2 kernels that flag switches (mgUseAVX2,
// adiUseAVX2) on or off.
func withAVX2(t testing.TB, flag *bool, on bool, f func()) {
	if on && !cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2) {
		t.Skip("the CPU has no AVX2")
	}
	old := *flag
	*flag = on
	defer func() { *flag = old }()
	f()
}
