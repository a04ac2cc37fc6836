package launch

import (
	"testing"

	"github.com/rhinet-go/martini/llc/datastore"
)

// A rank of an mpirun job records its state in the data store, where
// ParseRankState reads it back; under another launcher nothing is put.
func TestSetState(t *testing.T) {
	store := datastore.NewLocal()
	j := &Job{Rank: 3, Size: 4, Store: store, Launcher: LauncherMpirun}
	for _, s := range []RankState{RankStarted, RankInitialized, RankFinalized} {
		if err := j.SetState(s); err != nil {
			t.Fatal(err)
		}
		v, err := store.Get(StateKey(3))
		if err != nil {
			t.Fatal(err)
		}
		if got := ParseRankState(v, true); got != s {
			t.Errorf("recorded %v, read back %v", s, got)
		}
	}
	for _, v := range []string{"", "0", "9", "x"} {
		if got := ParseRankState(v, v != ""); got != RankNotStarted {
			t.Errorf("ParseRankState(%q) = %v, want %v", v, got, RankNotStarted)
		}
	}
	pmiStore := datastore.NewLocal()
	p := &Job{Rank: 0, Size: 1, Store: pmiStore, Launcher: LauncherPMI2}
	if err := p.SetState(RankInitialized); err != nil {
		t.Fatal(err)
	}
	if kv, _ := pmiStore.FenceCollect(stateKeyPrefix); len(kv) != 0 {
		t.Errorf("a PMI job recorded its state: %v", kv)
	}
}
