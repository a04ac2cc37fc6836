/* One-sided communication: puts under fences into created windows, gets
 * under locks from allocated ones, accumulates, and the window attributes.
 * Prints "rma ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int rank, size;

static void fences(void) {
	int *buf = calloc(size, sizeof(int)), i, flag, *unit;
	MPI_Win win;
	MPI_Aint *wsize;
	MPI_Win_create(buf, size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
	CHECK(flag && *wsize == size * (MPI_Aint)sizeof(int), "win size");
	MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
	CHECK(flag && *unit == sizeof(int), "disp unit");
	MPI_Win_fence(0, win);
	int v = 100 + rank;
	for (i = 0; i < size; i++)
		MPI_Put(&v, 1, MPI_INT, i, rank, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	for (i = 0; i < size; i++)
		CHECK(buf[i] == 100 + i, "put from %d: %d", i, buf[i]);
	/* Errors of a window go to its handler: MPI_ERRORS_RETURN here. */
	char name[MPI_MAX_OBJECT_NAME];
	int len, rc, class;
	MPI_Win_set_name(win, "ints");
	MPI_Win_get_name(win, name, &len);
	CHECK(len == 4, "window name %s", name);
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Win_fence(0, win);
	rc = MPI_Put(&v, 1, MPI_INT, size + 3, 0, 1, MPI_INT, win);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_RANK, "put to an invalid rank: class %d", class);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	CHECK(win == MPI_WIN_NULL, "win not null after free");
	free(buf);
}

static void locks(void) {
	double *base, got = -1;
	MPI_Win win;
	int target = (rank + 1) % size;
	MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	base[0] = rank * 1.5, base[1] = -rank;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
	MPI_Get(&got, 1, MPI_DOUBLE, target, 0, 1, MPI_DOUBLE, win);
	MPI_Win_unlock(target, win);
	CHECK(got == target * 1.5, "get from %d: %g", target, got);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	double v = 7 + rank;
	MPI_Put(&v, 1, MPI_DOUBLE, target, 1, 1, MPI_DOUBLE, win);
	MPI_Win_flush(target, win);
	MPI_Request req;
	double back = -1;
	MPI_Rget(&back, 1, MPI_DOUBLE, target, 0, 1, MPI_DOUBLE, win, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(back == target * 1.5, "rget from %d: %g", target, back);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	int from = (rank + size - 1) % size;
	CHECK(base[1] == 7 + from, "put under lock_all from %d: %g", from, base[1]);
	MPI_Win_free(&win);
}

/* shared allocates a shared-memory window on the processes of this host,
 * and each writes its part and reads its neighbour's directly. */
static void shared(void) {
	MPI_Comm node;
	MPI_Win win;
	int nrank, nsize, *mine, *theirs, unit;
	MPI_Aint qsize;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &nrank);
	MPI_Comm_size(node, &nsize);
	MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win);
	MPI_Win_lock_all(0, win);
	*mine = 1000 + nrank;
	MPI_Win_sync(win);
	MPI_Barrier(node);
	MPI_Win_sync(win);
	int peer = (nrank + 1) % nsize;
	MPI_Win_shared_query(win, peer, &qsize, &unit, &theirs);
	CHECK(qsize == sizeof(int) && unit == sizeof(int) && *theirs == 1000 + peer, "shared part of %d: %d", peer, *theirs);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	MPI_Comm_free(&node);
}

/* derived moves a 4x4 matrix between ranks with derived datatypes on
 * both sides: a put of rows into the next rank's columns (a transposed
 * target), a get of its columns into this rank's rows, an accumulate
 * into a column, and a request-based get into a non-contiguous origin. */
static void derived(void) {
	enum { N = 4 };
	double a[N][N], b[N][N];
	MPI_Datatype col, colsT, colOne;
	MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col);
	MPI_Type_create_resized(col, 0, sizeof(double), &colOne);
	MPI_Type_contiguous(N, colOne, &colsT); /* the transpose: column after column */
	MPI_Type_commit(&col);
	MPI_Type_commit(&colsT);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size, i, j;
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			a[i][j] = 100 * rank + 10 * i + j, b[i][j] = -1;
	MPI_Win win;
	MPI_Win_create(b, sizeof b, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Put(a, N * N, MPI_DOUBLE, next, 0, 1, colsT, win);
	MPI_Win_fence(0, win);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			CHECK(b[i][j] == 100 * prev + 10 * j + i, "put transposed: b[%d][%d] = %g", i, j, b[i][j]);
	/* Get next's column 1 into a row, and its row 3 into column 0 of
	 * got (a non-contiguous origin). */
	double row[N], got[N][N];
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			got[i][j] = -1;
	MPI_Win_fence(0, win);
	MPI_Get(row, N, MPI_DOUBLE, next, sizeof(double), 1, col, win);
	MPI_Get(&got[0][0], 1, col, next, 3 * N * sizeof(double), N, MPI_DOUBLE, win);
	MPI_Win_fence(0, win);
	/* next's b holds this rank's a transposed: b[i][j] = a[j][i]. */
	for (j = 0; j < N; j++)
		CHECK(row[j] == 100 * rank + 10 * 1 + j, "get of a column: row[%d] = %g", j, row[j]);
	for (i = 0; i < N; i++)
		CHECK(got[i][0] == 100 * rank + 10 * i + 3 && got[i][1] == -1, "get into a column: got[%d][0] = %g", i, got[i][0]);
	/* Add 1000 to column 2 of next's b; then a request-based get of it
	 * into column 3 of got. */
	double ones[N] = {1000, 1000, 1000, 1000};
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
	MPI_Accumulate(ones, N, MPI_DOUBLE, next, 2 * sizeof(double), 1, col, MPI_SUM, win);
	MPI_Win_unlock(next, win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Request req;
	MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
	MPI_Rget(&got[0][3], 1, col, next, 2 * sizeof(double), 1, col, win, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Win_unlock(next, win);
	for (i = 0; i < N; i++)
		CHECK(got[i][3] == 100 * rank + 10 * 2 + i + 1000, "accumulated column, got by MPI_Rget: got[%d][3] = %g", i, got[i][3]);
	/* MPI_PROC_NULL: an epoch of no target. */
	MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, win);
	MPI_Put(a, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, 1, MPI_DOUBLE, win);
	MPI_Win_flush(MPI_PROC_NULL, win);
	MPI_Win_unlock(MPI_PROC_NULL, win);
	/* Hints: MPI's defaults, and what the program set. */
	MPI_Info in, out;
	char v[MPI_MAX_INFO_VAL];
	int flag, flag2;
	MPI_Info_create(&in);
	MPI_Info_set(in, "no_locks", "true");
	MPI_Win_set_info(win, in);
	MPI_Win_get_info(win, &out);
	MPI_Info_get(out, "no_locks", MPI_MAX_INFO_VAL - 1, v, &flag);
	CHECK(flag && strcmp(v, "true") == 0, "no_locks hint: %d %s", flag, v);
	MPI_Info_get(out, "accumulate_ops", MPI_MAX_INFO_VAL - 1, v, &flag2);
	CHECK(flag2 && strcmp(v, "same_op_no_op") == 0, "accumulate_ops hint: %d %s", flag2, v);
	MPI_Info_free(&in);
	MPI_Info_free(&out);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	MPI_Type_free(&colsT);
	MPI_Type_free(&colOne);
	MPI_Type_free(&col);
}

/* dispunits gives rank 0's window a displacement unit of 1 and the
 * others' sizeof(int): a displacement counts in the target's unit. */
static void dispunits(void) {
	int *buf = calloc(size, sizeof(int)), t, v = rank + 1, got = -1;
	MPI_Win win;
	MPI_Win_create(buf, size * sizeof(int), rank == 0 ? 1 : sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	for (t = 0; t < size; t++)
		MPI_Put(&v, 1, MPI_INT, t, t == 0 ? rank * sizeof(int) : rank, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	for (t = 0; t < size; t++)
		CHECK(buf[t] == t + 1, "put from %d at its displacement: %d", t, buf[t]);
	t = (rank + 1) % size;
	MPI_Get(&got, 1, MPI_INT, t, t == 0 ? (size - 1) * sizeof(int) : size - 1, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	CHECK(got == size, "get from %d: %d", t, got);
	MPI_Win_free(&win);
	free(buf);
}

/* accumulates sums ints into every process's created window under
 * fences, counts with MPI_Fetch_and_op and elects with
 * MPI_Compare_and_swap under lock_all, takes maxima of doubles with
 * MPI_Raccumulate, reads with MPI_Rget_accumulate and MPI_NO_OP, and
 * swaps with MPI_Get_accumulate and MPI_REPLACE. */
static void accumulates(void) {
	struct { int sums[4]; long counter; int owner; int pad; double max[2]; } *w = calloc(1, sizeof *w);
	MPI_Win win;
	int i, t;
	MPI_Win_create(w, sizeof *w, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	int add[4] = {1, 2, 3, rank};
	for (t = 0; t < size; t++)
		MPI_Accumulate(add, 4, MPI_INT, t, 0, 4, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);
	for (i = 0; i < 3; i++)
		CHECK(w->sums[i] == (i + 1) * size, "sum %d: %d", i, w->sums[i]);
	CHECK(w->sums[3] == size * (size - 1) / 2, "sum of ranks: %d", w->sums[3]);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	long one = 1, before;
	int won = 0, me = rank + 1, none = 0, prev;
	double mx[2] = {rank + 0.5, -rank};
	for (t = 0; t < size; t++) {
		MPI_Fetch_and_op(&one, &before, MPI_LONG, t, 16, MPI_SUM, win);
		MPI_Compare_and_swap(&me, &none, &prev, MPI_INT, t, 24, win);
		MPI_Win_flush(t, win); /* the results are there once flushed */
		CHECK(before >= 0 && before < size, "fetched counter %ld", before);
		won += prev == 0;
		MPI_Request req;
		MPI_Raccumulate(mx, 2, MPI_DOUBLE, t, 32, 2, MPI_DOUBLE, MPI_MAX, win, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	MPI_Win_unlock_all(win);
	int total;
	MPI_Allreduce(&won, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK(total == size, "%d compare-and-swaps won over %d targets", total, size);
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK(w->counter == size, "counter %ld", w->counter);
	CHECK(w->owner >= 1 && w->owner <= size, "owner %d", w->owner);
	CHECK(w->max[0] == size - 0.5 && w->max[1] == 0, "max %g %g", w->max[0], w->max[1]);
	int target = (rank + 1) % size, got[4] = {-1, -1, -1, -1}, mine[4] = {rank, rank, rank, rank}, old[4];
	MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
	MPI_Request req;
	MPI_Rget_accumulate(NULL, 0, MPI_INT, got, 4, MPI_INT, target, 0, 4, MPI_INT, MPI_NO_OP, win, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Win_unlock(target, win);
	CHECK(got[0] == size && got[3] == size * (size - 1) / 2, "no-op read %d %d", got[0], got[3]);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
	MPI_Get_accumulate(mine, 4, MPI_INT, old, 4, MPI_INT, target, 0, 4, MPI_INT, MPI_REPLACE, win);
	MPI_Win_unlock(target, win);
	CHECK(old[1] == 2 * size, "replaced %d", old[1]);
	MPI_Barrier(MPI_COMM_WORLD);
	int from = (rank + size - 1) % size;
	CHECK(w->sums[0] == from && w->sums[3] == from, "after replace %d %d", w->sums[0], w->sums[3]);
	MPI_Win_free(&win);
	free(w);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	fences();
	dispunits();
	derived();
	locks();
	accumulates();
	shared();
	printf("rma ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
