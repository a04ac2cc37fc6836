//go:build cgo

package main

import (
	"testing"
	"unsafe"
)

// TestMessagePathAllocs checks that the C call layer allocates nothing on
// the message path: a process alone sends 8 bytes to itself with MPI_Send
// and receives them with MPI_Recv, then with the nonblocking calls
// (nonblockingAllocs). A process initializes MPI once: one test.
func TestMessagePathAllocs(t *testing.T) {
	if rc := PMPI_Init(nil, nil); rc != errSuccess {
		t.Fatalf("MPI_Init: %s", errorText(rc))
	}
	defer PMPI_Finalize()
	blockingAllocs(t)
	nonblockingAllocs(t)
}

// blockingAllocs: MPI_Send and MPI_Recv of 8 bytes allocate nothing.
func blockingAllocs(t *testing.T) {
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

// nonblockingAllocs: MPI_Isend and MPI_Irecv of 8 bytes completed by
// MPI_Waitall, by MPI_Wait and by MPI_Test allocate nothing once their
// requests have been recycled.
func nonblockingAllocs(t *testing.T) {
	var sbuf, rbuf [8]byte
	var reqs [2]int32
	var sts [2]status
	start := func() {
		if rc := PMPI_Irecv(unsafe.Pointer(&rbuf), 8, typeByte, 0, 2, commWorld, &reqs[1]); rc != errSuccess {
			t.Fatalf("MPI_Irecv: %s", errorText(rc))
		}
		if rc := PMPI_Isend(unsafe.Pointer(&sbuf), 8, typeByte, 0, 2, commWorld, &reqs[0]); rc != errSuccess {
			t.Fatalf("MPI_Isend: %s", errorText(rc))
		}
	}
	completions := map[string]func(){
		"MPI_Waitall": func() {
			if rc := PMPI_Waitall(2, unsafe.Pointer(&reqs[0]), unsafe.Pointer(&sts[0])); rc != errSuccess {
				t.Fatalf("MPI_Waitall: %s", errorText(rc))
			}
		},
		"MPI_Wait": func() {
			for i := range reqs {
				if rc := PMPI_Wait(&reqs[i], unsafe.Pointer(&sts[i])); rc != errSuccess {
					t.Fatalf("MPI_Wait: %s", errorText(rc))
				}
			}
		},
		"MPI_Test": func() {
			for i := range reqs {
				for flag := int32(0); flag == 0; {
					if rc := PMPI_Test(&reqs[i], &flag, unsafe.Pointer(&sts[i])); rc != errSuccess {
						t.Fatalf("MPI_Test: %s", errorText(rc))
					}
				}
			}
		},
	}
	for name, complete := range completions {
		round := func() { start(); complete() }
		round()
		if n := testing.AllocsPerRun(1000, round); n != 0 {
			t.Errorf("MPI_Isend, MPI_Irecv and %s: %v allocations a round, want 0", name, n)
		}
		if reqs != [2]int32{requestNull, requestNull} || sts[1].count() != 8 || sts[1].tag != 2 {
			t.Errorf("%s: requests %#x, receive's status count %d tag %d", name, reqs, sts[1].count(), sts[1].tag)
		}
	}
}
