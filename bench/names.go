package bench

import (
	"fmt"
	"slices"
	"strings"
)

// The benchmarks, in IMB's order: point-to-point first.
var (
	PointToPoint = []string{"PingPong", "PingPing", "Sendrecv", "Exchange"}
	Collectives  = []string{"Barrier", "Bcast", "Reduce", "Allreduce", "Allgather", "Gather", "Scatter", "Alltoall"}
	// Nonblocking are IMB-NBC's collectives in its pure mode: each
	// operation started and waited for at once, with no computation
	// between, and its request freed (Request.Release) as MPI_Wait frees
	// a C program's. They time the nonblocking machinery beside the
	// collective's own work.
	Nonblocking = []string{"Ibarrier", "Ibcast", "Ireduce", "Iallreduce", "Iallgather", "Ialltoall"}
	// OneSided are IMB-RMA's single-transfer benchmarks, in their
	// non-aggregate mode: rank 0 accesses rank 1's window, under a shared
	// lock, and flushes after each operation.
	OneSided = []string{"Unidir_put", "Unidir_get", "Accumulate"}
)

// AllBenchmarks lists every benchmark.
func AllBenchmarks() []string { return slices.Concat(PointToPoint, Collectives, Nonblocking, OneSided) }

// IsOneSided reports whether name is a one-sided (IMB-RMA) benchmark.
func IsOneSided(name string) bool { return slices.Contains(OneSided, name) }

// IsCollective reports whether name is a collective benchmark, blocking
// or nonblocking.
func IsCollective(name string) bool {
	return slices.Contains(Collectives, name) || slices.Contains(Nonblocking, name)
}

// ParseBenchmarks reads a comma-separated list of benchmark names (any
// case; "all" for every one) into their canonical names, in the order
// given, without repeats.
func ParseBenchmarks(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.EqualFold(f, "all") {
			for _, b := range AllBenchmarks() {
				if !slices.Contains(out, b) {
					out = append(out, b)
				}
			}
			continue
		}
		i := slices.IndexFunc(AllBenchmarks(), func(b string) bool { return strings.EqualFold(b, f) })
		if i < 0 {
			return nil, fmt.Errorf("bench: unknown benchmark %q (known: %s)", f, strings.Join(AllBenchmarks(), ", "))
		}
		if b := AllBenchmarks()[i]; !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no benchmark in %q", list)
	}
	return out, nil
}
