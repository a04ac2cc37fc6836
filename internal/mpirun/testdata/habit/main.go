// Command habit prints what mpirun's flags from other launchers set: its
// rank, FOO and BAR from its environment, its working directory, the host
// its agent was started for, and all of its standard input.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wd, _ := os.Getwd()
	e := os.Getenv
	fmt.Printf("rank %s foo=%s bar=%s host=%s wd=%s stdin=%q\n",
		e("MARTINI_RANK"), e("FOO"), e("BAR"), e("MPIRUN_TEST_HOST"), wd, in)
}
