//go:build cgo

package main

import (
	"testing"
	"unsafe"
)

// TestMessagePathAllocs checks that the C call layer allocates nothing on
// the message path: a process alone sends 8 bytes to itself with MPI_Send
// and receives them with MPI_Recv.
func TestMessagePathAllocs(t *testing.T) {
	if rc := PMPI_Init(nil, nil); rc != errSuccess {
		t.Fatalf("MPI_Init: %s", errorText(rc))
	}
	defer PMPI_Finalize()
	var sbuf, rbuf [8]byte
	var st status
	roundTrip := func() {
		if rc := PMPI_Send(unsafe.Pointer(&sbuf), 8, typeByte, 0, 1, commWorld); rc != errSuccess {
			t.Fatalf("MPI_Send: %s", errorText(rc))
		}
		if rc := PMPI_Recv(unsafe.Pointer(&rbuf), 8, typeByte, 0, 1, commWorld, unsafe.Pointer(&st)); rc != errSuccess {
			t.Fatalf("MPI_Recv: %s", errorText(rc))
		}
	}
	roundTrip()
	if n := testing.AllocsPerRun(1000, roundTrip); n != 0 {
		t.Errorf("MPI_Send and MPI_Recv of 8 bytes: %v allocations per round trip, want 0", n)
	}
	if st.count() != 8 || st.source != 0 || st.tag != 1 {
		t.Errorf("status count %d source %d tag %d", st.count(), st.source, st.tag)
	}
}
