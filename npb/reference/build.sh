#!/bin/sh
# build.sh: build the reference NPB3.4-MPI benchmarks from a source tree
# the user already has, for the Go ports to be compared with. See
# README.md beside this script.
#
#   build.sh [-o OUTDIR] [-c "CLASSES"] NPB_DIR [BENCHMARK...]
#
# NPB_DIR is an NPB3.4-MPI tree (the directory holding config/, sys/ and
# the benchmarks) or a directory that contains one. The tree is copied
# into OUTDIR and built there; nothing is written into NPB_DIR and nothing
# is fetched. The binaries land in OUTDIR/bin as BENCH.CLASS.x.
#
# Environment: MPIFC (mpif90.openmpi), MPICC (mpicc.openmpi), FFLAGS (-O3),
# CFLAGS (-O3), MAKE (make).

set -eu

prog=$(basename "$0")
die() {
	echo "$prog: $*" >&2
	exit 1
}
usage() {
	echo "usage: $prog [-o OUTDIR] [-c \"CLASSES\"] NPB_DIR [BENCHMARK...]" >&2
	echo "  benchmarks: bt cg ep ft is lu mg sp (default: all); classes: S W A B C (default: \"S A\")" >&2
	exit 2
}

out=npbref
classes="S A"
while getopts o:c:h opt; do
	case $opt in
	o) out=$OPTARG ;;
	c) classes=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
src=$1
shift
benches=${*:-bt cg ep ft is lu mg sp}

MPIFC=${MPIFC:-mpif90.openmpi}
MPICC=${MPICC:-mpicc.openmpi}
FFLAGS=${FFLAGS:--O3}
CFLAGS=${CFLAGS:--O3}
MAKE=${MAKE:-make}

# The tree: NPB_DIR itself or its NPB3.4-MPI subdirectory.
[ -d "$src" ] || die "$src: no such directory (give the path of an NPB3.4-MPI source tree)"
if [ ! -f "$src/sys/setparams.c" ] && [ -f "$src/NPB3.4-MPI/sys/setparams.c" ]; then
	src=$src/NPB3.4-MPI
fi
for f in sys/setparams.c config/make.def.template sys/make.common Makefile; do
	[ -f "$src/$f" ] || die "$src is not an NPB3.4-MPI source tree: $f is missing"
done
for b in $benches; do
	case $b in
	bt | cg | ep | ft | is | lu | mg | sp) ;;
	*) die "unknown benchmark '$b' (want bt cg ep ft is lu mg sp)" ;;
	esac
	B=$(echo "$b" | tr a-z A-Z)
	[ -f "$src/$B/Makefile" ] || die "$src has no $B/Makefile"
done
for c in $classes; do
	case $c in
	S | W | A | B | C) ;;
	*) die "unknown class '$c' (want S, W, A, B or C)" ;;
	esac
done

# The tools.
for t in "$MPIFC" "$MPICC" "$MAKE"; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found (set MPIFC, MPICC or MAKE, or install Open MPI: apt-get install openmpi-bin libopenmpi-dev gfortran)"
done

# The output directory must not be inside the tree, nor the tree where
# the copy goes: check before creating anything.
case $out in
/*) ;;
*) out=$(pwd)/$out ;;
esac
srcabs=$(cd "$src" && pwd -P)
case $out/ in
"$srcabs"/* | "$(cd "$src" && pwd)"/*) die "the output directory $out is inside the source tree $src" ;;
esac
case $srcabs/ in
"$out"/NPB3.4-MPI/*) die "the source tree $src is where the copy would go ($out/NPB3.4-MPI)" ;;
esac
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd -P)
case $srcabs/ in
"$out"/NPB3.4-MPI/*) die "the source tree $src is where the copy would go ($out/NPB3.4-MPI)" ;;
esac
tree=$out/NPB3.4-MPI
logs=$out/logs
mkdir -p "$out/bin" "$logs"

# A fresh copy of the tree, configured for MPIFC and MPICC.
rm -rf "$tree"
cp -R "$src" "$tree" || die "cannot copy $src to $tree"
mkdir -p "$tree/bin"
cat >"$tree/config/make.def" <<EOF
MPIFC = $MPIFC
FLINK = \$(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = $FFLAGS
FLINKFLAGS = \$(FFLAGS)
MPICC = $MPICC
CLINK = \$(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = $CFLAGS
CLINKFLAGS = \$(CFLAGS)
CC = gcc -g
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=0
RAND = randi8
EOF

# Trees instrumented with region-of-interest hooks (ROI_BIN, annotate.h)
# link an annotation library: give them one whose hooks do nothing.
roi=
if grep -q ROI_BIN "$tree/Makefile"; then
	shim=$out/annotate
	mkdir -p "$shim"
	cat >"$shim/annotate.h" <<'EOF'
#ifndef ANNOTATE_NOOP_H
#define ANNOTATE_NOOP_H
#include <stdint.h>
void annotate_init_(void);
void annotate_term_(void);
void annotate_synchronize_(uint64_t expected);
void region_begin_(const char *region);
void region_end_(const char *region);
void roi_begin_(void);
void roi_end_(void);
void thread_init_(void);
#endif
EOF
	cat >"$shim/annotate.c" <<'EOF'
#include "annotate.h"
void annotate_init_(void) {}
void annotate_term_(void) {}
void annotate_synchronize_(uint64_t expected) { (void)expected; }
void region_begin_(const char *region) { (void)region; }
void region_end_(const char *region) { (void)region; }
void roi_begin_(void) {}
void roi_end_(void) {}
void thread_init_(void) {}
EOF
	"$MPICC" $CFLAGS -c -o "$shim/annotate.o" "$shim/annotate.c" >"$logs/annotate.log" 2>&1 ||
		die "cannot compile the no-op annotation hooks with $MPICC (see $logs/annotate.log)"
	roi=yes
fi

built=
for b in $benches; do
	B=$(echo "$b" | tr a-z A-Z)
	for c in $classes; do
		log=$logs/$b.$c.log
		echo "$prog: building $b class $c" >&2
		# NPB shares object files between classes: clean first.
		(cd "$tree/$B" && $MAKE clean) >"$log" 2>&1 || true
		if [ -n "$roi" ]; then
			(cd "$tree" && $MAKE "$b" CLASS="$c" ROI_BIN="$shim/annotate.o" ROI_INC="-I$shim" ROI_LIB= ROI_OBJ=) >>"$log" 2>&1 ||
				die "building $b class $c failed (see $log)"
		else
			(cd "$tree" && $MAKE "$b" CLASS="$c") >>"$log" 2>&1 ||
				die "building $b class $c failed (see $log)"
		fi
		x=$tree/bin/$b.$c.x
		[ -x "$x" ] || die "building $b class $c made no $x (see $log)"
		cp "$x" "$out/bin/" || die "cannot copy $x"
		built="$built $b.$c.x"
	done
done
echo "$prog: built in $out/bin:$built" >&2
