/* One-sided communication: puts under fences into created windows, gets
 * under locks from allocated ones, and the window attributes. Prints
 * "rma ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	int from = (rank + size - 1) % size;
	CHECK(base[1] == 7 + from, "put under lock_all from %d: %g", from, base[1]);
	MPI_Win_free(&win);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	fences();
	locks();
	printf("rma ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
