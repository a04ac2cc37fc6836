package collectives

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestEmptyCall checks the rules of a call that moves no data, and that
// only a Runner that compares arguments through the Hardware's barrier
// returns from one at once.
func TestEmptyCall(t *testing.T) {
	sum := mustReducer[int32](Sum)
	none := []byte{}
	four := make([]byte, 4)
	cases := append(emptyBcastCases(none, four), emptyReduceCases(&sum, none, four)...)
	cases = append(cases, emptyMoveCases(none, four)...)
	cases = append(cases, emptyOtherCases(&sum, none)...)
	checkRunnerEmpty(t, none)
	checkEmptyCalls(t, cases)
}

// emptyCallCase is a call of rank (of 2) and whether it moves no data.
type emptyCallCase struct {
	name       string
	coll       Collective
	rank       int
	send, recv []byte
	root       int
	r          *Reducer
	want       bool
}

// emptyBcastCases are broadcasts, empty or not, with good roots and bad.
func emptyBcastCases(none, four []byte) []emptyCallCase {
	return []emptyCallCase{
		{"bcast", CollBcast, 0, nil, none, 1, nil, true},
		{"bcast data", CollBcast, 0, nil, four, 1, nil, false},
		{"bcast bad root", CollBcast, 0, nil, none, 2, nil, false},
		{"bcast negative root", CollBcast, 0, nil, none, -1, nil, false},
	}
}

// emptyReduceCases are reductions and allreductions, in place or not, at
// the root or not, with reducers and without.
func emptyReduceCases(sum *Reducer, none, four []byte) []emptyCallCase {
	return []emptyCallCase{
		{"reduce", CollReduce, 0, none, nil, 1, sum, true},
		{"reduce root", CollReduce, 1, none, four, 1, sum, true},
		{"reduce in place", CollReduce, 1, nil, none, 1, sum, true},
		{"reduce in place data", CollReduce, 1, nil, four, 1, sum, false},
		{"reduce in place not root", CollReduce, 0, nil, none, 1, sum, false},
		{"reduce data", CollReduce, 0, four, nil, 1, sum, false},
		{"reduce bad root", CollReduce, 0, none, nil, 5, sum, false},
		{"reduce no reducer", CollReduce, 0, none, nil, 1, &Reducer{}, false},
		{"reduce nil reducer", CollReduce, 0, none, nil, 1, nil, false},
		{"allreduce", CollAllreduce, 0, none, none, 0, sum, true},
		{"allreduce in place", CollAllreduce, 0, nil, none, 0, sum, true},
		{"allreduce data", CollAllreduce, 0, none, four, 0, sum, false},
		{"allreduce no reducer", CollAllreduce, 0, none, none, 0, &Reducer{}, false},
	}
}

// emptyMoveCases are gathers, scatters, allgathers and alltoalls, in
// place or not, at the root or not.
func emptyMoveCases(none, four []byte) []emptyCallCase {
	return []emptyCallCase{
		{"gather", CollGather, 0, none, nil, 1, nil, true},
		{"gather nil block", CollGather, 0, nil, nil, 1, nil, true},
		{"gather root in place", CollGather, 1, nil, none, 1, nil, true},
		{"gather root in place data", CollGather, 1, nil, four, 1, nil, false},
		{"gather data", CollGather, 0, four, nil, 1, nil, false},
		{"gather bad root", CollGather, 0, none, nil, 2, nil, false},
		{"scatter", CollScatter, 0, nil, none, 1, nil, true},
		{"scatter root in place", CollScatter, 1, none, nil, 1, nil, true},
		{"scatter root in place data", CollScatter, 1, four, nil, 1, nil, false},
		{"scatter data", CollScatter, 0, nil, four, 1, nil, false},
		{"allgather", CollAllgather, 0, none, four, 0, nil, true},
		{"allgather in place", CollAllgather, 0, nil, none, 0, nil, true},
		{"allgather in place data", CollAllgather, 0, nil, four, 0, nil, false},
		{"alltoall", CollAlltoall, 0, none, none, 0, nil, true},
		{"alltoall in place data", CollAlltoall, 0, nil, four, 0, nil, false},
	}
}

// emptyOtherCases are a barrier and a scan, which are never empty.
func emptyOtherCases(sum *Reducer, none []byte) []emptyCallCase {
	return []emptyCallCase{
		{"barrier", CollBarrier, 0, nil, nil, 0, nil, false},
		{"scan", CollScan, 0, none, none, 0, sum, false},
	}
}

// checkRunnerEmpty checks that only a Runner with the Hardware's barrier,
// RunAhead and SkipEmpty returns from an empty call at once.
func checkRunnerEmpty(t *testing.T, none []byte) {
	t.Helper()
	hw := newMemHardware(2)
	skipping := func() *Runner {
		return &Runner{Net: &memNet{w: newMemWorld(2)}, HW: &memHW{h: hw}, RunAhead: new(RunAhead), SkipEmpty: true}
	}
	if !skipping().Empty(CollBcast, nil, none, 0, nil) {
		t.Error("a Runner with the Hardware's barrier runs an empty call")
	}
	for name, change := range map[string]func(u *Runner){
		"no Hardware":        func(u *Runner) { u.HW = nil },
		"a software barrier": func(u *Runner) { u.Force = Selection{CollBarrier: AlgDissemination} },
		"no RunAhead":        func(u *Runner) { u.RunAhead = nil },
		"SkipEmpty not set":  func(u *Runner) { u.SkipEmpty = false },
	} {
		u := skipping()
		change(u)
		if u.Empty(CollBcast, nil, none, 0, nil) {
			t.Errorf("with %s, a Runner returns from an empty call at once", name)
		}
	}
}

// checkEmptyCalls checks EmptyCall on every case.
func checkEmptyCalls(t *testing.T, cases []emptyCallCase) {
	t.Helper()
	for _, c := range cases {
		if got := EmptyCall(c.coll, c.rank, 2, c.send, c.recv, c.root, c.r); got != c.want {
			t.Errorf("%s: Empty %v, want %v", c.name, got, c.want)
		}
	}
}

// TestEmptyCallsAlone has rank 0 make every collective call that moves no
// data, in each form, before the other ranks make theirs: each returns at
// once, without waiting for them. The calls all ranks make next check
// them, and work.
func TestEmptyCallsAlone(t *testing.T) {
	sum := mustReducer[int32](Sum)
	for _, check := range []bool{false, true} {
		t.Run(fmt.Sprintf("check=%v", check), func(t *testing.T) {
			first := make(chan struct{})
			errs := runRunners(t, 3, true, check, nil, func(u *Runner) error {
				rank := u.Net.Rank()
				if rank != 0 {
					select {
					case <-first:
					case <-time.After(5 * time.Second): // (runRunners gives up at 10 s)
						return errors.New("rank 0's empty calls waited for the others")
					}
				}
				for i, call := range []func() error{
					func() error { return u.Bcast(nil, 1, 4) },
					func() error { return u.Bcast([]byte{}, 0, 4) },
					func() error { return u.Reduce([]byte{}, nil, sum, 1) },
					func() error {
						if rank == 0 {
							return u.Reduce(nil, []byte{}, sum, 0)
						}
						return u.Reduce([]byte{}, nil, sum, 0)
					},
					func() error { return u.Allreduce(nil, []byte{}, sum) },
					func() error { return u.Allreduce([]byte{}, []byte{}, sum) },
					func() error { return u.Gather(nil, nil, 2, 1) },
					func() error { return u.Gather(nil, []byte{}, 0, 1) },
					func() error { return u.Scatter(nil, []byte{}, 1, 1) },
					func() error { return u.Scatter([]byte{}, nil, 0, 1) },
					func() error { return u.Allgather([]byte{}, nil, 1) },
					func() error { return u.Allgather(nil, []byte{}, 1) },
					func() error { return u.Alltoall([]byte{}, []byte{}, 1) },
					func() error { return u.Alltoall(nil, []byte{}, 1) },
				} {
					if err := call(); err != nil {
						return fmt.Errorf("empty call %d: %w", i, err)
					}
				}
				if rank == 0 {
					close(first)
				}
				for range 2 {
					in, out := make([]byte, 4), make([]byte, 4)
					binary.LittleEndian.PutUint32(in, uint32(rank+1))
					if err := u.Allreduce(in, out, sum); err != nil {
						return err
					}
					if got := binary.LittleEndian.Uint32(out); got != 6 {
						return fmt.Errorf("allreduce after the empty calls: %d, want 6", got)
					}
				}
				return nil
			})
			expectRun(t, errs, false)
		})
	}
}

// TestEmptyCallMismatch: where rank 0's broadcast moves no data and rank
// 1's moves some (an erroneous program), rank 0's returns at once and
// its next call, a Barrier, reports the difference, as rank 1's broadcast
// does; rank 1's Barrier then meets rank 0's, and an Allreduce after
// works: the calls stayed in step. Without the Hardware rank 0's empty
// broadcast is compared as any other call.
func TestEmptyCallMismatch(t *testing.T) {
	sum := mustReducer[int32](Sum)
	for _, hw := range []bool{false, true} {
		t.Run(fmt.Sprintf("hw=%v", hw), func(t *testing.T) {
			errs := runRunners(t, 2, hw, true, nil, func(u *Runner) error {
				size := 8
				if u.Net.Rank() == 0 {
					size = 0
				}
				errBcast := u.Bcast(make([]byte, size), 0, 1)
				errBarrier := u.Barrier()
				late := u.Net.Rank() == 0 && hw // the difference shows at the Barrier
				switch {
				case late && (errBcast != nil || !errors.Is(errBarrier, ErrMismatch)):
					return fmt.Errorf("Bcast %v, Barrier %v: want the Barrier's ErrMismatch alone", errBcast, errBarrier)
				case !late && (!errors.Is(errBcast, ErrMismatch) || errBarrier != nil):
					return fmt.Errorf("Bcast %v, Barrier %v: want the Bcast's ErrMismatch alone", errBcast, errBarrier)
				}
				out := make([]byte, 4)
				if err := u.Allreduce([]byte{1, 0, 0, 0}, out, sum); err != nil || out[0] != 2 {
					return fmt.Errorf("the Allreduce after: %v, %d", err, out[0])
				}
				return nil
			})
			expectRun(t, errs, false)
		})
	}
}
