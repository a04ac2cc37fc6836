package main

// Info objects (MPI_Info_create ... MPI_Info_free), and the info of
// communicators, which this runtime does not use.

import "C"

import "unsafe"

// Limits of info keys and values.
const (
	maxInfoKey = 255
	maxInfoVal = 1024
)

// infoArg returns the info object of handle h, or the error code of an
// invalid one.
func infoArg(fn string, h int32) (*infoObj, int32) {
	o, ok := lookupInfo(h)
	if !ok {
		return nil, fail(fn, nil, commWorld, errorf(errInfo, "invalid info %#x", uint32(h)))
	}
	return o, errSuccess
}

// addInfo stores a handle for o at out.
func addInfo(fn string, o *infoObj, out *int32) int32 {
	return check(fn, nil, commWorld, storeInfo(o, out))
}

// storeInfo stores a handle for o at out.
func storeInfo(o *infoObj, out *int32) error {
	h, ok := infos.add(o)
	if !ok {
		return errorf(errNoMem, "too many info objects")
	}
	*out = h
	return nil
}

// PMPI_Info_create implements MPI_Info_create.
//
//export PMPI_Info_create
func PMPI_Info_create(out *int32) (rc int32) {
	defer guard("MPI_Info_create", &rc)
	return addInfo("MPI_Info_create", newInfo(), out)
}

// PMPI_Info_dup implements MPI_Info_dup.
//
//export PMPI_Info_dup
func PMPI_Info_dup(h int32, out *int32) (rc int32) {
	defer guard("MPI_Info_dup", &rc)
	o, rc := infoArg("MPI_Info_dup", h)
	if rc != errSuccess {
		return rc
	}
	return addInfo("MPI_Info_dup", o.dup(), out)
}

// PMPI_Info_free implements MPI_Info_free.
//
//export PMPI_Info_free
func PMPI_Info_free(h *int32) (rc int32) {
	defer guard("MPI_Info_free", &rc)
	if _, ok := infos.remove(*h); !ok {
		return fail("MPI_Info_free", nil, commWorld, errorf(errInfo, "invalid info %#x", uint32(*h)))
	}
	*h = infoNull
	return errSuccess
}

// PMPI_Info_set implements MPI_Info_set.
//
//export PMPI_Info_set
func PMPI_Info_set(h int32, key, val *C.char) (rc int32) {
	defer guard("MPI_Info_set", &rc)
	o, rc := infoArg("MPI_Info_set", h)
	if rc != errSuccess {
		return rc
	}
	k, v := C.GoString(key), C.GoString(val)
	if len(k) == 0 || len(k) > maxInfoKey || len(v) > maxInfoVal {
		return fail("MPI_Info_set", nil, commWorld, errorf(errInfo, "info key %q or its value too long or empty", k))
	}
	o.set(k, v)
	return errSuccess
}

// PMPI_Info_delete implements MPI_Info_delete.
//
//export PMPI_Info_delete
func PMPI_Info_delete(h int32, key *C.char) (rc int32) {
	defer guard("MPI_Info_delete", &rc)
	o, rc := infoArg("MPI_Info_delete", h)
	if rc != errSuccess {
		return rc
	}
	if k := C.GoString(key); !o.remove(k) {
		return fail("MPI_Info_delete", nil, commWorld, errorf(errInfoNokey, "no info key %q", k))
	}
	return errSuccess
}

// PMPI_Info_get implements MPI_Info_get.
//
//export PMPI_Info_get
func PMPI_Info_get(h int32, key *C.char, valuelen int32, val unsafe.Pointer, flag *int32) (rc int32) {
	defer guard("MPI_Info_get", &rc)
	o, rc := infoArg("MPI_Info_get", h)
	if rc != errSuccess {
		return rc
	}
	v, ok := o.get(C.GoString(key))
	*flag = boolInt(ok)
	if ok {
		cString(val, int(valuelen)+1, v, nil)
	}
	return errSuccess
}

// PMPI_Info_get_valuelen implements MPI_Info_get_valuelen.
//
//export PMPI_Info_get_valuelen
func PMPI_Info_get_valuelen(h int32, key *C.char, n *int32, flag *int32) (rc int32) {
	defer guard("MPI_Info_get_valuelen", &rc)
	o, rc := infoArg("MPI_Info_get_valuelen", h)
	if rc != errSuccess {
		return rc
	}
	v, ok := o.get(C.GoString(key))
	*flag = boolInt(ok)
	if ok {
		*n = int32(len(v))
	}
	return errSuccess
}

// PMPI_Info_get_nkeys implements MPI_Info_get_nkeys.
//
//export PMPI_Info_get_nkeys
func PMPI_Info_get_nkeys(h int32, n *int32) (rc int32) {
	defer guard("MPI_Info_get_nkeys", &rc)
	o, rc := infoArg("MPI_Info_get_nkeys", h)
	if rc != errSuccess {
		return rc
	}
	_, count := o.nth(-1)
	*n = int32(count)
	return errSuccess
}

// PMPI_Info_get_nthkey implements MPI_Info_get_nthkey.
//
//export PMPI_Info_get_nthkey
func PMPI_Info_get_nthkey(h, n int32, key unsafe.Pointer) (rc int32) {
	defer guard("MPI_Info_get_nthkey", &rc)
	o, rc := infoArg("MPI_Info_get_nthkey", h)
	if rc != errSuccess {
		return rc
	}
	k, count := o.nth(int(n))
	if int(n) >= count || n < 0 {
		return fail("MPI_Info_get_nthkey", nil, commWorld, errorf(errArg, "key %d of %d", n, count))
	}
	cString(key, maxInfoKey+1, k, nil)
	return errSuccess
}

// PMPI_Comm_set_info implements MPI_Comm_set_info.
//
//export PMPI_Comm_set_info
func PMPI_Comm_set_info(comm, info int32) (rc int32) {
	defer guard("MPI_Comm_set_info", &rc)
	_, rc = commArg("MPI_Comm_set_info", comm)
	return rc // no hint changes what this runtime does
}

// PMPI_Comm_get_info implements MPI_Comm_get_info.
//
//export PMPI_Comm_get_info
func PMPI_Comm_get_info(comm int32, out *int32) (rc int32) {
	defer guard("MPI_Comm_get_info", &rc)
	if _, rc = commArg("MPI_Comm_get_info", comm); rc != errSuccess {
		return rc
	}
	return addInfo("MPI_Comm_get_info", newInfo(), out)
}
