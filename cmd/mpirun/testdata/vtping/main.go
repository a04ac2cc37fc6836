// Command vtping runs ping-pongs between the ranks of each pair (0 and 1,
// 2 and 3, ...) and prints each rank's communication times by mpi.Wtime:
// in virtual time they are the model's, the same in every run.
package main

import (
	"fmt"
	"log"

	"github.com/rhinet-go/martini/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	world := mpi.World()
	r := world.Rank()
	peer := r ^ 1
	var times []float64
	if peer < world.Size() {
		for _, size := range []int{8, 1 << 10, 64 << 10} {
			t, err := pingPong(world, r, peer, size, 50)
			if err != nil {
				log.Fatal(err)
			}
			times = append(times, t)
		}
	}
	sum := make([]float64, 1)
	if err := mpi.Allreduce(world, []float64{float64(r)}, sum, mpi.Sum); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("rank %d: round trips %.9f s\n", r, times)
	fmt.Printf("rank %d: allreduce %v, done at %.9f s\n", r, sum[0], mpi.Wtime())
	if err := mpi.Finalize(); err != nil {
		log.Fatal(err)
	}
}

// pingPong runs reps round trips of size bytes between r and peer (the
// lower rank sends first) and returns their time.
func pingPong(c *mpi.Comm, r, peer, size, reps int) (float64, error) {
	buf := make([]byte, size)
	start := mpi.Wtime()
	for range reps {
		if r < peer {
			if err := mpi.Send(c, buf, peer, 1); err != nil {
				return 0, err
			}
		}
		if _, err := mpi.Recv(c, buf, peer, 1); err != nil {
			return 0, err
		}
		if r > peer {
			if err := mpi.Send(c, buf, peer, 1); err != nil {
				return 0, err
			}
		}
	}
	return mpi.Wtime() - start, nil
}
