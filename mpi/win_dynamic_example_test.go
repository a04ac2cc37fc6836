package mpi_test

import (
	"fmt"
	"log"

	"github.com/rhinet-go/martini/mpi"
)

func init() {
	exampleJobs = append(exampleJobs, exampleJob{"ExampleWinCreateDynamic", ExampleWinCreateDynamic, 3})
}

// A dynamic window has no memory of its own: each process attaches memory
// when it wants, and tells the others its address, at which they reach it.
// Here each process attaches a mailbox and the others put their ranks into
// rank 0's.
func ExampleWinCreateDynamic() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	win, err := mpi.WinCreateDynamic(world)
	if err != nil {
		log.Fatal(err)
	}
	defer win.Free()
	mailbox := make([]int32, world.Size())
	if err := mpi.Attach(win, mailbox); err != nil {
		log.Fatal(err)
	}
	addr := []int{mpi.Address(mailbox)} // a displacement is an address
	if err := mpi.Bcast(world, addr, 0); err != nil {
		log.Fatal(err)
	}
	r := world.Rank()
	if err := win.Lock(mpi.LockShared, 0); err != nil {
		log.Fatal(err)
	}
	if err := mpi.Put(win, []int32{int32(10 * r)}, 0, addr[0]+4*r); err != nil {
		log.Fatal(err)
	}
	if err := win.Unlock(0); err != nil {
		log.Fatal(err)
	}
	if err := mpi.Barrier(world); err != nil {
		log.Fatal(err)
	}
	if r == 0 {
		fmt.Println("rank 0's mailbox:", mailbox)
	}
	if err := mpi.Detach(win, mailbox); err != nil {
		log.Fatal(err)
	}
	// Output: rank 0's mailbox: [0 10 20]
}
