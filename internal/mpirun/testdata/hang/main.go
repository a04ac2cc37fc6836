// Command hang runs an erroneous program that can never end by itself:
//
//	hang deadlock   every rank receives from the next one, which never sends
//	hang recv       rank 0 receives from any source with tag 5, the others finalize
//	hang recvfrom   rank 0 receives from rank 1 with tag 5, the others finalize
//	hang probe      rank 0 probes rank 1 with tag 5, the others finalize
//	hang mprobe     rank 0 mprobes any source with tag 5, the others finalize
//	hang irecv      rank 0 waits for an Irecv from any source, the others finalize
//
// and, for contrast, programs that end by themselves however long their
// ranks wait:
//
//	hang late       rank 0 receives from any source with tag 5, rank 1
//	                finalizes, the last rank sleeps (outside MPI), then sends
//	                it the message
//
// Every rank first prints "pid PID"; a call that fails prints its error on
// standard error, and the rank exits with status 1.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/rhinet-go/martini/mpi"
	_ "github.com/rhinet-go/martini/networks" // the networks MPI runs over
)

func main() {
	fmt.Printf("pid %d\n", os.Getpid())
	if err := mpi.Init(); err != nil {
		fail(err)
	}
	w := mpi.World()
	if err := run(w, os.Args[1]); err != nil {
		fail(err)
	}
	if err := mpi.Finalize(); err != nil {
		fail(err)
	}
}

// run makes the calls of mode.
func run(w *mpi.Comm, mode string) error {
	buf := make([]byte, 8)
	if mode == "late" {
		return late(w)
	}
	if mode == "deadlock" {
		_, err := mpi.Recv(w, buf, (w.Rank()+1)%w.Size(), 0)
		return err
	}
	if w.Rank() != 0 {
		return nil
	}
	var err error
	switch mode {
	case "recv":
		_, err = mpi.Recv(w, buf, mpi.AnySource, 5)
	case "recvfrom":
		_, err = mpi.Recv(w, buf, 1, 5)
	case "probe":
		_, err = w.Probe(1, 5)
	case "mprobe":
		_, _, err = w.Mprobe(mpi.AnySource, 5)
	case "irecv":
		var r *mpi.Request
		if r, err = mpi.Irecv(w, buf, mpi.AnySource, 5); err == nil {
			_, err = r.Wait()
		}
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	return err
}

// late is mode late: it prints "received" on rank 0 once the message came.
func late(w *mpi.Comm) error {
	buf := make([]byte, 8)
	switch w.Rank() {
	case 0:
		if _, err := mpi.Recv(w, buf, mpi.AnySource, 5); err != nil {
			return err
		}
		fmt.Println("received")
	case w.Size() - 1:
		time.Sleep(3 * time.Second)
		return mpi.Send(w, buf, 0, 5)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
