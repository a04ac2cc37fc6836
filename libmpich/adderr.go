package main

// Error classes, codes and texts of the program's (MPI_Add_error_class,
// MPI_Add_error_code, MPI_Add_error_string).

import "C"

// PMPI_Add_error_class implements MPI_Add_error_class.
//
//export PMPI_Add_error_class
func PMPI_Add_error_class(class *int32) (rc int32) {
	defer guard("MPI_Add_error_class", &rc)
	c, err := addErrorClass()
	if err != nil {
		return fail("MPI_Add_error_class", nil, commWorld, err)
	}
	*class = c
	setLastUsedCode(lastUsedCode())
	return errSuccess
}

// PMPI_Add_error_code implements MPI_Add_error_code.
//
//export PMPI_Add_error_code
func PMPI_Add_error_code(class int32, code *int32) (rc int32) {
	defer guard("MPI_Add_error_code", &rc)
	c, err := addErrorCode(class)
	if err != nil {
		return fail("MPI_Add_error_code", nil, commWorld, err)
	}
	*code = c
	setLastUsedCode(lastUsedCode())
	return errSuccess
}

// PMPI_Add_error_string implements MPI_Add_error_string.
//
//export PMPI_Add_error_string
func PMPI_Add_error_string(code int32, s *C.char) (rc int32) {
	defer guard("MPI_Add_error_string", &rc)
	return check("MPI_Add_error_string", nil, commWorld, setErrorString(code, C.GoString(s)))
}
