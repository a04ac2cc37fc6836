package mpi

import (
	"fmt"
	"slices"
)

// Group is an ordered set of processes, named by their ranks in World. It
// is a value: operations return new groups. Groups build communicators
// (Comm.Create) and translate ranks between communicators.
type Group struct {
	world []int // world rank of each rank of the group
}

// Size returns the number of processes in g.
func (g Group) Size() int { return len(g.world) }

// Rank returns the calling process's rank in g, or Undefined if it is not
// a member.
func (g Group) Rank() int {
	s := current.Load()
	if s == nil {
		return Undefined
	}
	return g.rankOf(s.world.rank)
}

// rankOf returns the rank in g of the process of world rank w, or
// Undefined.
func (g Group) rankOf(w int) int {
	if i := slices.Index(g.world, w); i >= 0 {
		return i
	}
	return Undefined
}

// WorldRanks returns the World rank of every member of g, in g's order.
func (g Group) WorldRanks() []int { return slices.Clone(g.world) }

// Incl returns the group of g's members of the given ranks, in that order.
func (g Group) Incl(ranks ...int) (Group, error) {
	out := Group{world: make([]int, 0, len(ranks))}
	for _, r := range ranks {
		if r < 0 || r >= len(g.world) {
			return Group{}, fmt.Errorf("mpi: Group.Incl: rank %d: %w (group size %d)", r, ErrRank, len(g.world))
		}
		if slices.Contains(out.world, g.world[r]) {
			return Group{}, fmt.Errorf("mpi: Group.Incl: rank %d given twice: %w", r, ErrRank)
		}
		out.world = append(out.world, g.world[r])
	}
	return out, nil
}

// Excl returns the group of g's members other than the given ranks, in
// g's order.
func (g Group) Excl(ranks ...int) (Group, error) {
	drop := make([]bool, len(g.world))
	for _, r := range ranks {
		if r < 0 || r >= len(g.world) {
			return Group{}, fmt.Errorf("mpi: Group.Excl: rank %d: %w (group size %d)", r, ErrRank, len(g.world))
		}
		drop[r] = true
	}
	var out Group
	for i, w := range g.world {
		if !drop[i] {
			out.world = append(out.world, w)
		}
	}
	return out, nil
}

// Union returns the members of g followed by those of h not in g.
func (g Group) Union(h Group) Group {
	out := Group{world: slices.Clone(g.world)}
	for _, w := range h.world {
		if !slices.Contains(out.world, w) {
			out.world = append(out.world, w)
		}
	}
	return out
}

// Intersection returns the members of g that are also in h, in g's order.
func (g Group) Intersection(h Group) Group {
	var out Group
	for _, w := range g.world {
		if slices.Contains(h.world, w) {
			out.world = append(out.world, w)
		}
	}
	return out
}

// Difference returns the members of g that are not in h, in g's order.
func (g Group) Difference(h Group) Group {
	var out Group
	for _, w := range g.world {
		if !slices.Contains(h.world, w) {
			out.world = append(out.world, w)
		}
	}
	return out
}

// TranslateRanks returns the ranks in h of the processes of the given
// ranks of g (Undefined for those not in h).
func (g Group) TranslateRanks(ranks []int, h Group) ([]int, error) {
	out := make([]int, len(ranks))
	for i, r := range ranks {
		if r < 0 || r >= len(g.world) {
			return nil, fmt.Errorf("mpi: Group.TranslateRanks: rank %d: %w (group size %d)", r, ErrRank, len(g.world))
		}
		out[i] = h.rankOf(g.world[r])
	}
	return out, nil
}

// Equal reports whether g and h have the same members in the same order.
func (g Group) Equal(h Group) bool { return slices.Equal(g.world, h.world) }
