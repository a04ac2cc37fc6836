package main

// Attribute caching on datatypes and windows (MPI_Type_create_keyval ...
// MPI_Win_delete_attr). Their keyvals share the communicators' table.

import "C"

import "unsafe"

// PMPI_Type_create_keyval implements MPI_Type_create_keyval.
//
//export PMPI_Type_create_keyval
func PMPI_Type_create_keyval(copyFn, deleteFn uintptr, key *int32, extra uintptr) int32 {
	return PMPI_Comm_create_keyval(copyFn, deleteFn, key, extra)
}

// PMPI_Type_free_keyval implements MPI_Type_free_keyval.
//
//export PMPI_Type_free_keyval
func PMPI_Type_free_keyval(key *int32) int32 { return PMPI_Comm_free_keyval(key) }

// typeAttrArg checks that h is a datatype, for the attribute calls.
func typeAttrArg(h int32) error {
	if _, ok := dataSize(h); !ok {
		return errorf(errType, "invalid datatype %#x", uint32(h))
	}
	return nil
}

// PMPI_Type_set_attr implements MPI_Type_set_attr.
//
//export PMPI_Type_set_attr
func PMPI_Type_set_attr(dt, key int32, val uintptr) (rc int32) {
	defer guard("MPI_Type_set_attr", &rc)
	err := typeAttrArg(dt)
	if err == nil {
		err = setObjAttr(&typeAttrs, dt, key, val)
	}
	return check("MPI_Type_set_attr", nil, commWorld, err)
}

// PMPI_Type_get_attr implements MPI_Type_get_attr.
//
//export PMPI_Type_get_attr
func PMPI_Type_get_attr(dt, key int32, val unsafe.Pointer, flag *int32) (rc int32) {
	defer guard("MPI_Type_get_attr", &rc)
	if err := typeAttrArg(dt); err != nil {
		return fail("MPI_Type_get_attr", nil, commWorld, err)
	}
	getObjAttr(&typeAttrs, dt, key, val, flag)
	return errSuccess
}

// PMPI_Type_delete_attr implements MPI_Type_delete_attr.
//
//export PMPI_Type_delete_attr
func PMPI_Type_delete_attr(dt, key int32) (rc int32) {
	defer guard("MPI_Type_delete_attr", &rc)
	err := typeAttrArg(dt)
	if err == nil {
		err = deleteObjAttr(&typeAttrs, dt, key)
	}
	return check("MPI_Type_delete_attr", nil, commWorld, err)
}

// getObjAttr stores the attribute of key on object h of s at val, if it
// has one, and whether it has at flag.
func getObjAttr(s *attrStore, h, key int32, val unsafe.Pointer, flag *int32) {
	v, ok := s.get(h, key)
	*flag = boolInt(ok)
	if ok {
		*(*uintptr)(val) = v
	}
}

// PMPI_Win_create_keyval implements MPI_Win_create_keyval.
//
//export PMPI_Win_create_keyval
func PMPI_Win_create_keyval(copyFn, deleteFn uintptr, key *int32, extra uintptr) int32 {
	return PMPI_Comm_create_keyval(copyFn, deleteFn, key, extra)
}

// PMPI_Win_free_keyval implements MPI_Win_free_keyval.
//
//export PMPI_Win_free_keyval
func PMPI_Win_free_keyval(key *int32) int32 { return PMPI_Comm_free_keyval(key) }

// PMPI_Win_set_attr implements MPI_Win_set_attr.
//
//export PMPI_Win_set_attr
func PMPI_Win_set_attr(win, key int32, val uintptr) (rc int32) {
	defer guard("MPI_Win_set_attr", &rc)
	o, rc := winArg("MPI_Win_set_attr", win)
	if rc != errSuccess {
		return rc
	}
	return winCheck("MPI_Win_set_attr", o, setObjAttr(&winAttrs, win, key, val))
}

// PMPI_Win_delete_attr implements MPI_Win_delete_attr.
//
//export PMPI_Win_delete_attr
func PMPI_Win_delete_attr(win, key int32) (rc int32) {
	defer guard("MPI_Win_delete_attr", &rc)
	o, rc := winArg("MPI_Win_delete_attr", win)
	if rc != errSuccess {
		return rc
	}
	return winCheck("MPI_Win_delete_attr", o, deleteObjAttr(&winAttrs, win, key))
}
