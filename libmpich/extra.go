package main

// Matched probes, intercommunicators, MPI_Comm_idup, the v-forms and
// scans of the nonblocking collectives, and small status and request
// queries.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// storeMessage stores a handle for m at out (MPI_MESSAGE_NO_PROC for the
// message of MPI_PROC_NULL).
func storeMessage(m *mpi.Message, s mpi.Status, out *int32) error {
	if m == nil || s.Source == mpi.ProcNull {
		*out = messageNoProc
		return nil
	}
	h, ok := messages.add(m)
	if !ok {
		return errorf(errNoMem, "too many messages")
	}
	*out = h
	return nil
}

// PMPI_Mprobe implements MPI_Mprobe.
//
//export PMPI_Mprobe
func PMPI_Mprobe(source, tag, comm int32, msg *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Mprobe", &rc)
	o, rc := commArg("MPI_Mprobe", comm)
	if rc != errSuccess {
		return rc
	}
	m, s, err := o.c.Mprobe(mapRank(source), mapTag(tag))
	if err == nil {
		err = storeMessage(m, s, msg)
		writeStatus(st, &s)
	}
	return check("MPI_Mprobe", o, comm, err)
}

// PMPI_Improbe implements MPI_Improbe.
//
//export PMPI_Improbe
func PMPI_Improbe(source, tag, comm int32, flag *int32, msg *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Improbe", &rc)
	o, rc := commArg("MPI_Improbe", comm)
	if rc != errSuccess {
		return rc
	}
	ok, m, s, err := o.c.Improbe(mapRank(source), mapTag(tag))
	if err == nil {
		*flag = boolInt(ok)
		if ok {
			err = storeMessage(m, s, msg)
			writeStatus(st, &s)
		}
	}
	return check("MPI_Improbe", o, comm, err)
}

// messageArg takes message *msg out of the table and sets *msg to
// MPI_MESSAGE_NULL; nil for MPI_MESSAGE_NO_PROC.
func messageArg(msg *int32) (*mpi.Message, bool, error) {
	if *msg == messageNoProc {
		*msg = messageNull
		return nil, true, nil
	}
	m, ok := messages.remove(*msg)
	if !ok {
		return nil, false, errorf(errRequest, "invalid message %#x", uint32(*msg))
	}
	*msg = messageNull
	return m, false, nil
}

// PMPI_Mrecv implements MPI_Mrecv.
//
//export PMPI_Mrecv
func PMPI_Mrecv(buf unsafe.Pointer, count, dt int32, msg *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Mrecv", &rc)
	return mrecv("MPI_Mrecv", buf, int64(count), dt, msg, st)
}

// mrecv is MPI_Mrecv and MPI_Mrecv_c.
func mrecv(fn string, buf unsafe.Pointer, count int64, dt int32, msg *int32, st unsafe.Pointer) int32 {
	m, noProc, err := messageArg(msg)
	var stage staging
	var b []byte
	if err == nil {
		b, err = stage.recv(buf, count, dt)
	}
	if err == nil && noProc {
		writeStatus(st, &mpi.Status{Source: mpi.ProcNull, Tag: mpi.AnyTag})
		return errSuccess
	}
	if err == nil {
		var s mpi.Status
		if s, err = mpi.Mrecv(m, b); err == nil {
			err = stage.finish()
			writeStatus(st, &s)
		}
	}
	return check(fn, nil, commWorld, err)
}

// PMPI_Imrecv implements MPI_Imrecv.
//
//export PMPI_Imrecv
func PMPI_Imrecv(buf unsafe.Pointer, count, dt int32, msg *int32, req *int32) (rc int32) {
	defer guard("MPI_Imrecv", &rc)
	return imrecv("MPI_Imrecv", buf, int64(count), dt, msg, req)
}

// imrecv is MPI_Imrecv and MPI_Imrecv_c.
func imrecv(fn string, buf unsafe.Pointer, count int64, dt int32, msg *int32, req *int32) int32 {
	m, noProc, err := messageArg(msg)
	var st staging
	var b []byte
	if err == nil {
		b, err = st.recv(buf, count, dt)
	}
	var r *mpi.Request
	if err == nil && !noProc {
		r, err = mpi.Imrecv(m, b)
	} else if err == nil {
		r, err = mpi.Irecv(mpi.World(), b, mpi.ProcNull, 0)
	}
	if err == nil {
		err = storeRequest(reqObj{r: r, commH: commWorld, onDone: st.onDone()}, req)
	}
	return check(fn, nil, commWorld, err)
}

// PMPI_Intercomm_create implements MPI_Intercomm_create.
//
//export PMPI_Intercomm_create
func PMPI_Intercomm_create(local, localLeader, peer, remoteLeader, tag int32, out *int32) (rc int32) {
	defer guard("MPI_Intercomm_create", &rc)
	o, rc := commArg("MPI_Intercomm_create", local)
	if rc != errSuccess {
		return rc
	}
	var pc *mpi.Comm
	if p, ok := lookupComm(peer); ok {
		pc = p.c
	}
	c, err := o.c.IntercommCreate(int(localLeader), pc, int(remoteLeader), int(tag))
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Intercomm_create", o, local, err)
}

// PMPI_Intercomm_merge implements MPI_Intercomm_merge.
//
//export PMPI_Intercomm_merge
func PMPI_Intercomm_merge(comm, high int32, out *int32) (rc int32) {
	defer guard("MPI_Intercomm_merge", &rc)
	o, rc := commArg("MPI_Intercomm_merge", comm)
	if rc != errSuccess {
		return rc
	}
	c, err := o.c.IntercommMerge(high != 0)
	if err == nil {
		err = newComm(o, c, out)
	}
	return check("MPI_Intercomm_merge", o, comm, err)
}

// PMPI_Comm_remote_group implements MPI_Comm_remote_group.
//
//export PMPI_Comm_remote_group
func PMPI_Comm_remote_group(comm int32, group *int32) (rc int32) {
	defer guard("MPI_Comm_remote_group", &rc)
	o, rc := commArg("MPI_Comm_remote_group", comm)
	if rc != errSuccess {
		return rc
	}
	g, err := o.c.RemoteGroup()
	return storeGroup("MPI_Comm_remote_group", g, err, group)
}

// PMPI_Comm_idup implements MPI_Comm_idup.
//
//export PMPI_Comm_idup
func PMPI_Comm_idup(comm int32, out *int32, req *int32) (rc int32) {
	defer guard("MPI_Comm_idup", &rc)
	o, rc := commArg("MPI_Comm_idup", comm)
	if rc != errSuccess {
		return rc
	}
	// The handle exists at once and names the communicator once the
	// request completes.
	n := newCommObj(nil)
	n.errh.Store(o.errh.Load())
	h, ok := comms.add(n)
	if !ok {
		return fail("MPI_Comm_idup", o, comm, errorf(errNoMem, "too many communicators"))
	}
	c, r, err := o.c.Idup()
	if err != nil {
		comms.remove(h)
		return fail("MPI_Comm_idup", o, comm, err)
	}
	errh := o.errh.Load()
	ro := reqObj{r: r, onDone: func() {
		d := newCommObj(c)
		d.errh.Store(errh)
		comms.set(h, d)
	}}
	rh, ok := requests.add(ro)
	if !ok {
		return fail("MPI_Comm_idup", o, comm, errorf(errNoMem, "too many requests"))
	}
	*out, *req = h, rh
	return errSuccess
}

// PMPI_Comm_dup_with_info implements MPI_Comm_dup_with_info.
//
//export PMPI_Comm_dup_with_info
func PMPI_Comm_dup_with_info(comm, info int32, out *int32) int32 { return PMPI_Comm_dup(comm, out) }

// PMPI_Comm_get_parent implements MPI_Comm_get_parent.
//
//export PMPI_Comm_get_parent
func PMPI_Comm_get_parent(parent *int32) (rc int32) {
	*parent = commNull // no process of this runtime is spawned
	return errSuccess
}

// PMPI_Request_get_status implements MPI_Request_get_status.
//
//export PMPI_Request_get_status
func PMPI_Request_get_status(req int32, flag *int32, st unsafe.Pointer) (rc int32) {
	defer guard("MPI_Request_get_status", &rc)
	if req == requestNull {
		*flag = 1
		writeStatus(st, &emptyStatus)
		return errSuccess
	}
	o, ok := requests.get(req)
	if !ok {
		return fail("MPI_Request_get_status", nil, commWorld, errorf(errRequest, "invalid request %#x", uint32(req)))
	}
	done, s, err := o.r.Test()
	*flag = boolInt(done)
	if done && err == nil {
		writeStatus(st, &s)
	}
	return check("MPI_Request_get_status", nil, commWorld, err)
}

// PMPI_Get_elements_x implements MPI_Get_elements_x.
//
//export PMPI_Get_elements_x
func PMPI_Get_elements_x(st unsafe.Pointer, dt int32, count *int64) (rc int32) {
	defer guard("MPI_Get_elements_x", &rc)
	return getCount("MPI_Get_elements_x", st, dt, true, count)
}

// PMPI_Status_set_elements implements MPI_Status_set_elements.
//
//export PMPI_Status_set_elements
func PMPI_Status_set_elements(st unsafe.Pointer, dt, count int32) (rc int32) {
	return PMPI_Status_set_elements_x(st, dt, int64(count))
}

// PMPI_Status_set_elements_x implements MPI_Status_set_elements_x.
//
//export PMPI_Status_set_elements_x
func PMPI_Status_set_elements_x(st unsafe.Pointer, dt int32, count int64) (rc int32) {
	defer guard("MPI_Status_set_elements_x", &rc)
	size, ok := dataSize(dt)
	if !ok {
		return fail("MPI_Status_set_elements_x", nil, commWorld, errorf(errType, "invalid datatype %#x", uint32(dt)))
	}
	if k := elemOf(dt); k != elemNone {
		size = elemSizes[k] // count is of basic elements
	}
	s := (*status)(st)
	s.setCount(count*int64(size), s.cancelled())
	return errSuccess
}

// PMPI_Status_set_cancelled implements MPI_Status_set_cancelled.
//
//export PMPI_Status_set_cancelled
func PMPI_Status_set_cancelled(st unsafe.Pointer, flag int32) (rc int32) {
	s := (*status)(st)
	s.setCount(s.count(), flag != 0)
	return errSuccess
}
