// Command background starts a child that outlives it, holding its standard
// output and error, prints "child PID" and exits 0 without waiting for it:
// like a rank that runs "sleep 100 &".
package main

import (
	"fmt"
	"os"
	"os/exec"
)

func main() {
	child := exec.Command("sleep", "100")
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("child %d\n", child.Process.Pid)
}
