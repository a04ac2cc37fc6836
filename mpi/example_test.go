package mpi_test

// Each example is a whole MPI program: go test runs it as a job of its own
// (examplejob_test.go says how many ranks), and checks what rank 0 prints.

import (
	"fmt"
	"log"
	"slices"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks the job runs over
)

// A program initializes MPI, works with the processes of World, and
// finalizes. This one runs as a job of 4 processes (mpirun -np 4 prog).
func Example() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	sum := make([]int, 1)
	if err := mpi.Allreduce(world, []int{world.Rank()}, sum, mpi.Sum); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Printf("%d processes, whose ranks add up to %d\n", world.Size(), sum[0])
	}
	// Output: 4 processes, whose ranks add up to 6
}

// Rank 1 sends three numbers to rank 0, which receives them with the same
// tag.
func ExampleSend() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	const tag = 7
	switch world.Rank() {
	case 1:
		if err := mpi.Send(world, []float64{1, 2, 3}, 0, tag); err != nil {
			log.Fatal(err)
		}
	case 0:
		buf := make([]float64, 3)
		st, err := mpi.Recv(world, buf, 1, tag)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("received %v from rank %d with tag %d\n", buf, st.Source, st.Tag)
	}
	// Output: received [1 2 3] from rank 1 with tag 7
}

// Rank 0 receives from whichever rank sends first (AnySource); the Status
// says which one it was and how many elements came.
func ExampleRecv() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	if world.Rank() != 0 {
		msg := make([]int32, world.Rank()) // rank r sends r elements
		if err := mpi.Send(world, msg, 0, 0); err != nil {
			log.Fatal(err)
		}
		return
	}
	counts := make([]int, world.Size())
	for range world.Size() - 1 {
		buf := make([]int32, 8)
		st, err := mpi.Recv(world, buf, mpi.AnySource, mpi.AnyTag)
		if err != nil {
			log.Fatal(err)
		}
		counts[st.Source] = st.Count
	}
	fmt.Println("elements received from each rank:", counts[1:])
	// Output: elements received from each rank: [1 2]
}

// Isend and Irecv return at once; Waitall completes both. Every rank
// passes its rank to the next one round a ring.
func ExampleIsend() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	rank, size := world.Rank(), world.Size()
	from := make([]int, 1)
	recv, err := mpi.Irecv(world, from, (rank+size-1)%size, 0)
	if err != nil {
		log.Fatal(err)
	}
	send, err := mpi.Isend(world, []int{rank}, (rank+1)%size, 0)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := mpi.Waitall([]*mpi.Request{recv, send}); err != nil {
		log.Fatal(err)
	}
	if rank == 0 {
		fmt.Println("rank 0 got", from[0], "from its left neighbour")
	}
	// Output: rank 0 got 2 from its left neighbour
}

// A loop that starts requests by the thousand gives each back once it
// has completed, and keeps its statuses in one slice: its rounds allocate
// nothing. Every rank passes a count round a ring.
func ExampleRequest_Release() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	rank, size := world.Rank(), world.Size()
	in, out := make([]int, 1), make([]int, 1)
	reqs, sts := make([]*mpi.Request, 2), make([]mpi.Status, 2)
	sum := 0
	for i := range 1000 {
		out[0] = rank + i
		var err error
		if reqs[0], err = mpi.Irecv(world, in, (rank+size-1)%size, 0); err != nil {
			log.Fatal(err)
		}
		if reqs[1], err = mpi.Isend(world, out, (rank+1)%size, 0); err != nil {
			log.Fatal(err)
		}
		if err := mpi.WaitallInto(reqs, sts); err != nil {
			log.Fatal(err)
		}
		sum += in[0]
		for _, r := range reqs {
			if err := r.Release(); err != nil {
				log.Fatal(err)
			}
		}
	}
	if rank == 0 {
		fmt.Println("rank 0 got", sum, "in all from rank", sts[0].Source)
	}
	// Output: rank 0 got 501500 in all from rank 2
}

// Waitall completes a set of requests and returns the Status of each.
func ExampleWaitall() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	if world.Rank() != 0 {
		if err := mpi.Send(world, []float64{float64(world.Rank()) / 2}, 0, world.Rank()); err != nil {
			log.Fatal(err)
		}
		return
	}
	bufs := make([][]float64, world.Size())
	var reqs []*mpi.Request
	for r := 1; r < world.Size(); r++ {
		bufs[r] = make([]float64, 1)
		req, err := mpi.Irecv(world, bufs[r], r, mpi.AnyTag)
		if err != nil {
			log.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	sts, err := mpi.Waitall(reqs)
	if err != nil {
		log.Fatal(err)
	}
	for _, st := range sts {
		fmt.Printf("tag %d from rank %d: %v\n", st.Tag, st.Source, bufs[st.Source][0])
	}
	// Output:
	// tag 1 from rank 1: 0.5
	// tag 2 from rank 2: 1
	// tag 3 from rank 3: 1.5
}

// Every process contributes a vector and gets the element-wise sums.
func ExampleAllreduce() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	r := float64(world.Rank())
	sums := make([]float64, 2)
	if err := mpi.Allreduce(world, []float64{1, r}, sums, mpi.Sum); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Println("processes:", sums[0], "sum of the ranks:", sums[1])
	}
	// Output: processes: 4 sum of the ranks: 6
}

// Iallreduce starts the reduction and returns; the process may compute
// while it progresses, and Wait completes it.
func ExampleIallreduce() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	largest := make([]int, 1)
	req, err := mpi.Iallreduce(world, []int{10 * (world.Rank() + 1)}, largest, mpi.Max)
	if err != nil {
		log.Fatal(err)
	}
	// ... work that does not touch the buffers ...
	if _, err := req.Wait(); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Println("largest:", largest[0])
	}
	// Output: largest: 30
}

// A persistent collective is made once and started every round; each
// round reduces what the buffers hold when it starts.
func ExamplePersistentCollective() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	mine, total := make([]int, 1), make([]int, 1)
	req, err := mpi.PersistentCollective(world, func() (*mpi.Request, error) {
		return mpi.Iallreduce(world, mine, total, mpi.Sum)
	})
	if err != nil {
		log.Fatal(err)
	}
	sum := 0
	for round := range 10 {
		mine[0] = round * (world.Rank() + 1)
		if err := req.Start(); err != nil {
			log.Fatal(err)
		}
		if _, err := req.Wait(); err != nil {
			log.Fatal(err)
		}
		sum += total[0]
	}
	if err := req.Free(); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Println("sum over the rounds:", sum)
	}
	// Output: sum over the rounds: 450
}

// The root's buffer reaches every process.
func ExampleBcast() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	const root = 2
	params := make([]int32, 3)
	if world.Rank() == root {
		copy(params, []int32{3, 1, 4})
	}
	if err := mpi.Bcast(world, params, root); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Println("rank 0 has", params)
	}
	// Output: rank 0 has [3 1 4]
}

// The root gathers one element from every process, in rank order.
func ExampleGather() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	r := world.Rank()
	var squares []int64 // only the root's receive buffer is used
	if r == 0 {
		squares = make([]int64, world.Size())
	}
	if err := mpi.Gather(world, []int64{int64(r * r)}, squares, 0); err != nil {
		log.Fatal(err)
	}
	if r == 0 {
		fmt.Println(squares)
	}
	// Output: [0 1 4 9]
}

// Scan gives each process the reduction over the ranks up to its own.
func ExampleScan() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	prefix := make([]int, 1)
	if err := mpi.Scan(world, []int{world.Rank() + 1}, prefix, mpi.Sum); err != nil {
		log.Fatal(err)
	}
	all := make([]int, world.Size())
	if err := mpi.Allgather(world, prefix, all); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Println("prefix sums:", all)
	}
	// Output: prefix sums: [1 3 6 10]
}

// No process leaves the barrier before all have entered it: rank 0 sees
// every rank's message before the barrier.
func ExampleBarrier() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	if world.Rank() != 0 {
		req, err := mpi.Isend(world, []int{world.Rank()}, 0, 0)
		if err != nil {
			log.Fatal(err)
		}
		if err := mpi.Barrier(world); err != nil {
			log.Fatal(err)
		}
		if _, err := req.Wait(); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := mpi.Barrier(world); err != nil {
		log.Fatal(err)
	}
	var arrived []int
	for range world.Size() - 1 {
		st, err := world.Probe(mpi.AnySource, 0) // every message was sent before the barrier
		if err != nil {
			log.Fatal(err)
		}
		buf := make([]int, 1)
		if _, err := mpi.Recv(world, buf, st.Source, 0); err != nil {
			log.Fatal(err)
		}
		arrived = append(arrived, buf[0])
	}
	slices.Sort(arrived)
	fmt.Println("messages from ranks", arrived)
	// Output: messages from ranks [1 2]
}

// Split divides World by colour; the key orders the ranks of each part.
func ExampleComm_Split() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	half, err := world.Split(world.Rank()%2, world.Rank()) // even and odd ranks
	if err != nil {
		log.Fatal(err)
	}
	defer half.Free()
	members := make([]int, half.Size())
	if err := mpi.Allgather(half, []int{world.Rank()}, members); err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Printf("rank %d of %d in the part of World ranks %v\n", half.Rank(), half.Size(), members)
	}
	// Output: rank 0 of 2 in the part of World ranks [0 2]
}

// Idup duplicates a communicator in the background: the new one is usable
// once the Request completes.
func ExampleComm_Idup() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	lib, req, err := world.Idup() // a library's own communicator
	if err != nil {
		log.Fatal(err)
	}
	if _, err := req.Wait(); err != nil {
		log.Fatal(err)
	}
	defer lib.Free()
	cmp, err := world.Compare(lib)
	if err != nil {
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		fmt.Println("same processes in the same order, another context:", cmp == mpi.Congruent)
	}
	// Output: same processes in the same order, another context: true
}

// CartCreate arranges the processes in a periodic 2-D grid, whose
// neighbours CartShift names.
func ExampleComm_CartCreate() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	dims, err := mpi.DimsCreate(world.Size(), []int{0, 0})
	if err != nil {
		log.Fatal(err)
	}
	grid, err := world.CartCreate(dims, []bool{true, true}, false)
	if err != nil {
		log.Fatal(err)
	}
	defer grid.Free()
	coords, err := grid.CartCoords(grid.Rank())
	if err != nil {
		log.Fatal(err)
	}
	src, dst, err := grid.CartShift(0, 1)
	if err != nil {
		log.Fatal(err)
	}
	if grid.Rank() == 0 {
		fmt.Printf("grid %v: rank 0 at %v, its neighbours in dimension 0 ranks %d and %d\n", dims, coords, src, dst)
	}
	// Output: grid [2 2]: rank 0 at [0 0], its neighbours in dimension 0 ranks 2 and 2
}

// A window exposes memory of every process to the others: between two
// fences, each process puts its rank into its slot of rank 0's window.
func ExampleWin() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	win, slots, err := mpi.WinAllocate[int32](world, world.Size())
	if err != nil {
		log.Fatal(err)
	}
	defer win.Free()
	if err := win.Fence(); err != nil {
		log.Fatal(err)
	}
	r := world.Rank()
	if err := mpi.Put(win, []int32{int32(100 + r)}, 0, r); err != nil {
		log.Fatal(err)
	}
	if err := win.Fence(); err != nil {
		log.Fatal(err)
	}
	if r == 0 {
		fmt.Println("rank 0's window:", slots)
	}
	// Output: rank 0's window: [100 101 102]
}

// FetchAndOp adds to a counter in rank 0's window atomically, and returns
// the value before: each process gets a distinct ticket.
func ExampleFetchAndOp() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	win, counter, err := mpi.WinAllocate[int64](world, 1)
	if err != nil {
		log.Fatal(err)
	}
	defer win.Free()
	if err := win.LockAll(); err != nil {
		log.Fatal(err)
	}
	ticket, err := mpi.FetchAndOp(win, int64(1), 0, 0, mpi.Sum)
	if err != nil {
		log.Fatal(err)
	}
	if err := win.UnlockAll(); err != nil {
		log.Fatal(err)
	}
	tickets := make([]int64, world.Size())
	if err := mpi.Gather(world, []int64{ticket}, tickets, 0); err != nil {
		log.Fatal(err)
	}
	if err := win.Fence(); err != nil { // the counter's last update is visible
		log.Fatal(err)
	}
	if world.Rank() == 0 {
		slices.Sort(tickets)
		fmt.Println("tickets", tickets, "counter", counter[0])
	}
	// Output: tickets [0 1 2 3] counter 4
}

// A Vector datatype sends a column of a row-major matrix without copying
// it out first.
func ExampleVector() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	const rows, cols = 3, 4
	column, err := mpi.Vector(rows, 1, cols) // one element of each row
	if err != nil {
		log.Fatal(err)
	}
	switch world.Rank() {
	case 1:
		m := make([]float32, rows*cols)
		for i := range m {
			m[i] = float32(i)
		}
		if err := mpi.SendType(world, m[2:], 1, column, 0, 0); err != nil { // column 2
			log.Fatal(err)
		}
	case 0:
		col := make([]float32, rows)
		if _, err := mpi.Recv(world, col, 1, 0); err != nil {
			log.Fatal(err)
		}
		fmt.Println("column 2:", col)
	}
	// Output: column 2: [2 6 10]
}
