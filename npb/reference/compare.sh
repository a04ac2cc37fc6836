#!/bin/sh
# compare.sh: run a reference NPB3.4-MPI binary and the Go port
# alternately and print the medians of their Mop/s and the ratio Go/NPB,
# and of their CPU time (user and system, launcher included) and the
# ratio NPB/Go: on a loaded machine the CPU time moves less than the
# elapsed time that Mop/s comes from.
# See README.md beside this script.
#
#   compare.sh [-r REFDIR] [-n RUNS] BENCHMARK CLASS NP
#
# REFDIR is build.sh's output directory (default npbref); its
# bin/BENCH.CLASS.x is run with the system MPI, the Go port with this
# repository's mpirun. Every run must verify.
#
# Environment: REF_MPIRUN (mpirun.openmpi), BIND (core when NP is at most
# the number of CPUs, else none; applies to both), GO (go).

set -eu

prog=$(basename "$0")
die() {
	echo "$prog: $*" >&2
	exit 1
}
usage() {
	echo "usage: $prog [-r REFDIR] [-n RUNS] BENCHMARK CLASS NP" >&2
	exit 2
}

refdir=npbref
runs=3
while getopts r:n:h opt; do
	case $opt in
	r) refdir=$OPTARG ;;
	n) runs=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || usage
bench=$(echo "$1" | tr A-Z a-z)
class=$(echo "$2" | tr a-z A-Z)
np=$3
case $runs in '' | *[!0-9]* | 0) die "-n $runs: want a positive number of runs" ;; esac
case $np in '' | *[!0-9]* | 0) die "NP $np: want a positive number of processes" ;; esac

REF_MPIRUN=${REF_MPIRUN:-mpirun.openmpi}
GO=${GO:-go}
ref=$refdir/bin/$bench.$class.x
[ -x "$ref" ] || die "$ref not found: build it first (build.sh -o $refdir -c $class NPB_DIR $bench)"
command -v "$REF_MPIRUN" >/dev/null 2>&1 || die "$REF_MPIRUN not found (set REF_MPIRUN)"
command -v "$GO" >/dev/null 2>&1 || die "$GO not found (set GO)"

cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ -z "${BIND:-}" ]; then
	BIND=none
	[ "$np" -le "$cpus" ] && BIND=core
fi
refopts="--oversubscribe --bind-to $BIND"
[ "$(id -u)" -eq 0 ] && refopts="--allow-run-as-root $refopts"

# The Go side: this repository's mpirun and npb command, built once.
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npbcompare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
(cd "$repo" && "$GO" build -o "$tmp/mpirun" ./cmd/mpirun && "$GO" build -o "$tmp/npb" ./npb/cmd/npb) ||
	die "cannot build the Go port in $repo"

# mops FILE prints the Mop/s of a verified run's report, or fails.
mops() {
	grep -q 'Verification *= *SUCCESSFUL' "$1" || return 1
	sed -n 's/^ *Mop\/s total *= *\([0-9.]*\).*/\1/p' "$1" | head -n 1
}

# cputimes writes to $tmp/times the CPU seconds (user and system) that the
# finished children of this shell have used so far: the shell's times
# builtin, which must run in this shell (not in a pipeline or a command
# substitution).
cputimes() {
	times >"$tmp/times.raw"
	awk 'NR == 2 {
		t = 0
		for (f = 1; f <= 2; f++) {
			v = $f; sub(/s$/, "", v); n = split(v, p, "m")
			t += (n == 2) ? p[1] * 60 + p[2] : p[1]
		}
		printf "%.2f\n", t
	}' "$tmp/times.raw" >"$tmp/times"
}

# median prints the median of its arguments.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

refs=
gos=
refcpus=
gocpus=
i=1
echo "$bench class $class, $np processes, $runs alternating runs (bind $BIND)"
while [ "$i" -le "$runs" ]; do
	cputimes
	t0=$(cat "$tmp/times")
	# shellcheck disable=SC2086
	$REF_MPIRUN $refopts -np "$np" "$ref" >"$tmp/ref.out" 2>&1 || true
	cputimes
	t1=$(cat "$tmp/times")
	r=$(mops "$tmp/ref.out") || die "NPB run $i did not verify:
$(cat "$tmp/ref.out")"
	"$tmp/mpirun" -np "$np" -bind-to "$BIND" "$tmp/npb" -class "$class" -results '' "$bench" >"$tmp/go.out" 2>&1 || true
	cputimes
	t2=$(cat "$tmp/times")
	g=$(mops "$tmp/go.out") || die "Go run $i did not verify:
$(cat "$tmp/go.out")"
	rc=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	gc=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
	printf 'run %d: NPB3.4-MPI %10s Mop/s %8s s CPU   Go %10s Mop/s %8s s CPU\n' "$i" "$r" "$rc" "$g" "$gc"
	refs="$refs $r"
	gos="$gos $g"
	refcpus="$refcpus $rc"
	gocpus="$gocpus $gc"
	i=$((i + 1))
done
# shellcheck disable=SC2086
mr=$(median $refs)
# shellcheck disable=SC2086
mg=$(median $gos)
# shellcheck disable=SC2086
cr=$(median $refcpus)
# shellcheck disable=SC2086
cg=$(median $gocpus)
printf 'median: NPB3.4-MPI %s Mop/s, Go %s Mop/s, Go/NPB %s\n' "$mr" "$mg" "$(awk -v g="$mg" -v r="$mr" 'BEGIN { printf "%.2f", g / r }')"
printf 'median CPU time: NPB3.4-MPI %s s, Go %s s, NPB/Go %s\n' "$cr" "$cg" "$(awk -v g="$cg" -v r="$cr" 'BEGIN { if (g > 0) printf "%.2f", r / g; else print "-" }')"
