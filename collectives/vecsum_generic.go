//go:build !amd64 || purego

package collectives

// vecsumAVX2 is false: the sums use gonum's kernels only.
var vecsumAVX2 = false

// addVectors adds nothing here and returns 0: the sums use gonum's
// kernels only.
func addVectors(in, inout []byte, double bool) int { return 0 }
