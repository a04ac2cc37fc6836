// Package bootstrap is the exchange by which the processes of a job learn,
// before their first message, what they need of each other: every
// process's bootstrap region (llc.Config.Boot), its address on the network
// between hosts, its host and the CPU it is pinned to, and from rank 0
// World's barrier controller. Each process publishes its part in the
// job's data store and collects everyone's in one fence, so that its
// data-store traffic does not grow with a request per peer; Exchange then
// connects the process's networks.
package bootstrap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/llc/launch"
	"github.com/rhinet-go/martini/llc/network"
)

// Result is what the exchange brought a process.
type Result struct {
	// Boot is every process's bootstrap region, by rank.
	Boot []llc.RegionID
	// WorldBarrier is World's barrier controller of the networks'
	// Offload, -1 for none.
	WorldBarrier int
	// Processors identifies, by rank, the processor each process is
	// pinned to, equal for the processes that share one; nil when no two
	// share one (readPlacement).
	Processors []int
}

// prefix begins the data-store keys of the exchange, which one fence
// collects.
const prefix = "boot/"

// Data-store keys of the exchange: a rank's bootstrap region, its address
// on the network between hosts, its index and host there, the CPU it is
// pinned to; and World's barrier controller.
func regionKey(rank int) string { return prefix + "region/" + strconv.Itoa(rank) }
func addrKey(rank int) string   { return prefix + "addr/" + strconv.Itoa(rank) }
func placeKey(rank int) string  { return prefix + "place/" + strconv.Itoa(rank) }
func cpuKey(rank int) string    { return prefix + "cpu/" + strconv.Itoa(rank) }

const worldBarrierKey = prefix + "offload/world"

// Exchange allocates job's process's bootstrap area on nets, publishes it
// with what reaches the process and where it runs (and, from rank 0,
// World's barrier controller, claimed on the networks' Offload), collects
// the same from every process in one fence, and connects nets.
func Exchange(job *launch.Job, nets *network.Nets) (Result, error) {
	if err := publish(job, nets); err != nil {
		return Result{}, err
	}
	var res Result
	kv, boot, world, err := collect(job.Store, job.Size)
	if err != nil {
		return Result{}, err
	}
	res.Boot, res.WorldBarrier = boot, world
	if res.Processors, err = readPlacement(kv, job.Size); err != nil {
		return Result{}, err
	}
	var addrs []string
	if nets.Addr() != "" {
		if addrs, err = readAddrs(kv, job.Size); err != nil {
			return Result{}, err
		}
	}
	var local []int
	if nets.Spans() {
		if local, err = hostRanks(kv, job); err != nil {
			return Result{}, err
		}
	}
	return res, nets.Connect(job, addrs, local)
}

// publish puts this process's part of the exchange.
func publish(job *launch.Job, nets *network.Nets) error {
	region, err := nets.AllocBoot(job)
	if err != nil {
		return err
	}
	host, err := job.HostName()
	if err != nil {
		return err
	}
	put := [][2]string{
		{regionKey(job.Rank), strconv.FormatUint(uint64(region), 10)},
		{cpuKey(job.Rank), placement(launch.PinnedCPU(), host)},
	}
	if a := nets.Addr(); a != "" {
		put = append(put, [2]string{addrKey(job.Rank), a})
	}
	if nets.Spans() {
		put = append(put, [2]string{placeKey(job.Rank), strconv.Itoa(job.LocalRank) + " " + job.Host})
	}
	if job.Rank == 0 {
		put = append(put, [2]string{worldBarrierKey, strconv.Itoa(worldBarrier(job, nets))})
	}
	for _, kv := range put {
		if err := job.Store.Put(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// worldBarrier claims World's barrier controller on the networks'
// Offload: -1 for none.
func worldBarrier(job *launch.Job, nets *network.Nets) int {
	off := nets.Offload()
	if job.Size < 2 || off == nil || !nets.Caps().Offload {
		return -1
	}
	id, err := off.AllocBarrier()
	if err != nil {
		return -1
	}
	return id
}

// collect waits until every one of the size processes has published its
// bootstrap region, and rank 0 World's barrier controller, and returns
// everything the exchange's fence collected and the two read from it.
func collect(store datastore.Store, size int) (kv map[string]string, boot []llc.RegionID, worldBarrier int, err error) {
	if kv, err = store.FenceCollect(prefix); err != nil {
		return nil, nil, 0, err
	}
	boot, worldBarrier, err = readBoot(kv, size)
	return kv, boot, worldBarrier, err
}

// readBoot reads the bootstrap regions and World's barrier controller
// from what the exchange collected.
func readBoot(kv map[string]string, size int) (boot []llc.RegionID, worldBarrier int, err error) {
	boot = make([]llc.RegionID, size)
	for r := range boot {
		v, ok := kv[regionKey(r)]
		if !ok {
			return nil, 0, fmt.Errorf("bootstrap: rank %d published no bootstrap region", r)
		}
		sid, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return nil, 0, fmt.Errorf("bootstrap region of rank %d: %q: %w", r, v, err)
		}
		boot[r] = llc.RegionID(sid)
	}
	v, ok := kv[worldBarrierKey]
	if !ok {
		return nil, 0, errors.New("bootstrap: rank 0 published no barrier controller for World")
	}
	if worldBarrier, err = strconv.Atoi(v); err != nil {
		return nil, 0, fmt.Errorf("World's barrier controller: %q: %w", v, err)
	}
	return boot, worldBarrier, nil
}

// readAddrs reads every rank's address on the network between hosts.
func readAddrs(kv map[string]string, size int) ([]string, error) {
	addrs := make([]string, size)
	for r := range addrs {
		a, ok := kv[addrKey(r)]
		if !ok {
			return nil, fmt.Errorf("bootstrap: rank %d published no network address", r)
		}
		addrs[r] = a
	}
	return addrs, nil
}

// hostRanks returns the ranks of this process's host by their index in
// its segment.
func hostRanks(kv map[string]string, job *launch.Job) ([]int, error) {
	local := make([]int, job.LocalSize)
	for i := range local {
		local[i] = -1
	}
	for r := range job.Size {
		v, ok := kv[placeKey(r)]
		if !ok {
			return nil, fmt.Errorf("bootstrap: rank %d published no host", r)
		}
		idx, host, _ := strings.Cut(v, " ")
		i, err := strconv.Atoi(idx)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: the place of rank %d: %q", r, v)
		}
		if host != job.Host {
			continue
		}
		if i < 0 || i >= len(local) || local[i] >= 0 {
			return nil, fmt.Errorf("bootstrap: rank %d claims index %d of host %q, of %d ranks", r, i, host, len(local))
		}
		local[i] = r
	}
	for i, r := range local {
		if r < 0 {
			return nil, fmt.Errorf("bootstrap: no rank has index %d of host %q", i, job.Host)
		}
	}
	return local, nil
}
