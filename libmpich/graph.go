package main

// Graph and distributed graph topologies and the neighbourhood
// collectives (MPI_Graph_create ... MPI_Neighbor_alltoallv).

/*
extern int *const MPI_UNWEIGHTED;
extern int *const MPI_WEIGHTS_EMPTY;
*/
import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// weightsArg returns the n weights at p: nil for MPI_UNWEIGHTED, empty
// for MPI_WEIGHTS_EMPTY.
func weightsArg(p unsafe.Pointer, n int) []int {
	switch p {
	case unsafe.Pointer(C.MPI_UNWEIGHTED):
		return nil
	case unsafe.Pointer(C.MPI_WEIGHTS_EMPTY):
		return []int{}
	}
	return scaled(p, n, 1)
}

// PMPI_Graph_create implements MPI_Graph_create.
//
//export PMPI_Graph_create
func PMPI_Graph_create(comm, nnodes int32, index, edges unsafe.Pointer, reorder int32, out *int32) (rc int32) {
	defer guard("MPI_Graph_create", &rc)
	o, rc := commArg("MPI_Graph_create", comm)
	if rc != errSuccess {
		return rc
	}
	idx, edg := graphArrays(index, edges, nnodes)
	c, err := o.c.GraphCreate(idx, edg, reorder != 0)
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Graph_create", o, comm, err)
}

// graphArrays reads a graph's C arrays: nnodes cumulative degrees (index)
// and the edges they count.
func graphArrays(index, edges unsafe.Pointer, nnodes int32) (idx, edg []int) {
	idx = scaled(index, int(nnodes), 1)
	nedges := 0
	if len(idx) > 0 {
		nedges = idx[len(idx)-1]
	}
	return idx, scaled(edges, nedges, 1)
}

// PMPI_Graphdims_get implements MPI_Graphdims_get.
//
//export PMPI_Graphdims_get
func PMPI_Graphdims_get(comm int32, nnodes, nedges *int32) (rc int32) {
	defer guard("MPI_Graphdims_get", &rc)
	o, rc := commArg("MPI_Graphdims_get", comm)
	if rc != errSuccess {
		return rc
	}
	n, e, err := o.c.GraphdimsGet()
	if err == nil {
		*nnodes, *nedges = int32(n), int32(e)
	}
	return check("MPI_Graphdims_get", o, comm, err)
}

// PMPI_Graph_get implements MPI_Graph_get.
//
//export PMPI_Graph_get
func PMPI_Graph_get(comm, maxindex, maxedges int32, index, edges unsafe.Pointer) (rc int32) {
	defer guard("MPI_Graph_get", &rc)
	o, rc := commArg("MPI_Graph_get", comm)
	if rc != errSuccess {
		return rc
	}
	idx, e, err := o.c.GraphGet()
	if err == nil {
		storeInts(index, idx[:min(len(idx), int(maxindex))])
		storeInts(edges, e[:min(len(e), int(maxedges))])
	}
	return check("MPI_Graph_get", o, comm, err)
}

// PMPI_Graph_neighbors_count implements MPI_Graph_neighbors_count.
//
//export PMPI_Graph_neighbors_count
func PMPI_Graph_neighbors_count(comm, rank int32, n *int32) (rc int32) {
	defer guard("MPI_Graph_neighbors_count", &rc)
	o, rc := commArg("MPI_Graph_neighbors_count", comm)
	if rc != errSuccess {
		return rc
	}
	k, err := o.c.GraphNeighborsCount(int(rank))
	if err == nil {
		*n = int32(k)
	}
	return check("MPI_Graph_neighbors_count", o, comm, err)
}

// PMPI_Graph_neighbors implements MPI_Graph_neighbors.
//
//export PMPI_Graph_neighbors
func PMPI_Graph_neighbors(comm, rank, maxn int32, out unsafe.Pointer) (rc int32) {
	defer guard("MPI_Graph_neighbors", &rc)
	o, rc := commArg("MPI_Graph_neighbors", comm)
	if rc != errSuccess {
		return rc
	}
	ns, err := o.c.GraphNeighbors(int(rank))
	if err == nil {
		storeInts(out, ns[:min(len(ns), int(maxn))])
	}
	return check("MPI_Graph_neighbors", o, comm, err)
}

// PMPI_Dist_graph_create_adjacent implements MPI_Dist_graph_create_adjacent.
//
//export PMPI_Dist_graph_create_adjacent
func PMPI_Dist_graph_create_adjacent(comm, indeg int32, sources, sweights unsafe.Pointer, outdeg int32, dests, dweights unsafe.Pointer, info, reorder int32, out *int32) (rc int32) {
	defer guard("MPI_Dist_graph_create_adjacent", &rc)
	o, rc := commArg("MPI_Dist_graph_create_adjacent", comm)
	if rc != errSuccess {
		return rc
	}
	c, err := o.c.DistGraphCreateAdjacent(scaled(sources, int(indeg), 1), weightsArg(sweights, int(indeg)),
		scaled(dests, int(outdeg), 1), weightsArg(dweights, int(outdeg)), reorder != 0)
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Dist_graph_create_adjacent", o, comm, err)
}

// PMPI_Dist_graph_create implements MPI_Dist_graph_create.
//
//export PMPI_Dist_graph_create
func PMPI_Dist_graph_create(comm, n int32, sources, degrees, dests, weights unsafe.Pointer, info, reorder int32, out *int32) (rc int32) {
	defer guard("MPI_Dist_graph_create", &rc)
	o, rc := commArg("MPI_Dist_graph_create", comm)
	if rc != errSuccess {
		return rc
	}
	degs := scaled(degrees, int(n), 1)
	c, err := o.c.DistGraphCreate(scaled(sources, int(n), 1), degs, scaled(dests, sum(degs), 1), weightsArg(weights, sum(degs)), reorder != 0)
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Dist_graph_create", o, comm, err)
}

// PMPI_Dist_graph_neighbors_count implements MPI_Dist_graph_neighbors_count.
//
//export PMPI_Dist_graph_neighbors_count
func PMPI_Dist_graph_neighbors_count(comm int32, indeg, outdeg, weighted *int32) (rc int32) {
	defer guard("MPI_Dist_graph_neighbors_count", &rc)
	o, rc := commArg("MPI_Dist_graph_neighbors_count", comm)
	if rc != errSuccess {
		return rc
	}
	in, out, w, err := o.c.DistGraphNeighborsCount()
	if err == nil {
		*indeg, *outdeg, *weighted = int32(in), int32(out), boolInt(w)
	}
	return check("MPI_Dist_graph_neighbors_count", o, comm, err)
}

// PMPI_Dist_graph_neighbors implements MPI_Dist_graph_neighbors.
//
//export PMPI_Dist_graph_neighbors
func PMPI_Dist_graph_neighbors(comm, maxin int32, sources, sweights unsafe.Pointer, maxout int32, dests, dweights unsafe.Pointer) (rc int32) {
	defer guard("MPI_Dist_graph_neighbors", &rc)
	o, rc := commArg("MPI_Dist_graph_neighbors", comm)
	if rc != errSuccess {
		return rc
	}
	s, sw, d, dw, err := o.c.DistGraphNeighbors()
	if err == nil {
		storeInts(sources, s[:min(len(s), int(maxin))])
		storeInts(dests, d[:min(len(d), int(maxout))])
		if sw != nil && weightsArg(sweights, 0) != nil {
			storeInts(sweights, sw[:min(len(sw), int(maxin))])
		}
		if dw != nil && weightsArg(dweights, 0) != nil {
			storeInts(dweights, dw[:min(len(dw), int(maxout))])
		}
	}
	return check("MPI_Dist_graph_neighbors", o, comm, err)
}

// degrees returns the numbers of in- and out-neighbours of the calling
// process in c's topology.
func degrees(c *mpi.Comm) (in, out int, err error) {
	t, err := c.TopoTest()
	if err != nil {
		return 0, 0, err
	}
	switch t {
	case mpi.TopoCart:
		n, err := c.Cartdim()
		return 2 * n, 2 * n, err
	case mpi.TopoGraph:
		n, err := c.GraphNeighborsCount(c.Rank())
		return n, n, err
	case mpi.TopoDistGraph:
		in, out, _, err := c.DistGraphNeighborsCount()
		return in, out, err
	}
	return 0, 0, errorf(errTopology, "the communicator has no topology")
}

// PMPI_Neighbor_allgather implements MPI_Neighbor_allgather.
//
//export PMPI_Neighbor_allgather
func PMPI_Neighbor_allgather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_allgather", &rc)
	return neighborAllgather("MPI_Neighbor_allgather", sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm)
}

// neighborAllgather is MPI_Neighbor_allgather and its _c form.
func neighborAllgather(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	in, _, err := degrees(o.c)
	var st staging
	var s, r []byte
	if err == nil {
		s, err = sendBytes(sbuf, scount, stype)
	}
	if err == nil {
		r, err = st.recv(rbuf, blockItems(rcount, in), rtype)
	}
	if err == nil {
		err = st.after(mpi.NeighborAllgather(o.c, s, r))
	}
	return check(fn, o, comm, err)
}

// PMPI_Neighbor_alltoall implements MPI_Neighbor_alltoall.
//
//export PMPI_Neighbor_alltoall
func PMPI_Neighbor_alltoall(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoall", &rc)
	return neighborAlltoall("MPI_Neighbor_alltoall", sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm)
}

// neighborAlltoall is MPI_Neighbor_alltoall and its _c form.
func neighborAlltoall(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	in, out, err := degrees(o.c)
	var st staging
	var s, r []byte
	if err == nil {
		s, err = sendBytes(sbuf, blockItems(scount, out), stype)
	}
	if err == nil {
		r, err = st.recv(rbuf, blockItems(rcount, in), rtype)
	}
	if err == nil {
		err = st.after(mpi.NeighborAlltoall(o.c, s, r))
	}
	return check(fn, o, comm, err)
}

// PMPI_Neighbor_allgatherv implements MPI_Neighbor_allgatherv.
//
//export PMPI_Neighbor_allgatherv
func PMPI_Neighbor_allgatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf, rcounts, displs unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_allgatherv", &rc)
	return neighborAllgatherv("MPI_Neighbor_allgatherv", sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype, comm)
}

// neighborAllgatherv is MPI_Neighbor_allgatherv and its _c form.
func neighborAllgatherv(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcounts, displs cArray, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	in, _, err := degrees(o.c)
	var st staging
	var s, r []byte
	var cs, ds []int
	if err == nil {
		s, err = sendBytes(sbuf, scount, stype)
	}
	if err == nil {
		r, cs, ds, err = st.v(rbuf, rcounts, displs, rtype, in, true)
	}
	if err == nil {
		err = st.after(mpi.NeighborAllgatherv(o.c, s, r, cs, ds))
	}
	return check(fn, o, comm, err)
}

// PMPI_Neighbor_alltoallv implements MPI_Neighbor_alltoallv.
//
//export PMPI_Neighbor_alltoallv
func PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls unsafe.Pointer, stype int32, rbuf, rcounts, rdispls unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Neighbor_alltoallv", &rc)
	return neighborAlltoallv("MPI_Neighbor_alltoallv", sbuf, cInts(scounts), cInts(sdispls), stype, rbuf, cInts(rcounts), cInts(rdispls), rtype, comm)
}

// neighborAlltoallv is MPI_Neighbor_alltoallv and its _c form.
func neighborAlltoallv(fn string, sbuf unsafe.Pointer, scounts, sdispls cArray, stype int32, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	in, out, err := degrees(o.c)
	var st staging
	var s, r []byte
	var scs, sds, rcs, rds []int
	if err == nil {
		s, scs, sds, err = st.v(sbuf, scounts, sdispls, stype, out, false)
	}
	if err == nil {
		r, rcs, rds, err = st.v(rbuf, rcounts, rdispls, rtype, in, true)
	}
	if err == nil {
		err = st.after(mpi.NeighborAlltoallv(o.c, s, scs, sds, r, rcs, rds))
	}
	return check(fn, o, comm, err)
}
