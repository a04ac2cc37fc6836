#!/bin/sh
# gen.sh regenerates the runtime's PGO profile, internal/pgo/mpi.pgo, and
# its copies cmd/mpibench/default.pgo and libmpich/default.pgo: it builds mpibench and mpirun without
# a profile, runs the suite's worker at 2 and 4 processes with each rank's
# CPU profile on, and merges the profiles. Run it from the module's root:
#
#	sh internal/pgo/gen.sh
set -eu
[ -f go.mod ] && [ -d internal/pgo ] || { echo "gen.sh: run from the martini module's root" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
go build -pgo=off -o "$tmp/mpibench" ./cmd/mpibench
go build -pgo=off -o "$tmp/mpirun" ./cmd/mpirun
for np in 2 4; do
	"$tmp/mpirun" -np "$np" "$tmp/mpibench" worker \
		-bench PingPong,Sendrecv,Barrier,Bcast,Reduce,Allreduce,Allgather,Alltoall \
		-sizes 8,1k,64k -budget 400ms -samples 5 -cpuprofile "$tmp/np$np" >/dev/null
done
go tool pprof -proto "$tmp"/np2.* "$tmp"/np4.* >"$tmp/mpi.pgo"
cp "$tmp/mpi.pgo" internal/pgo/mpi.pgo
cp "$tmp/mpi.pgo" cmd/mpibench/default.pgo
cp "$tmp/mpi.pgo" libmpich/default.pgo
echo "gen.sh: wrote internal/pgo/mpi.pgo, cmd/mpibench/default.pgo and libmpich/default.pgo"
