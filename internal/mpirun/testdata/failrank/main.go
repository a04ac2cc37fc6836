// Command failrank makes one rank fail while the others sleep.
//
//	failrank exit RANK CODE   rank RANK exits with CODE
//	failrank panic RANK       rank RANK panics
//	failrank kill RANK        rank RANK kills itself with SIGKILL
//	failrank sleep            every rank sleeps
//
// Every rank first prints "pid PID".
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

func main() {
	fmt.Printf("pid %d\n", os.Getpid())
	rank, _ := strconv.Atoi(os.Getenv("MARTINI_RANK"))
	mode := os.Args[1]
	if mode != "sleep" {
		target, _ := strconv.Atoi(os.Args[2])
		if rank == target {
			time.Sleep(200 * time.Millisecond)
			switch mode {
			case "exit":
				code, _ := strconv.Atoi(os.Args[3])
				os.Exit(code)
			case "panic":
				panic("something went wrong")
			case "kill":
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}
	time.Sleep(60 * time.Second)
}
