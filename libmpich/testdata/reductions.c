/* Reductions of the datatypes whose items no element type of Go holds:
 * the struct value/index types (MPI_LONG_DOUBLE_INT, MPI_DOUBLE_INT,
 * MPI_SHORT_INT) with MPI_MAXLOC and MPI_MINLOC in every reduction
 * (blocking, in place, reduce-scatter, scans, MPI_Reduce_local,
 * nonblocking, persistent), ties taking the smaller index; arithmetic on
 * long doubles and their complex in reductions and accumulates
 * (MPI_Fetch_and_op, MPI_Get_accumulate, a derived target datatype). The
 * long doubles differ by 2^-60, which a double cannot tell apart. Prints
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

/* tiny is 2^-60: 1 + tiny is a long double, not a double. */
static const long double tiny = 1.0L / (long double)(1ULL << 60);

/* ldv is rank r's long double of item j. */
static long double ldv(int r, int j) { return 1.0L + level(r, j) * tiny; }

/* near is rank r's factor of a product exact in 64 bits (not in 53). */
static long double near(int r) { return 1.0L + (r + 1) / 16384.0L; }

static void ldReductions(void) {
	long double s[N], r[N], want;
	long double _Complex zs[2], zr[2], zsum = 0, zprod = 1;
	for (int j = 0; j < N; j++)
		s[j] = ldv(rank, j);
	OK(MPI_Allreduce(s, r, N, MPI_LONG_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	for (int j = 0; j < N; j++) {
		want = ldv(0, j);
		for (int q = 1; q < size; q++)
			want = ldv(q, j) > want ? ldv(q, j) : want;
		CHECK(r[j] == want, "MPI_MAX of long doubles, item %d: off by %Lg", j, r[j] - want);
	}
	OK(MPI_Reduce(s, r, N, MPI_LONG_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD));
	for (int j = 0; rank == 0 && j < N; j++) {
		want = ldv(0, j);
		for (int q = 1; q < size; q++)
			want = ldv(q, j) < want ? ldv(q, j) : want;
		CHECK(r[j] == want, "MPI_MIN of long doubles, item %d: off by %Lg", j, r[j] - want);
	}
	OK(MPI_Allreduce(s, r, N, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	for (int j = 0; j < N; j++) {
		want = 0;
		for (int q = 0; q < size; q++)
			want += ldv(q, j);
		CHECK(r[j] == want, "MPI_SUM of long doubles, item %d: off by %Lg", j, r[j] - want);
	}
	s[0] = near(rank);
	OK(MPI_Allreduce(s, r, 1, MPI_LONG_DOUBLE, MPI_PROD, MPI_COMM_WORLD));
	for (int q = 0, first = 1; q < size; q++, first = 0)
		want = first ? near(q) : want * near(q);
	CHECK(r[0] == want, "MPI_PROD of long doubles: off by %Lg", r[0] - want);
	/* Gaussian integers: their products are exact in any order. */
	zs[0] = 1 + rank * tiny + (2 - rank * tiny) * 1.0iL;
	zs[1] = (rank + 1) + (rank + 2) * 1.0iL;
	for (int q = 0; q < size; q++) {
		zsum += 1 + q * tiny + (2 - q * tiny) * 1.0iL;
		zprod *= (q + 1) + (q + 2) * 1.0iL;
	}
	OK(MPI_Allreduce(zs, zr, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
	CHECK(zr[0] == zsum, "MPI_SUM of long double complex");
	OK(MPI_Allreduce(zs + 1, zr + 1, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
	CHECK(zr[1] == zprod, "MPI_PROD of long double complex: %Lg%+Lgi, want %Lg%+Lgi",
		__real__ zr[1], __imag__ zr[1], __real__ zprod, __imag__ zprod);
}

static void ldAccumulates(void) {
	long double *w, one = 1 + tiny, old, pair[2] = {ldv(rank, 1), ldv(rank, 2)}, want[3] = {0, 0, 0}, got;
	long double _Complex *z, zone = (rank + 1) + (rank + 2) * 1.0iL, zprod = 1;
	MPI_Win win, zwin;
	MPI_Datatype two;
	OK(MPI_Win_allocate(4 * sizeof(long double), sizeof(long double), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
	OK(MPI_Win_allocate(sizeof(long double _Complex), sizeof(long double _Complex), MPI_INFO_NULL, MPI_COMM_WORLD, &z, &zwin));
	w[0] = w[1] = w[2] = w[3] = 0;
	*z = 1;
	OK(MPI_Type_contiguous(2, MPI_LONG_DOUBLE, &two));
	OK(MPI_Type_commit(&two));
	OK(MPI_Win_fence(0, win));
	OK(MPI_Win_fence(0, zwin));
	OK(MPI_Accumulate(&pair[0], 1, MPI_LONG_DOUBLE, 0, 0, 1, MPI_LONG_DOUBLE, MPI_SUM, win));
	OK(MPI_Accumulate(pair, 2, MPI_LONG_DOUBLE, 0, 1, 1, two, MPI_MAX, win));
	OK(MPI_Accumulate(&zone, 1, MPI_C_LONG_DOUBLE_COMPLEX, 0, 0, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD, zwin));
	OK(MPI_Win_fence(0, win));
	OK(MPI_Win_fence(0, zwin));
	for (int q = 0; q < size; q++) {
		want[0] += ldv(q, 1);
		want[1] = ldv(q, 1) > want[1] ? ldv(q, 1) : want[1];
		want[2] = ldv(q, 2) > want[2] ? ldv(q, 2) : want[2];
		zprod *= (q + 1) + (q + 2) * 1.0iL;
	}
	if (rank == 0) {
		for (int j = 0; j < 3; j++)
			CHECK(w[j] == want[j], "long double accumulate %d: off by %Lg", j, w[j] - want[j]);
		CHECK(*z == zprod, "MPI_PROD accumulate of long double complex");
	}
	OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
	OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_DOUBLE, 0, 3, MPI_SUM, win));
	OK(MPI_Win_unlock(0, win));
	CHECK(old >= 0 && old <= (size - 1) * one, "MPI_Fetch_and_op fetched %Lg", old);
	OK(MPI_Barrier(MPI_COMM_WORLD));
	OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
	OK(MPI_Fetch_and_op(NULL, &got, MPI_LONG_DOUBLE, 0, 3, MPI_NO_OP, win));
	OK(MPI_Win_flush(0, win));
	CHECK(got == size * one, "MPI_Fetch_and_op sum: off by %Lg", got - size * one);
	OK(MPI_Get_accumulate(&one, 1, MPI_LONG_DOUBLE, &got, 1, MPI_LONG_DOUBLE, 0, 0, 1, MPI_LONG_DOUBLE, MPI_REPLACE, win));
	OK(MPI_Win_unlock(0, win));
	CHECK(got == want[0] || got == one, "MPI_Get_accumulate fetched %Lg", got);
	OK(MPI_Type_free(&two));
	OK(MPI_Win_free(&zwin));
	OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
	OK(MPI_Init(&argc, &argv));
	OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
	pairs();
	ldReductions();
	ldAccumulates();
	OK(MPI_Barrier(MPI_COMM_WORLD));
	printf("reductions ok rank %d of %d\n", rank, size);
	OK(MPI_Finalize());
	return 0;
}
