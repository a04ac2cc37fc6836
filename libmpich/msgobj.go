package main

import "github.com/rhinet-go/martini/mpi"

// messages are the messages that MPI_Mprobe and MPI_Improbe took out of
// the matching. Their handles are indirect, so that a message handle is
// never a live request handle.
var messages = newIndirectTable[*mpi.Message](kindRequest)
