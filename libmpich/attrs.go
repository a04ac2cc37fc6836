package main

// The exported attribute functions.

import "C"

import "unsafe"

// PMPI_Comm_create_keyval implements MPI_Comm_create_keyval.
//
//export PMPI_Comm_create_keyval
func PMPI_Comm_create_keyval(copyFn, deleteFn uintptr, key *int32, extra uintptr) (rc int32) {
	defer guard("MPI_Comm_create_keyval", &rc)
	h, ok := keyvals.add(&keyvalObj{copyFn: copyFn, deleteFn: deleteFn, extra: extra})
	if !ok {
		return fail("MPI_Comm_create_keyval", nil, commWorld, errorf(errNoMem, "too many keyvals"))
	}
	*key = h
	return errSuccess
}

// PMPI_Keyval_create implements MPI_Keyval_create.
//
//export PMPI_Keyval_create
func PMPI_Keyval_create(copyFn, deleteFn uintptr, key *int32, extra uintptr) int32 {
	return PMPI_Comm_create_keyval(copyFn, deleteFn, key, extra)
}

// PMPI_Comm_free_keyval implements MPI_Comm_free_keyval.
//
//export PMPI_Comm_free_keyval
func PMPI_Comm_free_keyval(key *int32) (rc int32) {
	defer guard("MPI_Comm_free_keyval", &rc)
	if !freeKeyval(*key) {
		return fail("MPI_Comm_free_keyval", nil, commWorld, errorf(errKeyval, "invalid keyval %#x", uint32(*key)))
	}
	*key = keyvalInvalid
	return errSuccess
}

// PMPI_Keyval_free implements MPI_Keyval_free.
//
//export PMPI_Keyval_free
func PMPI_Keyval_free(key *int32) int32 { return PMPI_Comm_free_keyval(key) }

// PMPI_Comm_set_attr implements MPI_Comm_set_attr.
//
//export PMPI_Comm_set_attr
func PMPI_Comm_set_attr(comm, key int32, val uintptr) (rc int32) {
	defer guard("MPI_Comm_set_attr", &rc)
	o, rc := commArg("MPI_Comm_set_attr", comm)
	if rc != errSuccess {
		return rc
	}
	kv, ok := keyvals.get(key)
	if !ok {
		return fail("MPI_Comm_set_attr", o, comm, errorf(errKeyval, "invalid keyval %#x", uint32(key)))
	}
	old, had := o.takeAttr(key)
	o.setAttr(key, val)
	if !had {
		keyvalUse(key)
	} else if kv.deleteFn != 0 {
		if rc := callAttrDelete(kv.deleteFn, comm, key, old, kv.extra); rc != errSuccess {
			return fail("MPI_Comm_set_attr", o, comm, errorf(errOther, "the delete callback of keyval %#x returned %d", uint32(key), rc))
		}
	}
	return errSuccess
}

// PMPI_Attr_put implements MPI_Attr_put.
//
//export PMPI_Attr_put
func PMPI_Attr_put(comm, key int32, val uintptr) int32 { return PMPI_Comm_set_attr(comm, key, val) }

// PMPI_Comm_delete_attr implements MPI_Comm_delete_attr.
//
//export PMPI_Comm_delete_attr
func PMPI_Comm_delete_attr(comm, key int32) (rc int32) {
	defer guard("MPI_Comm_delete_attr", &rc)
	o, rc := commArg("MPI_Comm_delete_attr", comm)
	if rc != errSuccess {
		return rc
	}
	kv, ok := keyvals.get(key)
	old, had := o.takeAttr(key)
	if !ok || !had {
		return fail("MPI_Comm_delete_attr", o, comm, errorf(errKeyval, "no attribute of keyval %#x", uint32(key)))
	}
	defer keyvalRelease(key)
	if kv.deleteFn != 0 {
		if rc := callAttrDelete(kv.deleteFn, comm, key, old, kv.extra); rc != errSuccess {
			return fail("MPI_Comm_delete_attr", o, comm, errorf(errOther, "the delete callback of keyval %#x returned %d", uint32(key), rc))
		}
	}
	return errSuccess
}

// PMPI_Attr_delete implements MPI_Attr_delete.
//
//export PMPI_Attr_delete
func PMPI_Attr_delete(comm, key int32) int32 { return PMPI_Comm_delete_attr(comm, key) }

// copyAttrs copies the attributes of from (handle fh) to to, as
// MPI_Comm_dup does, through their keyvals' copy callbacks.
func copyAttrs(from *commObj, fh int32, to *commObj) error {
	for key, val := range from.snapshotAttrs() {
		kv, ok := keyvals.get(key)
		if !ok || kv.copyFn == 0 {
			continue
		}
		out, keep, rc := callAttrCopy(kv.copyFn, fh, key, kv.extra, val)
		if rc != errSuccess {
			return errorf(errOther, "the copy callback of keyval %#x returned %d", uint32(key), rc)
		}
		if keep {
			to.setAttr(key, out)
			keyvalUse(key)
		}
	}
	return nil
}

// deleteAttrs runs the delete callbacks of o's attributes, as
// MPI_Comm_free does, the last set first: MPI deletes MPI_COMM_SELF's in
// that order at MPI_Finalize.
func deleteAttrs(o *commObj, h int32) error {
	for {
		key, ok := o.lastSet()
		if !ok {
			return nil
		}
		val, _ := o.takeAttr(key)
		kv, ok := keyvals.get(key)
		if ok && kv.deleteFn != 0 {
			if rc := callAttrDelete(kv.deleteFn, h, key, val, kv.extra); rc != errSuccess {
				keyvalRelease(key)
				return errorf(errOther, "the delete callback of keyval %#x returned %d", uint32(key), rc)
			}
		}
		keyvalRelease(key)
	}
}

// userAttr stores the attribute of key on o at val, if it has one.
func userAttr(o *commObj, key int32, val unsafe.Pointer, flag *int32) {
	v, ok := o.getAttr(key)
	*flag = boolInt(ok)
	if ok {
		*(*uintptr)(val) = v
	}
}
