package main

// Request-based one-sided calls, the nonblocking neighbourhood
// collectives, the topology mappings and a few datatype and window
// queries.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// rma is MPI_Rput and MPI_Rget: start starts the operation on one run.
func rma(fn string, get bool, start func(w *mpi.Win, b []byte, target, disp int) (*mpi.Request, error), origin unsafe.Pointer, ocount, otype, target int32, tdisp int64, tcount, ttype, win int32, req *int32) int32 {
	o, rc := winArg(fn, win)
	if rc != errSuccess {
		return rc
	}
	p, err := planRMA(o, origin, ocount, otype, get, target, tdisp, tcount, ttype)
	var r *mpi.Request
	if err == nil {
		r, err = startRMA(o, &p, func(b []byte, at int) (*mpi.Request, error) { return start(o.w, b, mapRank(target), at) })
	}
	if err == nil {
		err = addRequest(o.comm, commWorld, r, false, req)
	}
	return winCheck(fn, o, err)
}

// startRMA starts a request-based one-sided operation of plan p, each run
// by start: one request as package mpi's when p is whole; else one for
// the runs' requests, complete once each is (the origin then free to
// reuse) and a get's origin unpacked.
func startRMA(o *winObj, p *rmaPlan, start func(b []byte, at int) (*mpi.Request, error)) (*mpi.Request, error) {
	if p.whole() {
		return start(p.data, p.runs[0].at)
	}
	var rs []*mpi.Request
	err := p.each(func(b []byte, at int) error {
		r, err := start(b, at)
		rs = append(rs, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return joined(o, rs, p.unpack)
}

// PMPI_Rput implements MPI_Rput.
//
//export PMPI_Rput
func PMPI_Rput(origin unsafe.Pointer, ocount, otype, target int32, tdisp int64, tcount, ttype, win int32, req *int32) (rc int32) {
	defer guard("MPI_Rput", &rc)
	return rma("MPI_Rput", false, mpi.Rput[byte], origin, ocount, otype, target, tdisp, tcount, ttype, win, req)
}

// PMPI_Rget implements MPI_Rget.
//
//export PMPI_Rget
func PMPI_Rget(origin unsafe.Pointer, ocount, otype, target int32, tdisp int64, tcount, ttype, win int32, req *int32) (rc int32) {
	defer guard("MPI_Rget", &rc)
	return rma("MPI_Rget", true, mpi.Rget[byte], origin, ocount, otype, target, tdisp, tcount, ttype, win, req)
}

// PMPI_Win_test implements MPI_Win_test.
//
//export PMPI_Win_test
func PMPI_Win_test(win int32, flag *int32) (rc int32) {
	defer guard("MPI_Win_test", &rc)
	o, rc := winArg("MPI_Win_test", win)
	if rc != errSuccess {
		return rc
	}
	done, err := o.w.Test()
	*flag = boolInt(done)
	return winCheck("MPI_Win_test", o, err)
}

// PMPI_Win_set_info implements MPI_Win_set_info.
//
//export PMPI_Win_set_info
func PMPI_Win_set_info(win, info int32) (rc int32) {
	defer guard("MPI_Win_set_info", &rc)
	o, rc := winArg("MPI_Win_set_info", win)
	if rc == errSuccess {
		o.setHints(info) // kept for MPI_Win_get_info: none changes what this runtime does
	}
	return rc
}

// PMPI_Win_get_info implements MPI_Win_get_info.
//
//export PMPI_Win_get_info
func PMPI_Win_get_info(win int32, out *int32) (rc int32) {
	defer guard("MPI_Win_get_info", &rc)
	o, rc := winArg("MPI_Win_get_info", win)
	if rc != errSuccess {
		return rc
	}
	return addInfo("MPI_Win_get_info", o.hints.dup(), out)
}

// PMPI_Cart_map implements MPI_Cart_map.
//
//export PMPI_Cart_map
func PMPI_Cart_map(comm, ndims int32, dims, periods unsafe.Pointer, rank *int32) (rc int32) {
	defer guard("MPI_Cart_map", &rc)
	o, rc := commArg("MPI_Cart_map", comm)
	if rc != errSuccess {
		return rc
	}
	r, err := o.c.CartMap(scaled(dims, int(ndims), 1), boolArray(periods, int(ndims)))
	if err == nil {
		*rank = unmapUndefined(r)
	}
	return check("MPI_Cart_map", o, comm, err)
}

// PMPI_Graph_map implements MPI_Graph_map.
//
//export PMPI_Graph_map
func PMPI_Graph_map(comm, nnodes int32, index, edges unsafe.Pointer, rank *int32) (rc int32) {
	defer guard("MPI_Graph_map", &rc)
	o, rc := commArg("MPI_Graph_map", comm)
	if rc != errSuccess {
		return rc
	}
	idx, edg := graphArrays(index, edges, nnodes)
	r, err := o.c.GraphMap(idx, edg)
	if err == nil {
		*rank = unmapUndefined(r)
	}
	return check("MPI_Graph_map", o, comm, err)
}

// unmapUndefined converts a rank of package mpi, or its Undefined, to C's.
func unmapUndefined(r int) int32 {
	if r == mpi.Undefined || r < 0 {
		return cUndefined
	}
	return int32(r)
}

// PMPI_Type_create_hindexed_block implements MPI_Type_create_hindexed_block.
//
//export PMPI_Type_create_hindexed_block
func PMPI_Type_create_hindexed_block(count, blocklen int32, displs unsafe.Pointer, old int32, out *int32) (rc int32) {
	defer guard("MPI_Type_create_hindexed_block", &rc)
	return typeHindexedBlock("MPI_Type_create_hindexed_block", false, int64(count), int64(blocklen), cWide(displs), old, out)
}

// typeHindexedBlock is MPI_Type_create_hindexed_block, and its _c form if
// large.
func typeHindexedBlock(fn string, large bool, count, blocklen int64, displs cArray, old int32, out *int32) int32 {
	if rc := countArgs(fn, count, blocklen); rc != errSuccess {
		return rc
	}
	n := int(count)
	env := newEnvelope(combinerHindexedBlock, large)
	env.count(count, blocklen)
	env.addrArray(displs, n)
	return construct(fn, old, out, env, func(dt *mpi.Datatype) (*mpi.Datatype, error) {
		return hindexed(repeated(int(blocklen), n), displs.scaled(n, 1), dt)
	}, func(int) layout { return blocks(repeated(int(blocklen), n), displs.scaled(n, 1), 1) })
}

// Type classes of MPI_Type_match_size.
const (
	typeclassReal    = 1
	typeclassInteger = 2
	typeclassComplex = 3
)

// PMPI_Type_match_size implements MPI_Type_match_size.
//
//export PMPI_Type_match_size
func PMPI_Type_match_size(class, size int32, dt *int32) (rc int32) {
	defer guard("MPI_Type_match_size", &rc)
	var m map[int32]int32
	switch class {
	case typeclassReal:
		m = map[int32]int32{4: typeReal4, 8: typeReal8, 16: typeReal16}
	case typeclassInteger:
		m = map[int32]int32{1: typeInteger1, 2: typeInteger2, 4: typeInteger4, 8: typeInteger8}
	case typeclassComplex:
		m = map[int32]int32{8: typeComplex8, 16: typeComplex16, 32: typeComplex32}
	}
	h, ok := m[size]
	if !ok {
		return fail("MPI_Type_match_size", nil, commWorld, errorf(errArg, "no datatype of class %d and size %d", class, size))
	}
	*dt = h
	return errSuccess
}

// neighborStarter is the starter of a neighbourhood collective: start
// gets the in- and out-degree of the communicator's topology.
func neighborStarter(start func(c *mpi.Comm, in, out int, st *staging) (*mpi.Request, error)) collStarter {
	return func(o *commObj, st *staging) (*mpi.Request, error) {
		in, out, err := degrees(o.c)
		if err != nil {
			return nil, err
		}
		return start(o.c, in, out, st)
	}
}

// PMPI_Ineighbor_allgather implements MPI_Ineighbor_allgather.
//
//export PMPI_Ineighbor_allgather
func PMPI_Ineighbor_allgather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_allgather", &rc)
	return icoll("MPI_Ineighbor_allgather", comm, req, neighborAllgatherStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

// neighborAllgatherStarter starts MPI_Ineighbor_allgather and its _c
// form.
func neighborAllgatherStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype int32) collStarter {
	return neighborStarter(func(c *mpi.Comm, in, out int, st *staging) (*mpi.Request, error) {
		s, err := st.send(sbuf, scount, stype)
		var r []byte
		if err == nil {
			r, err = st.recv(rbuf, blockItems(rcount, in), rtype)
		}
		if err != nil {
			return nil, err
		}
		return mpi.IneighborAllgather(c, s, r)
	})
}

// PMPI_Ineighbor_alltoall implements MPI_Ineighbor_alltoall.
//
//export PMPI_Ineighbor_alltoall
func PMPI_Ineighbor_alltoall(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32, req *int32) (rc int32) {
	defer guard("MPI_Ineighbor_alltoall", &rc)
	return icoll("MPI_Ineighbor_alltoall", comm, req, neighborAlltoallStarter(sbuf, int64(scount), stype, rbuf, int64(rcount), rtype))
}

// neighborAlltoallStarter starts MPI_Ineighbor_alltoall and its _c form.
func neighborAlltoallStarter(sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype int32) collStarter {
	return neighborStarter(func(c *mpi.Comm, in, out int, st *staging) (*mpi.Request, error) {
		s, err := st.send(sbuf, blockItems(scount, out), stype)
		var r []byte
		if err == nil {
			r, err = st.recv(rbuf, blockItems(rcount, in), rtype)
		}
		if err != nil {
			return nil, err
		}
		return mpi.IneighborAlltoall(c, s, r)
	})
}
