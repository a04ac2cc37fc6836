// Command hoststore is storesum for a job across hosts: every rank puts
// its rank and host, fences and gets every rank's, and prints
//
//	rank R of N on HOST (local L of M, tcp ADDR): sum S, hosts H0 H1 ...
//
// the sum of the ranks and every rank's host in rank order.
//
// With -probe the last rank also checks that the data store refuses a
// wrong job key before it connects, and a second connection claiming its
// rank after, printing "refused: ..." for each.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
)

func main() {
	probe := flag.Bool("probe", false, "the last rank probes the data store's refusals")
	flag.Parse()
	if err := run(*probe); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(probe bool) error {
	rank, _ := strconv.Atoi(os.Getenv(launch.EnvRank))
	size, _ := strconv.Atoi(os.Getenv(launch.EnvSize))
	probe = probe && rank == size-1
	if probe {
		if err := expectRefusal(rank, "wrong job key", 0xff); err != nil {
			return err
		}
	}
	job, err := launch.FromEnv()
	if err != nil {
		return err
	}
	defer job.Close()
	if probe {
		if err := expectRefusal(rank, "already connected", 0); err != nil {
			return err
		}
	}
	if err := job.SetState(launch.RankInitialized); err != nil {
		return err
	}
	sum, hosts, err := exchange(job)
	if err != nil {
		return err
	}
	fmt.Printf("rank %d of %d on %s (local %d of %d, tcp %s): sum %d, hosts %s\n",
		job.Rank, job.Size, job.Host, job.LocalRank, job.LocalSize, job.TCPAddr, sum, strings.Join(hosts, " "))
	return job.SetState(launch.RankFinalized)
}

// exchange puts this rank's rank and host and gets every rank's.
func exchange(job *launch.Job) (int, []string, error) {
	me := strconv.Itoa(job.Rank)
	if err := job.Store.Put("rank/"+me, me+" "+job.Host); err != nil {
		return 0, nil, err
	}
	if err := job.Store.Fence(); err != nil {
		return 0, nil, err
	}
	sum := 0
	var hosts []string
	for r := range job.Size {
		v, err := job.Store.Get("rank/" + strconv.Itoa(r))
		if err != nil {
			return 0, nil, err
		}
		n, host, _ := strings.Cut(v, " ")
		k, err := strconv.Atoi(n)
		if err != nil {
			return 0, nil, fmt.Errorf("rank %d put %q: %w", r, v, err)
		}
		sum += k
		hosts = append(hosts, host)
	}
	return sum, hosts, job.Store.Fence()
}

// expectRefusal dials the data store as rank with the job's key, its
// first byte xor'ed with flip, and checks that it is refused for why.
func expectRefusal(rank int, why string, flip byte) error {
	key, err := launch.ParseJobKey(os.Getenv(launch.EnvJobKey))
	if err != nil {
		return err
	}
	key[0] ^= flip
	f, err := launch.DialStore(os.Getenv(launch.EnvStoreAddr), key, rank)
	if err == nil {
		f.Close()
		return fmt.Errorf("the data store accepted a connection that should be refused for %q", why)
	}
	if !errors.Is(err, datastore.ErrRefused) || !strings.Contains(err.Error(), why) {
		return fmt.Errorf("want a refusal for %q: %w", why, err)
	}
	fmt.Printf("refused: %s\n", why)
	return nil
}
