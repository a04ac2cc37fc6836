package main

import "sync"

// Error classes and codes that the program adds (MPI_Add_error_class,
// MPI_Add_error_code) take the class numbers from firstUserClass on, past
// MPICH's own and its extensions', and codes of the form of errorCode's
// with slots past its ring.
const (
	firstUserClass = 120
	lastUserClass  = 1<<codeClassBits - 1
)

var (
	userErrMu      sync.Mutex
	nextUserClass  = int32(firstUserClass)
	nextUserSlot   = codeSlots + 1
	userErrStrings = map[int32]string{}
)

// addErrorClass returns a new error class.
func addErrorClass() (int32, error) {
	userErrMu.Lock()
	defer userErrMu.Unlock()
	if nextUserClass > lastUserClass {
		return 0, errorf(errOther, "no more error classes")
	}
	c := nextUserClass
	nextUserClass++
	return c, nil
}

// addErrorCode returns a new error code of class.
func addErrorCode(class int32) (int32, error) {
	userErrMu.Lock()
	defer userErrMu.Unlock()
	if class < 0 || class >= nextUserClass || (class > errLastClass && class < firstUserClass && class < 100) {
		return 0, errorf(errArg, "invalid error class %d", class)
	}
	code := int32(nextUserSlot)<<codeClassBits | class
	nextUserSlot++
	return code, nil
}

// setErrorString sets the text of a class or code the program added.
func setErrorString(code int32, s string) error {
	userErrMu.Lock()
	defer userErrMu.Unlock()
	if !added(code) {
		return errorf(errArg, "error code %d is not one the program added", code)
	}
	userErrStrings[code] = s
	return nil
}

// added reports whether code is an error class or code that the program
// added.
func added(code int32) bool {
	return classOfCode(code) >= firstUserClass || int(code>>codeClassBits) > codeSlots
}

// userErrorString returns the text the program set for code.
func userErrorString(code int32) (string, bool) {
	userErrMu.Lock()
	defer userErrMu.Unlock()
	s, ok := userErrStrings[code]
	return s, ok
}

// lastUsedCode returns the largest error code or class in use
// (MPI_LASTUSEDCODE).
func lastUsedCode() int32 {
	userErrMu.Lock()
	defer userErrMu.Unlock()
	return int32(nextUserSlot-1)<<codeClassBits | lastUserClass
}
