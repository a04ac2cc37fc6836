package main

// Communicators and groups (MPI_Comm_dup ... MPI_Group_free).

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// newComm stores the handle of c (MPI_COMM_NULL for nil) at out; the new
// communicator inherits parent's error handler, as MPI says.
func newComm(parent *commObj, c *mpi.Comm, out *int32) error {
	return addComm(c, parent.errh.Load(), out)
}

// addComm stores the handle of c (MPI_COMM_NULL for nil), with error
// handler errh, at out.
func addComm(c *mpi.Comm, errh int32, out *int32) error {
	if c == nil {
		*out = commNull
		return nil
	}
	o := newCommObj(c)
	o.errh.Store(errh)
	h, ok := comms.add(o)
	if !ok {
		return errorf(errNoMem, "too many communicators")
	}
	*out = h
	return nil
}

// PMPI_Comm_rank implements MPI_Comm_rank.
//
//export PMPI_Comm_rank
func PMPI_Comm_rank(comm int32, rank *int32) (rc int32) {
	defer guard("MPI_Comm_rank", &rc)
	o, rc := commArg("MPI_Comm_rank", comm)
	if rc == errSuccess {
		*rank = int32(o.c.Rank())
	}
	return rc
}

// PMPI_Comm_size implements MPI_Comm_size.
//
//export PMPI_Comm_size
func PMPI_Comm_size(comm int32, size *int32) (rc int32) {
	defer guard("MPI_Comm_size", &rc)
	o, rc := commArg("MPI_Comm_size", comm)
	if rc == errSuccess {
		*size = int32(o.c.Size())
	}
	return rc
}

// PMPI_Comm_remote_size implements MPI_Comm_remote_size.
//
//export PMPI_Comm_remote_size
func PMPI_Comm_remote_size(comm int32, size *int32) (rc int32) {
	defer guard("MPI_Comm_remote_size", &rc)
	o, rc := commArg("MPI_Comm_remote_size", comm)
	if rc != errSuccess {
		return rc
	}
	n, err := o.c.RemoteSize()
	if err == nil {
		*size = int32(n)
	}
	return check("MPI_Comm_remote_size", o, comm, err)
}

// PMPI_Comm_test_inter implements MPI_Comm_test_inter.
//
//export PMPI_Comm_test_inter
func PMPI_Comm_test_inter(comm int32, flag *int32) (rc int32) {
	defer guard("MPI_Comm_test_inter", &rc)
	o, rc := commArg("MPI_Comm_test_inter", comm)
	if rc == errSuccess {
		*flag = boolInt(o.c.IsInter())
	}
	return rc
}

// PMPI_Comm_dup implements MPI_Comm_dup.
//
//export PMPI_Comm_dup
func PMPI_Comm_dup(comm int32, out *int32) (rc int32) {
	defer guard("MPI_Comm_dup", &rc)
	o, rc := commArg("MPI_Comm_dup", comm)
	if rc != errSuccess {
		return rc
	}
	c, err := o.c.Dup()
	if err == nil {
		err = newComm(o, c, out)
	}
	if err == nil {
		n, _ := comms.get(*out)
		err = copyAttrs(o, comm, n)
	}
	return check("MPI_Comm_dup", o, comm, err)
}

// PMPI_Comm_split implements MPI_Comm_split.
//
//export PMPI_Comm_split
func PMPI_Comm_split(comm, color, key int32, out *int32) (rc int32) {
	defer guard("MPI_Comm_split", &rc)
	o, rc := commArg("MPI_Comm_split", comm)
	if rc != errSuccess {
		return rc
	}
	col := int(color)
	if color == cUndefined {
		col = mpi.Undefined
	}
	c, err := o.c.Split(col, int(key))
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Comm_split", o, comm, err)
}

// PMPI_Comm_split_type implements MPI_Comm_split_type (splitType).
//
//export PMPI_Comm_split_type
func PMPI_Comm_split_type(comm, kind, key, info int32, out *int32) (rc int32) {
	defer guard("MPI_Comm_split_type", &rc)
	o, rc := commArg("MPI_Comm_split_type", comm)
	if rc != errSuccess {
		return rc
	}
	c, err := splitType(o.c, kind, key, info)
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Comm_split_type", o, comm, err)
}

// The split types of MPI_Comm_split_type besides MPI_COMM_TYPE_SHARED,
// the info key that names MPI_COMM_TYPE_HW_GUIDED's hardware resource,
// and the one resource this runtime knows: the processes that share
// memory, those of a host.
const (
	commTypeHWGuided     = 2
	commTypeHWUnguided   = 3
	commTypeNeighborhood = 4 // MPIX_COMM_TYPE_NEIGHBORHOOD
	hwResourceKey        = "mpi_hw_resource_type"
	hwSharedMemory       = "mpi_shared_memory"
)

// splitType splits c by split type kind (MPI-4.0's section 7.4.2):
// MPI_COMM_TYPE_SHARED into the processes of each host;
// MPI_COMM_TYPE_HW_GUIDED by the resource that info's
// mpi_hw_resource_type names, of which this runtime knows
// mpi_shared_memory (as MPI_COMM_TYPE_SHARED), any other or none giving
// MPI_COMM_NULL; MPI_COMM_TYPE_HW_UNGUIDED into the processes of each
// host where that is fewer than c's, else MPI_COMM_NULL, with the
// resource (mpi_shared_memory) set in info; MPI_UNDEFINED and MPICH's
// MPIX_COMM_TYPE_NEIGHBORHOOD (no neighbourhood known) MPI_COMM_NULL.
// Every process takes part in one SplitType, whatever its kind.
func splitType(c *mpi.Comm, kind, key, info int32) (*mpi.Comm, error) {
	t := mpi.CommType(mpi.Undefined)
	switch kind {
	case commTypeShared, commTypeHWUnguided:
		t = mpi.CommTypeShared
	case commTypeHWGuided:
		if io, ok := lookupInfo(info); ok && info != infoNull {
			if v, _ := io.get(hwResourceKey); v == hwSharedMemory {
				t = mpi.CommTypeShared
			}
		}
	case cUndefined, commTypeNeighborhood:
	default:
		return nil, errorf(errArg, "invalid split type %d", kind)
	}
	nc, err := c.SplitType(t, int(key))
	if err != nil || nc == nil || kind != commTypeHWUnguided {
		return nc, err
	}
	if nc.Size() >= c.Size() {
		return nil, nc.Free() // one host: no smaller resource known
	}
	if io, ok := lookupInfo(info); ok && info != infoNull && info != infoEnv {
		io.set(hwResourceKey, hwSharedMemory)
	}
	return nc, nil
}

// PMPI_Comm_create implements MPI_Comm_create.
//
//export PMPI_Comm_create
func PMPI_Comm_create(comm, group int32, out *int32) (rc int32) {
	defer guard("MPI_Comm_create", &rc)
	o, rc := commArg("MPI_Comm_create", comm)
	if rc != errSuccess {
		return rc
	}
	g, ok := lookupGroup(group)
	if !ok {
		return fail("MPI_Comm_create", o, comm, errorf(errGroup, "invalid group %#x", uint32(group)))
	}
	c, err := o.c.Create(g)
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Comm_create", o, comm, err)
}

// PMPI_Comm_create_group implements MPI_Comm_create_group.
//
//export PMPI_Comm_create_group
func PMPI_Comm_create_group(comm, group, tag int32, out *int32) (rc int32) {
	defer guard("MPI_Comm_create_group", &rc)
	o, rc := commArg("MPI_Comm_create_group", comm)
	if rc != errSuccess {
		return rc
	}
	g, ok := lookupGroup(group)
	if !ok {
		return fail("MPI_Comm_create_group", o, comm, errorf(errGroup, "invalid group %#x", uint32(group)))
	}
	c, err := o.c.CreateGroup(g, int(tag))
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Comm_create_group", o, comm, err)
}

// PMPI_Comm_free implements MPI_Comm_free.
//
//export PMPI_Comm_free
func PMPI_Comm_free(comm *int32) (rc int32) {
	defer guard("MPI_Comm_free", &rc)
	h := *comm
	if h == commWorld || h == commSelf {
		return fail("MPI_Comm_free", nil, commWorld, errorf(errComm, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed"))
	}
	o, rc := commArg("MPI_Comm_free", h)
	if rc != errSuccess {
		return rc
	}
	err := deleteAttrs(o, h)
	if err == nil {
		err = o.c.Free()
	}
	if err == nil {
		comms.remove(h)
		*comm = commNull
	}
	return check("MPI_Comm_free", o, h, err)
}

// PMPI_Comm_compare implements MPI_Comm_compare.
//
//export PMPI_Comm_compare
func PMPI_Comm_compare(c1, c2 int32, result *int32) (rc int32) {
	defer guard("MPI_Comm_compare", &rc)
	o1, rc := commArg("MPI_Comm_compare", c1)
	if rc != errSuccess {
		return rc
	}
	o2, rc := commArg("MPI_Comm_compare", c2)
	if rc != errSuccess {
		return rc
	}
	r, err := o1.c.Compare(o2.c)
	if err == nil {
		*result = comparison(r)
	}
	return check("MPI_Comm_compare", o1, c1, err)
}

// comparison converts a comparison of package mpi to MPI's value.
func comparison(r mpi.Comparison) int32 {
	switch r {
	case mpi.Ident:
		return cIdent
	case mpi.Congruent:
		return cCongruent
	case mpi.Similar:
		return cSimilar
	}
	return cUnequal
}

// PMPI_Comm_set_name implements MPI_Comm_set_name.
//
//export PMPI_Comm_set_name
func PMPI_Comm_set_name(comm int32, name *C.char) (rc int32) {
	defer guard("MPI_Comm_set_name", &rc)
	o, rc := commArg("MPI_Comm_set_name", comm)
	if rc != errSuccess {
		return rc
	}
	return check("MPI_Comm_set_name", o, comm, o.c.SetName(C.GoString(name)))
}

// PMPI_Comm_get_name implements MPI_Comm_get_name.
//
//export PMPI_Comm_get_name
func PMPI_Comm_get_name(comm int32, name unsafe.Pointer, n *int32) (rc int32) {
	defer guard("MPI_Comm_get_name", &rc)
	o, rc := commArg("MPI_Comm_get_name", comm)
	if rc != errSuccess {
		return rc
	}
	s, err := o.c.Name()
	if err == nil {
		if s == "" && comm == commWorld {
			s = "MPI_COMM_WORLD"
		} else if s == "" && comm == commSelf {
			s = "MPI_COMM_SELF"
		}
		cString(name, maxObjectName, s, n)
	}
	return check("MPI_Comm_get_name", o, comm, err)
}

// PMPI_Comm_group implements MPI_Comm_group.
//
//export PMPI_Comm_group
func PMPI_Comm_group(comm int32, group *int32) (rc int32) {
	defer guard("MPI_Comm_group", &rc)
	o, rc := commArg("MPI_Comm_group", comm)
	if rc != errSuccess {
		return rc
	}
	h, ok := addGroup(o.c.Group())
	if !ok {
		return fail("MPI_Comm_group", o, comm, errorf(errNoMem, "too many groups"))
	}
	*group = h
	return errSuccess
}

// PMPI_Comm_get_attr implements MPI_Comm_get_attr.
//
//export PMPI_Comm_get_attr
func PMPI_Comm_get_attr(comm, key int32, val unsafe.Pointer, flag *int32) (rc int32) {
	defer guard("MPI_Comm_get_attr", &rc)
	if _, rc = commArg("MPI_Comm_get_attr", comm); rc != errSuccess {
		return rc
	}
	p := attrValue(key)
	if p == nil {
		o, _ := lookupComm(comm)
		userAttr(o, key, val, flag)
		return errSuccess
	}
	*flag = 1
	*(*unsafe.Pointer)(val) = p
	return errSuccess
}

// PMPI_Attr_get implements MPI_Attr_get.
//
//export PMPI_Attr_get
func PMPI_Attr_get(comm, key int32, val unsafe.Pointer, flag *int32) int32 {
	return PMPI_Comm_get_attr(comm, key, val, flag)
}
