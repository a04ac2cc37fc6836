package main

// Collective operations that move data (MPI_Barrier ... MPI_Alltoallv):
// they move the items' bytes.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// intArray returns the C array of n ints at p.
func intArray(p unsafe.Pointer, n int) []int32 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*int32)(p), n)
}

// scaled returns the n ints at p multiplied by size (counts and
// displacements in items become bytes).
func scaled(p unsafe.Pointer, n, size int) []int { return cInts(p).scaled(n, size) }

// sum returns the sum of xs.
func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// sendArg returns the send buffer of a collective, its items packed when
// they are not contiguous: nil for MPI_IN_PLACE.
func sendArg(p unsafe.Pointer, count int64, dt int32) ([]byte, error) {
	if isInPlace(p) {
		return nil, nil
	}
	return sendBytes(p, count, dt)
}

// groupSize returns the number of processes a rooted or all-to-all
// collective's buffers have blocks for: the remote group's on an
// intercommunicator.
func groupSize(c *mpi.Comm) int {
	if c.IsInter() {
		n, _ := c.RemoteSize()
		return n
	}
	return c.Size()
}

// PMPI_Barrier implements MPI_Barrier.
//
//export PMPI_Barrier
func PMPI_Barrier(comm int32) (rc int32) {
	defer guard("MPI_Barrier", &rc)
	o, rc := commArg("MPI_Barrier", comm)
	if rc != errSuccess {
		return rc
	}
	return check("MPI_Barrier", o, comm, mpi.Barrier(o.c))
}

// PMPI_Bcast implements MPI_Bcast.
//
//export PMPI_Bcast
func PMPI_Bcast(buf unsafe.Pointer, count, dt, root, comm int32) (rc int32) {
	defer guard("MPI_Bcast", &rc)
	return bcast("MPI_Bcast", buf, int64(count), dt, root, comm)
}

// bcast is MPI_Bcast and MPI_Bcast_c.
func bcast(fn string, buf unsafe.Pointer, count int64, dt, root, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	cb, err := cbufOf(buf, count, dt)
	if err == nil && cb.dt == nil {
		err = mpi.Bcast(o.c, cb.bytes(), mapRank(root))
	} else if err == nil {
		err = mpi.BcastType(o.c, cb.bytes(), cb.count, cb.dt, mapRank(root))
	}
	return check(fn, o, comm, err)
}

// isRoot reports whether the caller is the root of a rooted collective:
// the rank root of an intracommunicator, or MPI_ROOT.
func isRoot(c *mpi.Comm, root int32) bool {
	if c.IsInter() {
		return root == cRoot
	}
	return int(root) == c.Rank()
}

// PMPI_Gather implements MPI_Gather.
//
//export PMPI_Gather
func PMPI_Gather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Gather", &rc)
	return gather("MPI_Gather", sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, root, comm)
}

// gather is MPI_Gather and MPI_Gather_c.
func gather(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	s, err := sendArg(sbuf, scount, stype)
	var r []byte
	if err == nil && isRoot(o.c, root) {
		r, err = st.recv(rbuf, blockItems(rcount, groupSize(o.c)), rtype)
	}
	if err == nil {
		err = st.after(mpi.Gather(o.c, s, r, mapRank(root)))
	}
	return check(fn, o, comm, err)
}

// PMPI_Gatherv implements MPI_Gatherv.
//
//export PMPI_Gatherv
func PMPI_Gatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Gatherv", &rc)
	return gatherv("MPI_Gatherv", sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype, root, comm)
}

// gatherv is MPI_Gatherv and MPI_Gatherv_c.
func gatherv(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcounts, displs cArray, rtype, root, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	s, err := sendArg(sbuf, scount, stype)
	var r []byte
	var counts, ds []int
	if err == nil && isRoot(o.c, root) {
		r, counts, ds, err = st.v(rbuf, rcounts, displs, rtype, groupSize(o.c), true)
	}
	if err == nil {
		err = st.after(mpi.Gatherv(o.c, s, r, counts, ds, mapRank(root)))
	}
	return check(fn, o, comm, err)
}

// PMPI_Scatter implements MPI_Scatter.
//
//export PMPI_Scatter
func PMPI_Scatter(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Scatter", &rc)
	return scatter("MPI_Scatter", sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, root, comm)
}

// scatter is MPI_Scatter and MPI_Scatter_c.
func scatter(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	var s, r []byte
	var err error
	if isRoot(o.c, root) {
		s, err = sendBytes(sbuf, blockItems(scount, groupSize(o.c)), stype)
	}
	if err == nil && !isInPlace(rbuf) {
		r, err = st.recv(rbuf, rcount, rtype)
	}
	if err == nil {
		err = st.after(mpi.Scatter(o.c, s, r, mapRank(root)))
	}
	return check(fn, o, comm, err)
}

// PMPI_Scatterv implements MPI_Scatterv.
//
//export PMPI_Scatterv
func PMPI_Scatterv(sbuf unsafe.Pointer, scounts, displs unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcount, rtype, root, comm int32) (rc int32) {
	defer guard("MPI_Scatterv", &rc)
	return scatterv("MPI_Scatterv", sbuf, cInts(scounts), cInts(displs), stype, rbuf, int64(rcount), rtype, root, comm)
}

// scatterv is MPI_Scatterv and MPI_Scatterv_c.
func scatterv(fn string, sbuf unsafe.Pointer, scounts, displs cArray, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, root, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	var s, r []byte
	var counts, ds []int
	var err error
	if isRoot(o.c, root) {
		s, counts, ds, err = st.v(sbuf, scounts, displs, stype, groupSize(o.c), false)
	}
	if err == nil && !isInPlace(rbuf) {
		r, err = st.recv(rbuf, rcount, rtype)
	}
	if err == nil {
		err = st.after(mpi.Scatterv(o.c, s, counts, ds, r, mapRank(root)))
	}
	return check(fn, o, comm, err)
}

// PMPI_Allgather implements MPI_Allgather.
//
//export PMPI_Allgather
func PMPI_Allgather(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32) (rc int32) {
	defer guard("MPI_Allgather", &rc)
	return allgather("MPI_Allgather", sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm)
}

// allgather is MPI_Allgather and MPI_Allgather_c.
func allgather(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	s, err := sendArg(sbuf, scount, stype)
	var r []byte
	if err == nil {
		r, err = st.recv(rbuf, blockItems(rcount, groupSize(o.c)), rtype)
	}
	if err == nil {
		err = st.after(mpi.Allgather(o.c, s, r))
	}
	return check(fn, o, comm, err)
}

// PMPI_Allgatherv implements MPI_Allgatherv.
//
//export PMPI_Allgatherv
func PMPI_Allgatherv(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Allgatherv", &rc)
	return allgatherv("MPI_Allgatherv", sbuf, int64(scount), stype, rbuf, cInts(rcounts), cInts(displs), rtype, comm)
}

// allgatherv is MPI_Allgatherv and MPI_Allgatherv_c.
func allgatherv(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcounts, displs cArray, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	s, err := sendArg(sbuf, scount, stype)
	var r []byte
	var counts, ds []int
	if err == nil {
		r, counts, ds, err = st.v(rbuf, rcounts, displs, rtype, groupSize(o.c), true)
	}
	if err == nil {
		err = st.after(mpi.Allgatherv(o.c, s, r, counts, ds))
	}
	return check(fn, o, comm, err)
}

// PMPI_Alltoall implements MPI_Alltoall.
//
//export PMPI_Alltoall
func PMPI_Alltoall(sbuf unsafe.Pointer, scount, stype int32, rbuf unsafe.Pointer, rcount, rtype, comm int32) (rc int32) {
	defer guard("MPI_Alltoall", &rc)
	return alltoall("MPI_Alltoall", sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm)
}

// alltoall is MPI_Alltoall and MPI_Alltoall_c.
func alltoall(fn string, sbuf unsafe.Pointer, scount int64, stype int32, rbuf unsafe.Pointer, rcount int64, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	n := groupSize(o.c)
	s, err := sendArg(sbuf, blockItems(scount, n), stype)
	var r []byte
	if err == nil {
		r, err = st.recv(rbuf, blockItems(rcount, n), rtype)
	}
	if err == nil {
		err = st.after(mpi.Alltoall(o.c, s, r))
	}
	return check(fn, o, comm, err)
}

// PMPI_Alltoallv implements MPI_Alltoallv.
//
//export PMPI_Alltoallv
func PMPI_Alltoallv(sbuf unsafe.Pointer, scounts, sdispls unsafe.Pointer, stype int32, rbuf unsafe.Pointer, rcounts, rdispls unsafe.Pointer, rtype, comm int32) (rc int32) {
	defer guard("MPI_Alltoallv", &rc)
	return alltoallv("MPI_Alltoallv", sbuf, cInts(scounts), cInts(sdispls), stype, rbuf, cInts(rcounts), cInts(rdispls), rtype, comm)
}

// alltoallv is MPI_Alltoallv and MPI_Alltoallv_c.
func alltoallv(fn string, sbuf unsafe.Pointer, scounts, sdispls cArray, stype int32, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtype, comm int32) int32 {
	o, rc := commArg(fn, comm)
	if rc != errSuccess {
		return rc
	}
	var st staging
	s, sc, sd, r, rc2, rd, err := alltoallvArgs(&st, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, groupSize(o.c))
	if err == nil {
		err = st.after(mpi.Alltoallv(o.c, s, sc, sd, r, rc2, rd))
	}
	return check(fn, o, comm, err)
}

// alltoallvArgs returns the send and receive sides of an all-to-all
// v-form over n processes (its buffer, counts and displacements in
// bytes), with the receive side staged in st.
func alltoallvArgs(st *staging, sbuf unsafe.Pointer, scounts, sdispls cArray, stype int32, rbuf unsafe.Pointer, rcounts, rdispls cArray, rtype int32, n int) (s []byte, sc, sd []int, r []byte, rc, rd []int, err error) {
	r, rc, rd, err = st.v(rbuf, rcounts, rdispls, rtype, n, true)
	switch {
	case err != nil:
	case isInPlace(sbuf):
		// Package mpi's Alltoallv takes no in-place form, and the blocks
		// received overwrite those sent: send from a copy.
		s, sc, sd = st.copyOf(r), rc, rd
	default:
		s, sc, sd, err = st.v(sbuf, scounts, sdispls, stype, n, false)
	}
	return s, sc, sd, r, rc, rd, err
}
