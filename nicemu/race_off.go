//go:build !race

package nicemu

// raceEnabled tells whether the race detector is built in: copyWords then
// makes the first word of a write an atomic store, which it can see.
const raceEnabled = false
