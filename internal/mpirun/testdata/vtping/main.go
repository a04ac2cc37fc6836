// Command vtping runs ping-pongs between the ranks of each pair (0 and 1,
// 2 and 3, ...) and prints each rank's communication times by mpi.Wtime:
// in virtual time they are the model's, the same in every run. With
// -declare N every rank computes (a loop of some CPU time) and declares N
// operations (mpi.Compute) before each message it sends.
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

// declare is the operations declared before each send.
var declare = flag.Float64("declare", 0, "operations declared (mpi.Compute) before each send")

func main() {
	flag.Parse()
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
			compute()
			if err := mpi.Send(c, buf, peer, 1); err != nil {
				return 0, err
			}
		}
		if _, err := mpi.Recv(c, buf, peer, 1); err != nil {
			return 0, err
		}
		if r > peer {
			compute()
			if err := mpi.Send(c, buf, peer, 1); err != nil {
				return 0, err
			}
		}
	}
	return mpi.Wtime() - start, nil
}

// sink keeps compute's loop.
var sink float64

// compute spends some CPU time, which declared computing does not count,
// and declares -declare operations.
func compute() {
	if *declare == 0 {
		return
	}
	for i := range 20000 {
		sink += float64(i) * 1.5
	}
	mpi.Compute(*declare)
}
