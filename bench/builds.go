package bench

import (
	"os/exec"
	"strings"
	"time"
)

// buildOrder ranks the commits of the repository that holds dir, newest
// first in the order of its history (git rev-list --topo-order HEAD): a
// record's build is newer than another's when its commit comes after the
// other's, whenever the two ran. Where git or the repository is not
// there, it ranks nothing, and records fall back to the times of their
// runs.
type buildOrder map[string]int

// readBuildOrder reads the history of the repository that holds dir.
func readBuildOrder(dir string) buildOrder {
	out, err := exec.Command("git", "-C", dir, "rev-list", "--topo-order", "HEAD").Output()
	if err != nil {
		return nil
	}
	o := buildOrder{}
	for i, rev := range strings.Fields(string(out)) {
		o[rev] = i
	}
	return o
}

// rank is the place of a record's revision in the history (0 the
// newest), its "+dirty" mark left aside; false for a revision that the
// history does not hold (or none recorded).
func (o buildOrder) rank(rev string) (int, bool) {
	i, ok := o[strings.TrimSuffix(rev, "+dirty")]
	return i, ok
}

// newer reports whether a record of revision rev run at t is of a newer
// build than one of revision than run at thanT: the later commit when the
// history holds both, else the later run. A run of an earlier build made
// afterwards (the before of a paired comparison) does not supersede the
// newer build's.
func (o buildOrder) newer(rev string, t time.Time, than string, thanT time.Time) bool {
	a, okA := o.rank(rev)
	b, okB := o.rank(than)
	if okA && okB && a != b {
		return a < b
	}
	return t.After(thanT)
}
