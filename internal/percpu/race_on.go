//go:build race

package percpu

// raceEnabled tells whether the race detector is built in (see the
// package's doc).
const raceEnabled = true
