// Command nonet calls mpi.Init without importing a network, and prints
// its error.
package main

import (
	"fmt"
	"os"

	"github.com/rhinet-go/martini/mpi"
)

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mpi.Finalize()
}
