// Command printrank prints its rank and settings as mpirun passed them.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	e := os.Getenv
	fmt.Printf("rank %s of %s args=%s eager=%s rndv=%s nocma=%s stats=%s\n",
		e("MARTINI_RANK"), e("MARTINI_SIZE"), strings.Join(os.Args[1:], ","),
		e("MARTINI_EAGER_LIMIT"), e("MARTINI_RNDV"), e("MARTINI_NO_CMA"), e("MARTINI_STATS"))
	fmt.Fprintf(os.Stderr, "stderr of rank %s\n", e("MARTINI_RANK"))
	fmt.Print("no newline at the end")
}
