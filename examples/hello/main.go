// Command hello is the smallest MPI program: every rank says hello, and
// rank 0 collects a message from each of the others.
//
//	go run ./cmd/mpirun -np 4 ./examples/hello
package main

import (
	"fmt"
	"log"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.World()
	rank, size := world.Rank(), world.Size()
	if rank != 0 {
		if err := mpi.Send(world, []int64{int64(rank * rank)}, 0, 0); err != nil {
			log.Fatal(err)
		}
	} else {
		fmt.Printf("hello from rank 0 of %d\n", size)
		v := make([]int64, 1)
		for i := 1; i < size; i++ {
			st, err := mpi.Recv(world, v, mpi.AnySource, 0)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("rank %d says %d\n", st.Source, v[0])
		}
	}
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}
