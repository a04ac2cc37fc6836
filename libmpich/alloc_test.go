//go:build cgo

package main

import (
	"testing"
	"unsafe"
)

// TestMessagePathAllocs checks that the C call layer allocates nothing on
// the message path: a process alone sends 8 bytes to itself with MPI_Send
// and receives them with MPI_Recv, then with the nonblocking calls
// (nonblockingAllocs); and that MPI_Send and MPI_Recv on MPI_COMM_WORLD,
// whose predefined datatypes take a shorter path, still return the error
// class of each invalid argument (fastPathErrors). A process initializes
// MPI once: one test.
func TestMessagePathAllocs(t *testing.T) {
	if rc := PMPI_Init(nil, nil); rc != errSuccess {
		t.Fatalf("MPI_Init: %s", errorText(rc))
	}
	defer PMPI_Finalize()
	blockingAllocs(t)
	nonblockingAllocs(t)
	fastPathErrors(t)
}

// fastPathErrors: under MPI_ERRORS_RETURN, MPI_Send and MPI_Recv of a
// predefined datatype on MPI_COMM_WORLD (a process alone) return
// MPI_ERR_RANK, MPI_ERR_TAG, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_COMM and
// MPI_ERR_TRUNCATE as the full path does.
func fastPathErrors(t *testing.T) {
	if rc := PMPI_Comm_set_errhandler(commWorld, errorsReturn); rc != errSuccess {
		t.Fatalf("MPI_Comm_set_errhandler: %s", errorText(rc))
	}
	defer PMPI_Comm_set_errhandler(commWorld, errorsAreFatal)
	var buf [8]byte
	var st status
	p := unsafe.Pointer(&buf)
	send := func(count, dt, dest, tag, comm int32) int32 { return PMPI_Send(p, count, dt, dest, tag, comm) }
	recv := func(count, dt, source, tag, comm int32) int32 {
		return PMPI_Recv(p, count, dt, source, tag, comm, unsafe.Pointer(&st))
	}
	cases := []struct {
		name string
		rc   int32
		want int32
	}{
		{"MPI_Send to rank 1 of 1", send(2, typeInt, 1, 0, commWorld), errRank},
		{"MPI_Send tag -5", send(2, typeInt, 0, -5, commWorld), errTag},
		{"MPI_Send count -1", send(-1, typeInt, 0, 0, commWorld), errCount},
		{"MPI_Send MPI_DATATYPE_NULL", send(2, datatypeNull, 0, 0, commWorld), errType},
		{"MPI_Send MPI_COMM_NULL", send(2, typeInt, 0, 0, commNull), errComm},
		{"MPI_Recv from rank 1 of 1", recv(2, typeInt, 1, 0, commWorld), errRank},
		{"MPI_Recv tag -5", recv(2, typeInt, 0, -5, commWorld), errTag},
		{"MPI_Recv count -1", recv(-1, typeInt, 0, 0, commWorld), errCount},
		{"MPI_Recv MPI_DATATYPE_NULL", recv(2, datatypeNull, 0, 0, commWorld), errType},
		{"MPI_Recv MPI_COMM_NULL", recv(2, typeInt, 0, 0, commNull), errComm},
		{"MPI_Send of 2 ints", send(2, typeInt, 0, 3, commWorld), errSuccess},
		{"MPI_Recv of 2 ints into 1", recv(1, typeInt, 0, 3, commWorld), errTruncate},
	}
	for _, c := range cases {
		if got := classOfCode(c.rc); got != c.want {
			t.Errorf("%s: class %d (%s), want %d", c.name, got, errorText(c.rc), c.want)
		}
	}
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
