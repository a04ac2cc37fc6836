//go:build race

package mpi_test

// raceEnabled tells whether the test binary, and so every rank it runs as,
// is built with the race detector.
const raceEnabled = true
