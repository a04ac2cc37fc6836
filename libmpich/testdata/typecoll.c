/* Non-contiguous derived datatypes in collectives and in the calls that
 * receive through a staged copy: gathering rows into the columns of a
 * matrix (a vector resized to one element), scattering the columns back,
 * in-place and v-forms, all-to-all both ways, user operations on
 * columns and on 24-byte items, nonblocking and persistent forms,
 * neighbourhood collectives, MPI_Sendrecv_replace and MPI_Mrecv.
 * Prints "typecoll ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

#define ROWS 3

static int rank, size;
/* mpich is set on MPICH's own library: MPICH 4.0.2's persistent gather
 * sends what the buffers held at MPI_Gather_init, not at MPI_Start, so
 * its rounds are checked on other libraries only. */
static int mpich;
static double *m; /* ROWS x size, row-major: column r belongs to rank r */
static MPI_Datatype colt; /* one column of m, resized to one double */

static double val(int row, int col) { return 100.0 * row + col; }

static void clear(void) {
	for (int i = 0; i < ROWS * size; i++)
		m[i] = -1;
}

static void check_matrix(const char *what, int (*owner)(int)) {
	for (int i = 0; i < ROWS; i++)
		for (int c = 0; c < size; c++)
			CHECK(m[i * size + c] == val(i, owner(c)), "%s: row %d column %d is %g", what, i, c, m[i * size + c]);
}

static int same(int c) { return c; }
static int reversed(int c) { return size - 1 - c; }

static void mine(double *v, int r) {
	for (int i = 0; i < ROWS; i++)
		v[i] = val(i, r);
}

static void rooted(void) {
	double v[ROWS];
	mine(v, rank);
	clear();
	MPI_Gather(v, ROWS, MPI_DOUBLE, m, 1, colt, 0, MPI_COMM_WORLD);
	if (rank == 0)
		check_matrix("gather", same);
	/* Scatter the columns back, each rank's to the next rank's place. */
	double w[ROWS] = {-1, -1, -1};
	MPI_Scatter(m, 1, colt, w, ROWS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int i = 0; i < ROWS; i++)
		CHECK(w[i] == val(i, rank), "scatter: row %d is %g", i, w[i]);
	/* Gatherv with the columns in reverse order. */
	int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
	for (int r = 0; r < size; r++)
		counts[r] = 1, displs[r] = size - 1 - r;
	clear();
	MPI_Gatherv(v, ROWS, MPI_DOUBLE, m, counts, displs, colt, 0, MPI_COMM_WORLD);
	if (rank == 0)
		check_matrix("gatherv", reversed);
	/* Scatterv of the reversed matrix puts each rank's own column back. */
	w[0] = w[1] = w[2] = -1;
	MPI_Scatterv(m, counts, displs, colt, w, ROWS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int i = 0; i < ROWS; i++)
		CHECK(w[i] == val(i, rank), "scatterv: row %d is %g", i, w[i]);
	free(counts);
	free(displs);
}

static void everyone(void) {
	double v[ROWS];
	/* In place: each rank's column is in m already. */
	clear();
	for (int i = 0; i < ROWS; i++)
		m[i * size + rank] = val(i, rank);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m, 1, colt, MPI_COMM_WORLD);
	check_matrix("allgather in place", same);
	int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
	for (int r = 0; r < size; r++)
		counts[r] = 1, displs[r] = size - 1 - r;
	mine(v, rank);
	clear();
	MPI_Allgatherv(v, ROWS, MPI_DOUBLE, m, counts, displs, colt, MPI_COMM_WORLD);
	check_matrix("allgatherv", reversed);
	/* All-to-all: rank r sends column c of its matrix (value c) to rank
	 * c, which receives them as a contiguous row per sender. */
	for (int i = 0; i < ROWS; i++)
		for (int c = 0; c < size; c++)
			m[i * size + c] = val(i, c) + 1000 * rank;
	double *rows = malloc(ROWS * size * sizeof(double));
	MPI_Alltoall(m, 1, colt, rows, ROWS, MPI_DOUBLE, MPI_COMM_WORLD);
	for (int r = 0; r < size; r++)
		for (int i = 0; i < ROWS; i++)
			CHECK(rows[r * ROWS + i] == val(i, rank) + 1000 * r, "alltoall from %d row %d: %g", r, i, rows[r * ROWS + i]);
	/* And on with v-forms: rank s sends rank t the row it got from t,
	 * val(i, s) + 1000 t, which t receives as column size-1-s. */
	int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
	for (int r = 0; r < size; r++)
		counts[r] = ROWS, displs[r] = r * ROWS, rc[r] = 1, rd[r] = size - 1 - r;
	clear();
	MPI_Alltoallv(rows, counts, displs, MPI_DOUBLE, m, rc, rd, colt, MPI_COMM_WORLD);
	for (int r = 0; r < size; r++)
		for (int i = 0; i < ROWS; i++)
			CHECK(m[i * size + size - 1 - r] == val(i, r) + 1000 * rank, "alltoallv from %d row %d: %g", r, i, m[i * size + size - 1 - r]);
	free(rows);
	free(rc);
	free(rd);
	free(counts);
	free(displs);
}

static void nonblocking(void) {
	double v[ROWS];
	MPI_Request req[2];
	mine(v, rank);
	clear();
	MPI_Igather(v, ROWS, MPI_DOUBLE, m, 1, colt, size - 1, MPI_COMM_WORLD, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	if (rank == size - 1)
		check_matrix("igather", same);
	double *n2 = malloc(ROWS * size * sizeof(double));
	for (int i = 0; i < ROWS * size; i++)
		n2[i] = -1;
	clear();
	MPI_Iallgather(v, ROWS, MPI_DOUBLE, m, 1, colt, MPI_COMM_WORLD, &req[0]);
	MPI_Ialltoall(v, 0, MPI_DOUBLE, n2, 0, colt, MPI_COMM_WORLD, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	check_matrix("iallgather", same);
	free(n2);
}

/* colsum adds columns of m laid out by the datatype it is given: each
 * item a column, each element a row's. */
static void colsum(void *in, void *inout, int *len, MPI_Datatype *dt) {
	MPI_Aint lb, extent;
	MPI_Type_get_extent(*dt, &lb, &extent);
	for (int k = 0; k < *len; k++)
		for (int i = 0; i < ROWS; i++) {
			double *a = (double *)((char *)in + k * extent) + i * size;
			double *b = (double *)((char *)inout + k * extent) + i * size;
			*b += *a;
		}
}

/* affine composes maps x -> a x + b, 24-byte items of three doubles
 * (a, b, unused): not commutative. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt) {
	double *p = in, *q = inout;
	for (int k = 0; k < *len; k++, p += 3, q += 3) {
		double a = q[0] * p[0], b = q[0] * p[1] + q[1];
		q[0] = a, q[1] = b;
	}
}

static void userops(void) {
	MPI_Op sum, comp;
	MPI_Op_create(colsum, 1, &sum);
	MPI_Op_create(affine, 0, &comp);
	/* Every column of m summed over the ranks, in place and by a
	 * nonblocking reduction. */
	for (int i = 0; i < ROWS; i++)
		for (int c = 0; c < size; c++)
			m[i * size + c] = val(i, c) + rank;
	MPI_Allreduce(MPI_IN_PLACE, m, size, colt, sum, MPI_COMM_WORLD);
	for (int i = 0; i < ROWS; i++)
		for (int c = 0; c < size; c++)
			CHECK(m[i * size + c] == size * val(i, c) + size * (size - 1) / 2, "user column sum row %d column %d: %g", i, c, m[i * size + c]);
	double *out = malloc(ROWS * size * sizeof(double));
	for (int i = 0; i < ROWS * size; i++)
		m[i] = 1, out[i] = -1;
	MPI_Request req;
	MPI_Iallreduce(m, out, size, colt, sum, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	for (int i = 0; i < ROWS * size; i++)
		CHECK(out[i] == size, "user column sum, nonblocking, word %d: %g", i, out[i]);
	free(out);
	/* Maps composed in rank order: rank r's is x -> 2x + r. */
	MPI_Datatype map;
	MPI_Type_contiguous(3, MPI_DOUBLE, &map);
	MPI_Type_commit(&map);
	double f[2][3] = {{2, rank, 0}, {1, 1, 0}}, g[2][3];
	MPI_Reduce(f, g, 2, map, comp, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		double a = 1, b = 0;
		for (int r = 0; r < size; r++)
			b = 2 * b + r, a *= 2; /* (f_{size-1} o ... o f_0)(x) */
		CHECK(g[0][0] == a && g[0][1] == b && g[1][0] == 1 && g[1][1] == size, "composed maps: %g x + %g, %g x + %g", g[0][0], g[0][1], g[1][0], g[1][1]);
	}
	MPI_Type_free(&map);
	MPI_Op_free(&sum);
	MPI_Op_free(&comp);
}

static void persistent(void) {
	/* Rounds of a persistent gather into columns and a persistent
	 * allreduce, started in an order that differs between ranks: each
	 * round moves what the buffers hold when it starts. */
	double v[ROWS];
	long mine, total;
	MPI_Request req[2];
	MPI_Gather_init(v, ROWS, MPI_DOUBLE, m, 1, colt, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
	MPI_Allreduce_init(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < ROWS; i++)
			v[i] = val(i, rank) + 1000 * round;
		mine = rank + round;
		clear();
		if (rank % 2 == 0) {
			MPI_Startall(2, req);
		} else { /* the other order: MPI-4.0 allows it */
			MPI_Start(&req[1]);
			MPI_Start(&req[0]);
		}
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		CHECK(total == (long)size * (size - 1) / 2 + (long)size * round, "allreduce_init round %d: %ld", round, total);
		if (rank == 0 && !mpich)
			for (int i = 0; i < ROWS; i++)
				for (int c = 0; c < size; c++)
					CHECK(m[i * size + c] == val(i, c) + 1000 * round, "gather_init round %d: row %d column %d is %g", round, i, c, m[i * size + c]);
	}
	MPI_Request_free(&req[0]);
	MPI_Request_free(&req[1]);
}

static void neighbours(void) {
	int dims[1] = {size}, periods[1] = {1};
	MPI_Comm ring;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	double v[ROWS], got[ROWS][2];
	MPI_Datatype rowwise, pick;
	/* One double of every row of got: a column of two-wide rows. */
	MPI_Type_vector(ROWS, 1, 2, MPI_DOUBLE, &rowwise);
	MPI_Type_create_resized(rowwise, 0, sizeof(double), &pick);
	MPI_Type_commit(&pick);
	MPI_Type_free(&rowwise);
	mine(v, rank);
	MPI_Neighbor_allgather(v, ROWS, MPI_DOUBLE, got, 1, pick, ring);
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	for (int i = 0; i < ROWS; i++)
		CHECK(got[i][0] == val(i, left) && got[i][1] == val(i, right), "neighbor allgather row %d: %g %g", i, got[i][0], got[i][1]);
	MPI_Type_free(&pick);
	MPI_Comm_free(&ring);
}

static void received(void) {
	double a[ROWS][2];
	MPI_Datatype first;
	MPI_Type_vector(ROWS, 1, 2, MPI_DOUBLE, &first);
	MPI_Type_commit(&first);
	for (int i = 0; i < ROWS; i++)
		a[i][0] = val(i, rank), a[i][1] = -5;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MPI_Sendrecv_replace(a, 1, first, next, 7, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (int i = 0; i < ROWS; i++)
		CHECK(a[i][0] == val(i, prev) && a[i][1] == -5, "sendrecv_replace row %d: %g %g", i, a[i][0], a[i][1]);
	double v[ROWS];
	mine(v, rank);
	MPI_Request sreq;
	MPI_Isend(v, ROWS, MPI_DOUBLE, next, 8, MPI_COMM_WORLD, &sreq);
	MPI_Message msg;
	MPI_Status st;
	MPI_Mprobe(prev, 8, MPI_COMM_WORLD, &msg, &st);
	for (int i = 0; i < ROWS; i++)
		a[i][0] = -1;
	MPI_Mrecv(a, 1, first, &msg, &st);
	int n;
	MPI_Get_count(&st, first, &n);
	CHECK(n == 1, "mrecv count %d", n);
	for (int i = 0; i < ROWS; i++)
		CHECK(a[i][0] == val(i, prev) && a[i][1] == -5, "mrecv row %d: %g %g", i, a[i][0], a[i][1]);
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
	/* Two doubles into a vector of ROWS: no whole item, two elements. */
	MPI_Sendrecv(v, 2, MPI_DOUBLE, next, 9, a, 1, first, prev, 9, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, first, &n);
	CHECK(n == MPI_UNDEFINED, "count of a partial vector: %d", n);
	MPI_Get_elements(&st, first, &n);
	MPI_Count big;
	MPI_Get_elements_x(&st, first, &big);
	CHECK(n == 2 && big == 2, "elements of a partial vector: %d, %lld", n, (long long)big);
	MPI_Type_free(&first);
	/* MPI_BOTTOM: an int and a double found by their addresses. */
	int ival = 10 + rank, iget = -1;
	double dval = 0.5 + rank, dget = -1;
	MPI_Aint at[2];
	int one[2] = {1, 1};
	MPI_Datatype parts[2] = {MPI_INT, MPI_DOUBLE}, out, in;
	MPI_Get_address(&ival, &at[0]);
	MPI_Get_address(&dval, &at[1]);
	MPI_Type_create_struct(2, one, at, parts, &out);
	MPI_Get_address(&iget, &at[0]);
	MPI_Get_address(&dget, &at[1]);
	MPI_Type_create_struct(2, one, at, parts, &in);
	MPI_Type_commit(&out);
	MPI_Type_commit(&in);
	MPI_Sendrecv(MPI_BOTTOM, 1, out, next, 10, MPI_BOTTOM, 1, in, prev, 10, MPI_COMM_WORLD, &st);
	CHECK(iget == 10 + prev && dget == 0.5 + prev, "MPI_BOTTOM: %d %g", iget, dget);
	MPI_Type_free(&out);
	MPI_Type_free(&in);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	MPI_Get_library_version(version, &len);
	mpich = strncmp(version, "MPICH", 5) == 0;
	m = malloc(ROWS * size * sizeof(double));
	MPI_Datatype col;
	MPI_Type_vector(ROWS, 1, size, MPI_DOUBLE, &col);
	MPI_Type_create_resized(col, 0, sizeof(double), &colt);
	MPI_Type_commit(&colt);
	MPI_Type_free(&col);
	rooted();
	everyone();
	nonblocking();
	userops();
	persistent();
	neighbours();
	received();
	MPI_Type_free(&colt);
	free(m);
	printf("typecoll ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
