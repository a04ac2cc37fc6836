/* Reductions of the datatypes whose items no element type of Go holds:
 * the struct value/index types (MPI_LONG_DOUBLE_INT, MPI_DOUBLE_INT,
 * MPI_SHORT_INT) with MPI_MAXLOC and MPI_MINLOC in every reduction
 * (blocking, in place, reduce-scatter, scans, MPI_Reduce_local,
 * nonblocking, persistent). The long doubles differ by 2^-60, which a
 * double cannot tell apart, and ties take the smaller index. Prints
 * "reductions ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)
#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s: error %d", #call, rc_); } while (0)

#define N 12

static int rank, size;

typedef struct { long double v; int i; } ldi;
typedef struct { double v; int i; } di;
typedef struct { short v; int i; } si;

/* kind is a struct value/index type: its datatype, C's size of an item,
 * and how an item's value and index are set and read. */
struct kind {
	const char *name;
	MPI_Datatype dt;
	size_t ext;
	void (*set)(void *p, long double v, int i);
	long double (*val)(const void *p);
	int (*idx)(const void *p);
};

static void setLdi(void *p, long double v, int i) { ((ldi *)p)->v = v; ((ldi *)p)->i = i; }
static long double valLdi(const void *p) { return ((const ldi *)p)->v; }
static int idxLdi(const void *p) { return ((const ldi *)p)->i; }
static void setDi(void *p, long double v, int i) { ((di *)p)->v = (double)v; ((di *)p)->i = i; }
static long double valDi(const void *p) { return ((const di *)p)->v; }
static int idxDi(const void *p) { return ((const di *)p)->i; }
static void setSi(void *p, long double v, int i) { ((si *)p)->v = (short)v; ((si *)p)->i = i; }
static long double valSi(const void *p) { return ((const si *)p)->v; }
static int idxSi(const void *p) { return ((const si *)p)->i; }

/* level is rank r's level of item j: every third item ties. */
static int level(int r, int j) { return j % 3 == 0 ? 4 : (r * 5 + j * 3) % 7; }

/* value is rank r's value of item j in kind k: for long doubles 1 +
 * level * 2^-60. */
static long double value(const struct kind *k, int r, int j) {
	if (k->dt == MPI_LONG_DOUBLE_INT)
		return 1.0L + level(r, j) / (long double)(1ULL << 60);
	return level(r, j);
}

/* index is rank r's index of item j: higher ranks have smaller ones. */
static int index_(int r, int j) { return 100 * (size - r) + j; }

static void *items(const struct kind *k, int n) { return calloc(n > 0 ? n : 1, k->ext); }
static void *at(const struct kind *k, void *b, int j) { return (char *)b + j * k->ext; }

/* fill sets n items of b from item first on as rank r's. */
static void fill(const struct kind *k, void *b, int r, int first, int n) {
	for (int j = 0; j < n; j++)
		k->set(at(k, b, j), value(k, r, first + j), index_(r, first + j));
}

/* check checks n items of b, from item first on, against the reduction
 * by MPI_MAXLOC (max) or MPI_MINLOC of ranks lo to hi. */
static void check(const struct kind *k, const char *what, void *b, int first, int n, int lo, int hi, int max) {
	for (int j = first; j < first + n; j++) {
		long double best = value(k, lo, j);
		int bi = index_(lo, j);
		for (int r = lo + 1; r <= hi; r++) {
			long double v = value(k, r, j);
			if ((max ? v > best : v < best) || (v == best && index_(r, j) < bi))
				best = v, bi = index_(r, j);
		}
		void *p = at(k, b, j - first);
		CHECK(k->val(p) == best && k->idx(p) == bi, "%s %s %s item %d: index %d, want %d (value %s)",
			k->name, max ? "MAXLOC" : "MINLOC", what, j, k->idx(p), bi, k->val(p) == best ? "right" : "wrong");
	}
}

static void blocking(const struct kind *k, MPI_Op op, int max) {
	void *s = items(k, N), *r = items(k, N);
	int *counts = malloc(size * sizeof(int)), first = 0;
	fill(k, s, rank, 0, N);
	OK(MPI_Allreduce(s, r, N, k->dt, op, MPI_COMM_WORLD));
	check(k, "MPI_Allreduce", r, 0, N, 0, size - 1, max);
	OK(MPI_Reduce(s, r, N, k->dt, op, size - 1, MPI_COMM_WORLD));
	if (rank == size - 1)
		check(k, "MPI_Reduce", r, 0, N, 0, size - 1, max);
	fill(k, r, rank, 0, N);
	OK(MPI_Allreduce(MPI_IN_PLACE, r, N, k->dt, op, MPI_COMM_WORLD));
	check(k, "MPI_Allreduce in place", r, 0, N, 0, size - 1, max);
	OK(MPI_Scan(s, r, N, k->dt, op, MPI_COMM_WORLD));
	check(k, "MPI_Scan", r, 0, N, 0, rank, max);
	OK(MPI_Exscan(s, r, N, k->dt, op, MPI_COMM_WORLD));
	if (rank > 0)
		check(k, "MPI_Exscan", r, 0, N, 0, rank - 1, max);
	fill(k, s, size > 1 ? size - 2 : 0, 0, N);
	fill(k, r, size - 1, 0, N);
	OK(MPI_Reduce_local(s, r, N, k->dt, op));
	check(k, "MPI_Reduce_local", r, 0, N, size > 1 ? size - 2 : 0, size - 1, max);
	free(s);
	s = items(k, 2 * size);
	fill(k, s, rank, 0, 2 * size);
	OK(MPI_Reduce_scatter_block(s, r, 2, k->dt, op, MPI_COMM_WORLD));
	check(k, "MPI_Reduce_scatter_block", r, 2 * rank, 2, 0, size - 1, max);
	for (int q = 0; q < size; q++) {
		counts[q] = q % 3;
		if (q < rank)
			first += counts[q];
	}
	OK(MPI_Reduce_scatter(s, r, counts, k->dt, op, MPI_COMM_WORLD));
	check(k, "MPI_Reduce_scatter", r, first, counts[rank], 0, size - 1, max);
	free(s);
	free(r);
	free(counts);
}

static void nonblocking(const struct kind *k, MPI_Op op, int max) {
	void *s = items(k, N * size), *r = items(k, N);
	MPI_Request req;
	fill(k, s, rank, 0, N * size);
	OK(MPI_Iallreduce(s, r, N, k->dt, op, MPI_COMM_WORLD, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	check(k, "MPI_Iallreduce", r, 0, N, 0, size - 1, max);
	OK(MPI_Iscan(s, r, N, k->dt, op, MPI_COMM_WORLD, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	check(k, "MPI_Iscan", r, 0, N, 0, rank, max);
	OK(MPI_Ireduce_scatter_block(s, r, N, k->dt, op, MPI_COMM_WORLD, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	check(k, "MPI_Ireduce_scatter_block", r, N * rank, N, 0, size - 1, max);
	OK(MPI_Allreduce_init(s, r, N, k->dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
	for (int round = 0; round < 2; round++) {
		fill(k, s, (rank + round) % size, 0, N);
		OK(MPI_Start(&req));
		OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
		check(k, "MPI_Allreduce_init", r, 0, N, 0, size - 1, max);
	}
	OK(MPI_Request_free(&req));
	free(s);
	free(r);
}

static void pairs(void) {
	const struct kind kinds[] = {
		{"MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, sizeof(ldi), setLdi, valLdi, idxLdi},
		{"MPI_DOUBLE_INT", MPI_DOUBLE_INT, sizeof(di), setDi, valDi, idxDi},
		{"MPI_SHORT_INT", MPI_SHORT_INT, sizeof(si), setSi, valSi, idxSi},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		blocking(&kinds[i], MPI_MAXLOC, 1);
		blocking(&kinds[i], MPI_MINLOC, 0);
		nonblocking(&kinds[i], MPI_MAXLOC, 1);
		nonblocking(&kinds[i], MPI_MINLOC, 0);
	}
}

int main(int argc, char **argv) {
	OK(MPI_Init(&argc, &argv));
	OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
	pairs();
	OK(MPI_Barrier(MPI_COMM_WORLD));
	printf("reductions ok rank %d of %d\n", rank, size);
	OK(MPI_Finalize());
	return 0;
}
