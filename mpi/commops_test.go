package mpi_test

// Multi-process tests of SplitType, Idup, CreateGroup, Compare, names,
// and the environment calls (thread levels, processor name, version,
// error strings).

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/mpi"
)

func init() {
	scenarios["comm-env"] = scenarioCommEnv
	rawScenarios["init-thread"] = rawInitThread
}

func TestCommEnvironment(t *testing.T) {
	t.Parallel()
	t.Run("comm-env", func(t *testing.T) {
		t.Parallel()
		runAt(t, "comm-env", topoSizes())
	})
	t.Run("init-thread", func(t *testing.T) {
		t.Parallel()
		runAt(t, "init-thread", []int{1, 3})
	})
}

func scenarioCommEnv(w *mpi.Comm) error {
	for _, check := range []func(*mpi.Comm) error{checkSplitType, checkIdup, checkCreateGroup, checkCompare, checkNames, checkEnvironment} {
		if err := check(w); err != nil {
			return err
		}
	}
	return nil
}

// processorNames gathers every process's processor name.
func processorNames(w *mpi.Comm) ([]string, error) {
	name, err := mpi.GetProcessorName()
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("GetProcessorName returned an empty name")
	}
	// Across hosts, the name is the host's as mpirun -hosts gave it.
	if h := os.Getenv(launch.EnvHost); h != "" && name != h {
		return nil, fmt.Errorf("GetProcessorName = %q on host %q", name, h)
	}
	const width = 256
	mine := make([]byte, width)
	copy(mine, name)
	all := make([]byte, width*w.Size())
	if err := mpi.Allgather(w, mine, all); err != nil {
		return nil, err
	}
	names := make([]string, w.Size())
	for r := range names {
		b := all[r*width : (r+1)*width]
		if i := slices.Index(b, 0); i >= 0 {
			b = b[:i]
		}
		names[r] = string(b)
	}
	return names, nil
}

// checkSplitType splits World by host, in reverse rank order, and with
// the odd ranks out.
func checkSplitType(w *mpi.Comm) error {
	names, err := processorNames(w)
	if err != nil {
		return err
	}
	var host []int // World ranks of this process's host
	for r, n := range names {
		if n == names[w.Rank()] {
			host = append(host, r)
		}
	}
	s, err := w.SplitType(mpi.CommTypeShared, -w.Rank())
	if err != nil {
		return err
	}
	want := slices.Clone(host)
	slices.Reverse(want)
	if got := s.Group().WorldRanks(); !slices.Equal(got, want) {
		return fmt.Errorf("SplitType(CommTypeShared): World ranks %v, want %v", got, want)
	}
	if err := s.Free(); err != nil {
		return err
	}
	t := mpi.CommTypeShared
	if w.Rank()%2 == 1 {
		t = mpi.CommType(mpi.Undefined)
	}
	s, err = w.SplitType(t, 0)
	if err != nil {
		return err
	}
	if (s == nil) != (w.Rank()%2 == 1) {
		return fmt.Errorf("SplitType(%d) on rank %d gave %v", t, w.Rank(), s)
	}
	if s != nil {
		var even []int
		for _, r := range host {
			if r%2 == 0 {
				even = append(even, r)
			}
		}
		if got := s.Group().WorldRanks(); !slices.Equal(got, even) {
			return fmt.Errorf("SplitType of the even ranks: World ranks %v, want %v", got, even)
		}
		if err := s.Free(); err != nil {
			return err
		}
	}
	_, err = w.SplitType(mpi.CommType(7), 0)
	return wantErr("SplitType(7)", err, mpi.ErrMismatch)
}

// checkIdup duplicates World and a grid while blocking collectives run on
// them.
func checkIdup(w *mpi.Comm) error {
	d, r, err := w.Idup()
	if err != nil {
		return err
	}
	sum := make([]int, 1)
	if err := mpi.Allreduce(w, []int{1}, sum, mpi.Sum); err != nil || sum[0] != w.Size() {
		return fmt.Errorf("Allreduce while Idup is pending: %v, %v", sum, err)
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	if cmp, err := w.Compare(d); cmp != mpi.Congruent || err != nil {
		return fmt.Errorf("Compare(World, its Idup) = %v, %v", cmp, err)
	}
	if err := mpi.Allreduce(d, []int{w.Rank()}, sum, mpi.Max); err != nil || sum[0] != w.Size()-1 {
		return fmt.Errorf("Allreduce on the Idup: %v, %v", sum, err)
	}
	cart, err := w.CartCreate([]int{w.Size()}, []bool{true}, false)
	if err != nil {
		return err
	}
	cd, r, err := cart.Idup()
	if err != nil {
		return err
	}
	if err := cart.Barrier(); err != nil { // the deprecated method form still works
		return err
	}
	if _, err := r.Wait(); err != nil {
		return err
	}
	if _, dst, err := cd.CartShift(0, 1); err != nil || dst != (w.Rank()+1)%w.Size() {
		return fmt.Errorf("CartShift on the Idup of a ring: %d, %v", dst, err)
	}
	if err := errors.Join(cd.Free(), cart.Free(), d.Free()); err != nil {
		return err
	}
	nc, r, err := d.Idup()
	if nc != nil || r != nil {
		return fmt.Errorf("Idup of a freed communicator returned %v and %v", nc, r)
	}
	return wantErr("Idup of a freed communicator", err, mpi.ErrComm)
}

// parityGroup returns the ranks of w of this rank's parity and their
// group.
func parityGroup(w *mpi.Comm) ([]int, mpi.Group, error) {
	var mine []int
	for r := w.Rank() % 2; r < w.Size(); r += 2 {
		mine = append(mine, r)
	}
	g, err := w.Group().Incl(mine...)
	return mine, g, err
}

// checkRankSum checks that an Allreduce over c, a communicator of the
// ranks of the world listed in ranks, of each one's world rank, sums them.
func checkRankSum(c *mpi.Comm, ranks []int, what string) error {
	sum := make([]int, 1)
	if err := mpi.Allreduce(c, []int{mpi.World().Rank()}, sum, mpi.Sum); err != nil {
		return err
	}
	want := 0
	for _, r := range ranks {
		want += r
	}
	if sum[0] != want {
		return fmt.Errorf("%s: the sum of the ranks is %d, want %d", what, sum[0], want)
	}
	return nil
}

// checkCreateGroup makes a communicator of the even ranks, called by them
// only, while the odd ranks make theirs with the same tag.
func checkCreateGroup(w *mpi.Comm) error {
	mine, g, err := parityGroup(w)
	if err != nil {
		return err
	}
	c, err := w.CreateGroup(g, 7)
	if err != nil {
		return err
	}
	if got := c.Group().WorldRanks(); !slices.Equal(got, mine) || c.Rank() != w.Rank()/2 {
		return fmt.Errorf("CreateGroup: rank %d of %v, want %d of %v", c.Rank(), got, w.Rank()/2, mine)
	}
	if err := checkRankSum(c, mine, "Allreduce on the CreateGroup communicator"); err != nil {
		return err
	}
	if err := c.Free(); err != nil {
		return err
	}
	errs := []error{}
	if w.Size() > 1 {
		other, _ := w.Group().Excl(w.Rank())
		_, err = w.CreateGroup(other, 1)
		errs = append(errs, wantErr("CreateGroup of a group without the caller", err, mpi.ErrRank))
	}
	_, err = w.CreateGroup(w.Group(), -3)
	errs = append(errs, wantErr("CreateGroup with tag -3", err, mpi.ErrTag))
	return errors.Join(errs...)
}

func checkCompare(w *mpi.Comm) error {
	d, err := w.Dup()
	if err != nil {
		return err
	}
	rev, err := w.Split(0, -w.Rank())
	if err != nil {
		return err
	}
	half, err := w.Split(0, 0)
	if err != nil {
		return err
	}
	wantRev := mpi.Similar
	if w.Size() == 1 {
		wantRev = mpi.Congruent
	}
	for _, c := range []struct {
		a, b *mpi.Comm
		want mpi.Comparison
	}{
		{w, w, mpi.Ident},
		{d, d, mpi.Ident},
		{w, d, mpi.Congruent},
		{w, rev, wantRev},
		{rev, half, wantRev},
	} {
		if got, err := c.a.Compare(c.b); got != c.want || err != nil {
			return fmt.Errorf("Compare: %v, %v; want %v", got, err, c.want)
		}
	}
	if w.Size() > 1 {
		odd, err := w.Split(w.Rank()%2, 0)
		if err != nil {
			return err
		}
		if got, err := w.Compare(odd); got != mpi.Unequal || err != nil {
			return fmt.Errorf("Compare(World, the odd or even ranks): %v, %v", got, err)
		}
		if err := odd.Free(); err != nil {
			return err
		}
	}
	g := w.Group()
	if got := g.Compare(rev.Group()); got != map[bool]mpi.Comparison{true: mpi.Ident, false: mpi.Similar}[w.Size() == 1] {
		return fmt.Errorf("Group.Compare of World's and the reversed: %v", got)
	}
	if err := d.Free(); err != nil {
		return err
	}
	_, err = w.Compare(d)
	return errors.Join(wantErr("Compare with a freed communicator", err, mpi.ErrComm), rev.Free(), half.Free())
}

func checkNames(w *mpi.Comm) error {
	if n, err := w.Name(); n != "MPI_COMM_WORLD" || err != nil {
		return fmt.Errorf("the name of World: %q, %v", n, err)
	}
	d, err := w.Dup()
	if err != nil {
		return err
	}
	if n, err := d.Name(); n != "" || err != nil {
		return fmt.Errorf("the name of a Dup: %q, %v", n, err)
	}
	if err := d.SetName(fmt.Sprintf("copy %d", w.Rank())); err != nil {
		return err
	}
	if n, err := d.Name(); n != fmt.Sprintf("copy %d", w.Rank()) || err != nil {
		return fmt.Errorf("the name after SetName: %q, %v", n, err)
	}
	if n, err := w.Name(); n != "MPI_COMM_WORLD" || err != nil {
		return fmt.Errorf("the name of World after naming its Dup: %q, %v", n, err)
	}
	return d.Free()
}

func checkEnvironment(*mpi.Comm) error {
	if l, err := mpi.QueryThread(); l != mpi.ThreadMultiple || err != nil {
		return fmt.Errorf("QueryThread: %v, %v", l, err)
	}
	if v, s := mpi.GetVersion(); v != 3 || s != 1 {
		return fmt.Errorf("GetVersion: %d.%d", v, s)
	}
	_, err := mpi.World().CartCoords(0)
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, "MPI_SUCCESS: no error"},
		{fmt.Errorf("deep: %w", fmt.Errorf("mpi: x: %w", mpi.ErrRank)), "MPI_ERR_RANK: invalid rank"},
		{err, "MPI_ERR_TOPOLOGY: invalid topology"},
		{errors.New("plain"), "MPI_ERR_OTHER: plain"},
	} {
		if got := mpi.ErrorString(c.err); got != c.want {
			return fmt.Errorf("ErrorString(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if cl := mpi.ErrorClass(err); cl != mpi.ErrTopology {
		return fmt.Errorf("ErrorClass(%v) = %v", err, cl)
	}
	return nil
}

// rawInitThread initializes with InitThread: the level is MULTIPLE, known
// only between Init and Finalize.
func rawInitThread() error {
	if _, err := mpi.QueryThread(); !errors.Is(err, mpi.ErrNotInitialized) {
		return fmt.Errorf("QueryThread before Init: %v", err)
	}
	if v, s := mpi.GetVersion(); v != 3 || s != 1 {
		return fmt.Errorf("GetVersion before Init: %d.%d", v, s)
	}
	got, err := mpi.InitThread(mpi.ThreadFunneled)
	if err != nil {
		return err
	}
	if got != mpi.ThreadMultiple {
		return fmt.Errorf("InitThread(%v) = %v, want %v", mpi.ThreadFunneled, got, mpi.ThreadMultiple)
	}
	if l, err := mpi.QueryThread(); l != mpi.ThreadMultiple || err != nil {
		return fmt.Errorf("QueryThread: %v, %v", l, err)
	}
	if err := mpi.Barrier(mpi.World()); err != nil {
		return err
	}
	if err := mpi.Finalize(); err != nil {
		return err
	}
	if _, err := mpi.QueryThread(); !errors.Is(err, mpi.ErrNotInitialized) {
		return fmt.Errorf("QueryThread after Finalize: %v", err)
	}
	return nil
}
