// Command kvs exercises the PMI store under a PMI launcher, for the
// package's tests: run it as mpiexec.hydra -n N kvs. Every rank puts keys
// whose values need escaping and the longest key and value Hydra takes,
// checks that a longer value is refused, collects them with FenceCollect and checks
// every other rank's, Gets keys outside the prefix, puts more, Fences,
// collects again, and Closes; it prints one line "rank R of N: pmi-V ok".
//
// With -mark DIR, rank 0 enters its plain Fence late, after creating the
// file DIR/entered, and every rank checks after the Fence that the file
// is there: a Fence that did not wait for every rank would miss it.
//
// With -abort R, rank R calls Abort with exit code 7 and exits 7 while
// the others wait in a Fence: the launcher must end the job.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rhinet-go/martini/llc/pmi"
)

func main() {
	abort := flag.Int("abort", -1, "this rank calls Abort(7) while the others wait in a fence")
	flag.StringVar(&mark, "mark", "", "rank 0 enters the Fence late, after creating a file in this directory")
	flag.Parse()
	if err := run(*abort); err != nil {
		fmt.Fprintln(os.Stderr, "kvs:", err)
		os.Exit(1)
	}
}

// mark is the -mark directory.
var mark string

func run(abortRank int) error {
	job, err := pmi.FromEnv(os.Getenv)
	if err != nil {
		return err
	}
	s := job.Store
	if abortRank >= 0 {
		if job.Rank == abortRank {
			if err := s.Abort(7, fmt.Sprintf("rank %d aborts; as asked", job.Rank)); err != nil {
				return err
			}
			os.Exit(7)
		}
		err := s.Fence()
		return fmt.Errorf("rank %d: the fence returned (%v) although rank %d aborted", job.Rank, err, abortRank)
	}
	if err := exchange(s, job.Rank, job.Size); err != nil {
		return fmt.Errorf("rank %d: %w", job.Rank, err)
	}
	if err := s.Close(); err != nil {
		return err
	}
	fmt.Printf("rank %d of %d: pmi-%d ok\n", job.Rank, job.Size, job.Version)
	return nil
}

// value returns the value rank r puts under "t/value/r": every kind of
// byte the wire cannot carry, and long enough to be near the limit once
// escaped.
func value(r int) string {
	return fmt.Sprintf("rank %d: a=b;c,d\\e%%f\n\t\x00\xffé ", r) + strings.Repeat("v", 900)
}

// The longest key and value Hydra takes (both protocols): 63 and 1023
// bytes, its buffers' 64 and 1024 less a terminating NUL.
var longValue = strings.Repeat("m", 1023)

func longKey(r int) string {
	k := "t/long/" + strconv.Itoa(r) + "/"
	return k + strings.Repeat("k", 63-len(k))
}

func exchange(s *pmi.Client, rank, size int) error {
	me := strconv.Itoa(rank)
	for k, v := range map[string]string{
		"t/value/" + me: value(rank),
		"t/empty/" + me: "",
		longKey(rank):   longValue,
		"other/" + me:   "other " + me,
	} {
		if err := s.Put(k, v); err != nil {
			return err
		}
	}
	if err := s.Put("over/"+me, longValue+"x"); !errors.Is(err, pmi.ErrTooLong) {
		return fmt.Errorf("put of a value of 1024 bytes: %v, want ErrTooLong", err)
	}
	kv, err := s.FenceCollect("t/")
	if err != nil {
		return err
	}
	if len(kv) != 3*size {
		return fmt.Errorf("collect t/: %d pairs, want %d: %q", len(kv), 3*size, kv)
	}
	for r := range size {
		if v := kv[longKey(r)]; v != longValue {
			return fmt.Errorf("collect t/: the longest value of rank %d has %d bytes", r, len(v))
		}
		if v, ok := kv["t/value/"+strconv.Itoa(r)]; !ok || v != value(r) {
			return fmt.Errorf("collect t/: value of rank %d = %q, %v", r, v, ok)
		}
		if v, ok := kv["t/empty/"+strconv.Itoa(r)]; !ok || v != "" {
			return fmt.Errorf("collect t/: empty value of rank %d = %q, %v", r, v, ok)
		}
		if v, err := s.Get("other/" + strconv.Itoa(r)); err != nil || v != "other "+strconv.Itoa(r) {
			return fmt.Errorf("get other/%d = %q, %v", r, v, err)
		}
	}
	// Keys put after a fence, seen after the next plain Fence.
	if err := s.Put("u/"+me, "second "+me); err != nil {
		return err
	}
	if err := fence(s, rank); err != nil {
		return err
	}
	kv, err = s.FenceCollect("u/")
	if err != nil {
		return err
	}
	for r := range size {
		if v := kv["u/"+strconv.Itoa(r)]; v != "second "+strconv.Itoa(r) || len(kv) != size {
			return fmt.Errorf("collect u/: %q", kv)
		}
	}
	return nil
}

// fence is a Fence, which with -mark rank 0 enters late and the others
// check it waited for.
func fence(s *pmi.Client, rank int) error {
	if mark == "" {
		return s.Fence()
	}
	file := filepath.Join(mark, "entered")
	if rank == 0 {
		time.Sleep(100 * time.Millisecond) // the others are in the Fence by now
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			return err
		}
	}
	if err := s.Fence(); err != nil {
		return err
	}
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("the Fence returned before rank 0 entered it: %w", err)
	}
	return nil
}
