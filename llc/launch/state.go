package launch

import (
	"fmt"
	"strconv"
)

// RankState is how far a rank of an mpirun job got with MPI. The rank
// records it in the job's data store (SetState), where mpirun reads it once
// the rank has exited, to tell a lost MPI process from one that finalized
// or never used MPI; it does not depend on the network the rank uses.
type RankState uint8

// Rank states, in the order a rank goes through them.
const (
	RankNotStarted  RankState = iota // never began MPI Init
	RankStarted                      // began MPI Init, not complete
	RankInitialized                  // MPI Init completed
	RankFinalized                    // MPI Finalize completed
)

func (s RankState) String() string {
	switch s {
	case RankNotStarted:
		return "not started"
	case RankStarted:
		return "starting"
	case RankInitialized:
		return "initialized"
	}
	return "finalized"
}

// stateKeyPrefix begins the data-store keys of the rank states, which no
// bootstrap exchange collects.
const stateKeyPrefix = "launch/state/"

// StateKey is the data-store key under which rank records its RankState.
func StateKey(rank int) string { return stateKeyPrefix + strconv.Itoa(rank) }

// ParseRankState reads a state recorded under StateKey; a missing or
// unknown value is RankNotStarted.
func ParseRankState(value string, ok bool) RankState {
	n, err := strconv.Atoi(value)
	if !ok || err != nil || n < int(RankStarted) || n > int(RankFinalized) {
		return RankNotStarted
	}
	return RankState(n)
}

// SetState records in the job's data store that this rank reached state,
// for mpirun; under another launcher, or in a singleton, there is no one
// to read it there. The put is answered, so the state is recorded before
// SetState returns. In a PMI job whose processes share their host's
// segment, it also records the state for the others of the host
// (hostState).
func (j *Job) SetState(state RankState) error {
	if j.states != nil {
		j.states.set(j.LocalRank, state)
	}
	if j.Launcher != LauncherMpirun || j.Store == nil {
		return nil
	}
	if err := j.Store.Put(StateKey(j.Rank), strconv.Itoa(int(state))); err != nil {
		return fmt.Errorf("launch: recording rank state %s: %w", state, err)
	}
	return nil
}
