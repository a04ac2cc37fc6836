package main

// Groups (MPI_Group_size ... MPI_Group_free).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// groupArg returns the group of handle h, or the error code of an invalid
// one.
func groupArg(fn string, h int32) (mpi.Group, int32) {
	g, ok := lookupGroup(h)
	if !ok {
		return g, fail(fn, nil, commWorld, errorf(errGroup, "invalid group %#x", uint32(h)))
	}
	return g, errSuccess
}

// storeGroup stores a handle for g at out.
func storeGroup(fn string, g mpi.Group, err error, out *int32) int32 {
	if err != nil {
		return fail(fn, nil, commWorld, err)
	}
	h, ok := addGroup(g)
	if !ok {
		return fail(fn, nil, commWorld, errorf(errNoMem, "too many groups"))
	}
	*out = h
	return errSuccess
}

// ranksArg returns the n ranks at p.
func ranksArg(p unsafe.Pointer, n int32) []int {
	return scaled(p, int(n), 1)
}

// PMPI_Group_size implements MPI_Group_size.
//
//export PMPI_Group_size
func PMPI_Group_size(group int32, size *int32) (rc int32) {
	defer guard("MPI_Group_size", &rc)
	g, rc := groupArg("MPI_Group_size", group)
	if rc == errSuccess {
		*size = int32(g.Size())
	}
	return rc
}

// PMPI_Group_rank implements MPI_Group_rank.
//
//export PMPI_Group_rank
func PMPI_Group_rank(group int32, rank *int32) (rc int32) {
	defer guard("MPI_Group_rank", &rc)
	g, rc := groupArg("MPI_Group_rank", group)
	if rc == errSuccess {
		*rank = int32(g.Rank())
		if g.Rank() < 0 {
			*rank = cUndefined
		}
	}
	return rc
}

// PMPI_Group_incl implements MPI_Group_incl.
//
//export PMPI_Group_incl
func PMPI_Group_incl(group, n int32, ranks unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Group_incl", &rc)
	g, rc := groupArg("MPI_Group_incl", group)
	if rc != errSuccess {
		return rc
	}
	ng, err := g.Incl(ranksArg(ranks, n)...)
	return storeGroup("MPI_Group_incl", ng, err, out)
}

// PMPI_Group_excl implements MPI_Group_excl.
//
//export PMPI_Group_excl
func PMPI_Group_excl(group, n int32, ranks unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Group_excl", &rc)
	g, rc := groupArg("MPI_Group_excl", group)
	if rc != errSuccess {
		return rc
	}
	ng, err := g.Excl(ranksArg(ranks, n)...)
	return storeGroup("MPI_Group_excl", ng, err, out)
}

// groupPair returns the groups of handles a and b.
func groupPair(fn string, a, b int32) (g, h mpi.Group, rc int32) {
	if g, rc = groupArg(fn, a); rc != errSuccess {
		return
	}
	h, rc = groupArg(fn, b)
	return
}

// PMPI_Group_union implements MPI_Group_union.
//
//export PMPI_Group_union
func PMPI_Group_union(a, b int32, out *int32) (rc int32) {
	defer guard("MPI_Group_union", &rc)
	g, h, rc := groupPair("MPI_Group_union", a, b)
	if rc != errSuccess {
		return rc
	}
	return storeGroup("MPI_Group_union", g.Union(h), nil, out)
}

// PMPI_Group_intersection implements MPI_Group_intersection.
//
//export PMPI_Group_intersection
func PMPI_Group_intersection(a, b int32, out *int32) (rc int32) {
	defer guard("MPI_Group_intersection", &rc)
	g, h, rc := groupPair("MPI_Group_intersection", a, b)
	if rc != errSuccess {
		return rc
	}
	return storeGroup("MPI_Group_intersection", g.Intersection(h), nil, out)
}

// PMPI_Group_difference implements MPI_Group_difference.
//
//export PMPI_Group_difference
func PMPI_Group_difference(a, b int32, out *int32) (rc int32) {
	defer guard("MPI_Group_difference", &rc)
	g, h, rc := groupPair("MPI_Group_difference", a, b)
	if rc != errSuccess {
		return rc
	}
	return storeGroup("MPI_Group_difference", g.Difference(h), nil, out)
}

// PMPI_Group_compare implements MPI_Group_compare.
//
//export PMPI_Group_compare
func PMPI_Group_compare(a, b int32, result *int32) (rc int32) {
	defer guard("MPI_Group_compare", &rc)
	g, h, rc := groupPair("MPI_Group_compare", a, b)
	if rc == errSuccess {
		*result = comparison(g.Compare(h))
	}
	return rc
}

// PMPI_Group_translate_ranks implements MPI_Group_translate_ranks.
//
//export PMPI_Group_translate_ranks
func PMPI_Group_translate_ranks(a, n int32, ranks unsafe.Pointer, b int32, out unsafe.Pointer) (rc int32) {
	defer guard("MPI_Group_translate_ranks", &rc)
	g, h, rc := groupPair("MPI_Group_translate_ranks", a, b)
	if rc != errSuccess {
		return rc
	}
	rs := ranksArg(ranks, n)
	for i, r := range rs {
		rs[i] = mapRank(int32(r))
	}
	tr, err := g.TranslateRanks(rs, h)
	if err != nil {
		return fail("MPI_Group_translate_ranks", nil, commWorld, err)
	}
	dst := intArray(out, int(n))
	for i, r := range tr {
		dst[i] = int32(r)
		if r == mpi.Undefined {
			dst[i] = cUndefined
		} else if r == mpi.ProcNull {
			dst[i] = cProcNull
		}
	}
	return errSuccess
}

// PMPI_Group_free implements MPI_Group_free.
//
//export PMPI_Group_free
func PMPI_Group_free(group *int32) (rc int32) {
	defer guard("MPI_Group_free", &rc)
	if *group != groupEmpty {
		if _, ok := groups.remove(*group); !ok {
			return fail("MPI_Group_free", nil, commWorld, errorf(errGroup, "invalid group %#x", uint32(*group)))
		}
	}
	*group = groupNull
	return errSuccess
}

// rangeRanks expands n triplets (first, last, stride) at p into ranks.
func rangeRanks(p unsafe.Pointer, n int32) ([]int, error) {
	t := intArray(p, int(n)*3)
	var ranks []int
	for i := 0; i+2 < len(t); i += 3 {
		first, last, stride := int(t[i]), int(t[i+1]), int(t[i+2])
		if stride == 0 || (last-first)/stride < 0 {
			return nil, errorf(errArg, "invalid range %d,%d,%d", first, last, stride)
		}
		for r := first; (stride > 0 && r <= last) || (stride < 0 && r >= last); r += stride {
			ranks = append(ranks, r)
		}
	}
	return ranks, nil
}

// PMPI_Group_range_incl implements MPI_Group_range_incl.
//
//export PMPI_Group_range_incl
func PMPI_Group_range_incl(group, n int32, ranges unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Group_range_incl", &rc)
	g, rc := groupArg("MPI_Group_range_incl", group)
	if rc != errSuccess {
		return rc
	}
	ranks, err := rangeRanks(ranges, n)
	var ng mpi.Group
	if err == nil {
		ng, err = g.Incl(ranks...)
	}
	return storeGroup("MPI_Group_range_incl", ng, err, out)
}

// PMPI_Group_range_excl implements MPI_Group_range_excl.
//
//export PMPI_Group_range_excl
func PMPI_Group_range_excl(group, n int32, ranges unsafe.Pointer, out *int32) (rc int32) {
	defer guard("MPI_Group_range_excl", &rc)
	g, rc := groupArg("MPI_Group_range_excl", group)
	if rc != errSuccess {
		return rc
	}
	ranks, err := rangeRanks(ranges, n)
	var ng mpi.Group
	if err == nil {
		ng, err = g.Excl(ranks...)
	}
	return storeGroup("MPI_Group_range_excl", ng, err, out)
}
