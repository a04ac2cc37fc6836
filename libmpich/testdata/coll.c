/* Collectives: every one checks the values it produces. Prints "coll ok"
 * on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int rank, size;

static void rooted(void) {
	int i, v = 0, *all = malloc(size * sizeof(int)), *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
	double d[3] = {0};
	if (rank == size - 1)
		d[0] = 1.5, d[1] = 2.5, d[2] = -1;
	MPI_Bcast(d, 3, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
	CHECK(d[0] == 1.5 && d[1] == 2.5 && d[2] == -1, "bcast %g %g %g", d[0], d[1], d[2]);
	v = rank * rank;
	MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (i = 0; i < size; i++)
			CHECK(all[i] == i * i, "gather %d: %d", i, all[i]);
	for (i = 0; i < size; i++)
		all[i] = 100 + i;
	MPI_Scatter(all, 1, MPI_INT, &v, 1, MPI_INT, 0, MPI_COMM_WORLD);
	CHECK(v == 100 + rank, "scatter %d", v);
	for (i = 0; i < size; i++)
		counts[i] = 1, displs[i] = size - 1 - i;
	v = rank;
	MPI_Gatherv(&v, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (i = 0; i < size; i++)
			CHECK(all[size - 1 - i] == i, "gatherv %d: %d", i, all[size - 1 - i]);
	free(all), free(counts), free(displs);
}

static void everyone(void) {
	int i, v = rank + 1, *all = malloc(size * sizeof(int)), *out = malloc(size * sizeof(int));
	MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < size; i++)
		CHECK(all[i] == i + 1, "allgather %d: %d", i, all[i]);
	for (i = 0; i < size; i++)
		all[i] = rank * 100 + i;
	MPI_Alltoall(all, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < size; i++)
		CHECK(out[i] == i * 100 + rank, "alltoall %d: %d", i, out[i]);
	free(all), free(out);
}

static void reductions(void) {
	int i, v = rank + 1, r = 0, n = size;
	double d = rank, dmax = -1;
	long long l = 1LL << 40, lsum = 0;
	struct { double val; int loc; } in, out;
	int pair[2] = {10 - rank, rank}, pout[2];
	MPI_Reduce(&v, &r, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		CHECK(r == n * (n + 1) / 2, "reduce sum %d", r);
	MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	CHECK(dmax == n - 1, "allreduce max %g", dmax);
	MPI_Allreduce(&l, &lsum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	CHECK(lsum == n * (1LL << 40), "allreduce long long %lld", lsum);
	v = rank + 1;
	MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
	for (i = 1, r = 1; i <= n; i++)
		r *= i;
	CHECK(v == r, "allreduce in place prod %d", v);
	in.val = rank == n - 1 ? -5.0 : rank, in.loc = rank;
	MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
	CHECK(out.val == (n == 1 ? -5.0 : -5.0) && out.loc == n - 1, "minloc %g at %d", out.val, out.loc);
	MPI_Allreduce(pair, pout, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
	CHECK(pout[0] == 10 && pout[1] == 0, "maxloc 2int %d at %d", pout[0], pout[1]);
	v = rank + 1;
	MPI_Scan(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK(r == (rank + 1) * (rank + 2) / 2, "scan %d", r);
	MPI_Exscan(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank > 0)
		CHECK(r == rank * (rank + 1) / 2, "exscan %d", r);
}

/* Calls that move no data (count 0, NULL buffers) return at once and
 * leave the calls after them in step. */
static void empty(void) {
	int v = rank + 1, r = 0, flag = 0;
	MPI_Request req;
	MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce(NULL, NULL, 0, MPI_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD);
	MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
	MPI_Ibcast(NULL, 0, MPI_INT, size - 1, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(req == MPI_REQUEST_NULL, "ibcast of nothing: the request is not freed");
	MPI_Iallreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	while (!flag)
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK(r == size * (size + 1) / 2, "allreduce after the empty calls %d", r);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	rooted();
	everyone();
	reductions();
	empty();
	printf("coll ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
