//go:build !amd64 || purego

package npb

// cgDot4x16 is cgDot4 for 16-bit indices.
func cgDot4x16(a []float64, c []uint16, p []float64) (s0, s1, s2, s3 float64) {
	return cgDot4(a, c, p)
}

// cgDot4x32 is cgDot4 for 32-bit indices.
func cgDot4x32(a []float64, c []uint32, p []float64) (s0, s1, s2, s3 float64) {
	return cgDot4(a, c, p)
}
