package main

// MPI_Alltoallw, MPI_Ialltoallw, MPI_Ireduce_scatter and the nonblocking
// neighbourhood v-forms.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// wArgs returns one side of an all-to-all w-form over n processes, with
// byte displacements ds: the bytes its blocks span at p, and each block's
// count, byte displacement and datatype (over bytes).
func wArgs(p unsafe.Pointer, counts cArray, ds []int, types unsafe.Pointer, n int) ([]byte, []int, []int, []*mpi.Datatype, error) {
	if err := counts.countsOK(n); err != nil {
		return nil, nil, nil, nil, err
	}
	cs := counts.scaled(n, 1)
	dts := make([]*mpi.Datatype, n)
	end := 0
	for j, h := range intArray(types, n) {
		dt, _, err := typeBase(h)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if dt.LowerBound() < 0 || dt.TrueLowerBound() < 0 {
			return nil, nil, nil, nil, errorf(errType, "datatypes with a negative lower bound are not supported")
		}
		dts[j] = dt
		if cs[j] > 0 {
			if err := checkCount(int64(cs[j]), dt.Extent()+dt.TrueExtent()); err != nil {
				return nil, nil, nil, nil, err
			}
			end = max(end, ds[j]+(cs[j]-1)*dt.Extent()+dt.TrueLowerBound()+dt.TrueExtent())
		}
	}
	return byteSlice(p, end), cs, ds, dts, nil
}

// alltoallwArgs resolves both sides of MPI_Alltoallw on c: a nil send
// side for MPI_IN_PLACE.
type alltoallwArgs struct {
	s, r               []byte
	scs, sds, rcs, rds []int
	sts, rts           []*mpi.Datatype
}

// newAlltoallwArgs reads the arguments of MPI_Alltoallw over n
// processes: counts and displacements C ints, or MPI_Count and MPI_Aint
// values (MPI_Alltoallw_c).
func newAlltoallwArgs(sbuf unsafe.Pointer, scounts, sdispls cArray, stypes, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtypes unsafe.Pointer, n int) (alltoallwArgs, error) {
	return readWArgs(sbuf, scounts, sdispls.scaled(n, 1), stypes, rbuf, rcounts, rdispls.scaled(n, 1), rtypes, n, n)
}

// readWArgs reads the arguments of a w-form with out blocks to send and
// in to receive, at byte displacements sds and rds.
func readWArgs(sbuf unsafe.Pointer, scounts cArray, sds []int, stypes, rbuf unsafe.Pointer, rcounts cArray, rds []int, rtypes unsafe.Pointer, out, in int) (alltoallwArgs, error) {
	var a alltoallwArgs
	var err error
	a.r, a.rcs, a.rds, a.rts, err = wArgs(rbuf, rcounts, rds, rtypes, in)
	if err == nil && !isInPlace(sbuf) {
		a.s, a.scs, a.sds, a.sts, err = wArgs(sbuf, scounts, sds, stypes, out)
	}
	return a, err
}

// neighborAlltoallwStarter starts MPI_Ineighbor_alltoallw (and its _c
// form), whose displacements are MPI_Aints.
func neighborAlltoallwStarter(sbuf unsafe.Pointer, scounts, sdispls cArray, stypes, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtypes unsafe.Pointer) collStarter {
	return neighborStarter(func(c *mpi.Comm, in, out int, _ *staging) (*mpi.Request, error) {
		a, err := readWArgs(sbuf, scounts, sdispls.scaled(out, 1), stypes, rbuf, rcounts, rdispls.scaled(in, 1), rtypes, out, in)
		if err != nil {
			return nil, err
		}
		return mpi.IneighborAlltoallw(c, a.s, a.scs, a.sds, a.sts, a.r, a.rcs, a.rds, a.rts)
	})
}

// PMPI_Neighbor_alltoallw implements MPI_Neighbor_alltoallw.
//
//export PMPI_Neighbor_alltoallw
func PMPI_Neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallw", &rc)
	return waitColl("MPI_Neighbor_alltoallw", comm, neighborAlltoallwStarter(sbuf, cInts(scounts), cWide(sdispls), stypes, rbuf, cInts(rcounts), cWide(rdispls), rtypes))
}

// waitColl is a blocking collective call fn run as its nonblocking form
// s, waited for: for datatypes that need no staging.
func waitColl(fn string, comm int32, s collStarter) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	r, err := s(o, nil)
	if err == nil {
		_, err = r.Wait()
	}
	return check(fn, o, comm, err)
}

// PMPI_Ineighbor_alltoallw implements MPI_Ineighbor_alltoallw.
//
//export PMPI_Ineighbor_alltoallw
func PMPI_Ineighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_alltoallw", &rc)
	return icoll("MPI_Ineighbor_alltoallw", comm, req, neighborAlltoallwStarter(sbuf, cInts(scounts), cWide(sdispls), stypes, rbuf, cInts(rcounts), cWide(rdispls), rtypes))
}

// PMPI_Alltoallw implements MPI_Alltoallw.
//
//export PMPI_Alltoallw
func PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32) (rc int32) {
	defer guard("MPI_Alltoallw", &rc)
	return alltoallw("MPI_Alltoallw", sbuf, cInts(scounts), cInts(sdispls), stypes, rbuf, cInts(rcounts), cInts(rdispls), rtypes, comm)
}

// alltoallw is MPI_Alltoallw and MPI_Alltoallw_c.
func alltoallw(fn string, sbuf unsafe.Pointer, scounts, sdispls cArray, stypes, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtypes unsafe.Pointer, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	a, err := newAlltoallwArgs(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, groupSize(o.c))
	if err == nil {
		err = mpi.Alltoallw(o.c, a.s, a.scs, a.sds, a.sts, a.r, a.rcs, a.rds, a.rts)
	}
	return check(fn, o, comm, err)
}

// PMPI_Ialltoallw implements MPI_Ialltoallw.
//
//export PMPI_Ialltoallw
func PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes unsafe.Pointer, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ialltoallw", &rc)
	return icoll("MPI_Ialltoallw", comm, req, alltoallwStarter(sbuf, cInts(scounts), cInts(sdispls), stypes, rbuf, cInts(rcounts), cInts(rdispls), rtypes))
}

// alltoallwStarter starts MPI_Ialltoallw and its _c form.
func alltoallwStarter(sbuf unsafe.Pointer, scounts, sdispls cArray, stypes, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtypes unsafe.Pointer) collStarter {
	return func(o *commObj, _ *staging) (*mpi.Request, error) {
		a, err := newAlltoallwArgs(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, groupSize(o.c))
		if err != nil {
			return nil, err
		}
		return mpi.Ialltoallw(o.c, a.s, a.scs, a.sds, a.sts, a.r, a.rcs, a.rds, a.rts)
	}
}

func (typed[T]) ireduceScatter(c *mpi.Comm, send, recv unsafe.Pointer, counts []int, total int, op mpi.Op) (*mpi.Request, error) {
	if isInPlace(send) {
		return mpi.IreduceScatter(c, nil, typedSlice[T](recv, total), counts, op)
	}
	return mpi.IreduceScatter(c, typedSlice[T](send, total), typedSlice[T](recv, counts[c.Rank()]), counts, op)
}

// PMPI_Ireduce_scatter implements MPI_Ireduce_scatter.
//
//export PMPI_Ireduce_scatter
func PMPI_Ireduce_scatter(send, recv, counts unsafe.Pointer, dt, op, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ireduce_scatter", &rc)
	return icoll("MPI_Ireduce_scatter", comm, req, reduceScatterStarter(send, recv, cInts(counts), dt, op))
}

// reduceScatterStarter starts MPI_Ireduce_scatter and its _c form.
func reduceScatterStarter(send, recv unsafe.Pointer, counts cArray, dt, op int32) collStarter {
	items := scatterItems(send, func(c *mpi.Comm) (int, int) {
		its := counts.scaled(c.Size(), 1)
		return sum(its), its[c.Rank()]
	})
	return reductionStarter(send, recv, dt, op, items, func(c *mpi.Comm, red reduction, s, r unsafe.Pointer) (*mpi.Request, error) {
		cs := counts.scaled(c.Size(), red.per)
		return red.r.ireduceScatter(c, s, r, cs, sum(cs), red.op)
	})
}

// PMPI_Ineighbor_allgatherv implements MPI_Ineighbor_allgatherv.
//
//export PMPI_Ineighbor_allgatherv
func PMPI_Ineighbor_allgatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_allgatherv", &rc)
	return icoll("MPI_Ineighbor_allgatherv", comm, req, neighborAllgathervStarter(sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype))
}

// neighborAllgathervStarter starts MPI_Ineighbor_allgatherv and its _c
// form.
func neighborAllgathervStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcounts, displs cArray, rtype int32) collStarter {
	return neighborStarter(func(c *mpi.Comm, in, out int, st *staging) (*mpi.Request, error) {
		s, err := st.send(sbuf, scount, stype)
		if err != nil {
			return nil, err
		}
		r, cs, ds, err := st.v(rbuf, rcounts, displs, rtype, in, true)
		if err != nil {
			return nil, err
		}
		return mpi.IneighborAllgatherv(c, s, r, cs, ds)
	})
}

// PMPI_Ineighbor_alltoallv implements MPI_Ineighbor_alltoallv.
//
//export PMPI_Ineighbor_alltoallv
func PMPI_Ineighbor_alltoallv(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_alltoallv", &rc)
	return icoll("MPI_Ineighbor_alltoallv", comm, req, neighborAlltoallvStarter(sbuf, cInts(scounts), cInts(sdispls), stype, rbuf, cInts(rcounts), cInts(rdispls), rtype))
}

// neighborAlltoallvStarter starts MPI_Ineighbor_alltoallv and its _c
// form.
func neighborAlltoallvStarter(sbuf unsafe.Pointer, scounts, sdispls cArray, stype int32, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtype int32) collStarter {
	return neighborStarter(func(c *mpi.Comm, in, out int, st *staging) (*mpi.Request, error) {
		s, scs, sds, err := st.v(sbuf, scounts, sdispls, stype, out, false)
		if err != nil {
			return nil, err
		}
		r, rcs, rds, err := st.v(rbuf, rcounts, rdispls, rtype, in, true)
		if err != nil {
			return nil, err
		}
		return mpi.IneighborAlltoallv(c, s, scs, sds, r, rcs, rds)
	})
}
