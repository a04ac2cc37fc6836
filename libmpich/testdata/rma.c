/* One-sided communication: puts under fences into created windows, gets
 * under locks from allocated ones, and the window attributes. Prints
 * "rma ok" on every rank. */
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

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	fences();
	locks();
	/* "noshm": the job's network has no shared memory (this runtime under
	 * mpiexec.hydra runs over TCP). */
	if (argc < 2 || strcmp(argv[1], "noshm") != 0)
		shared();
	printf("rma ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
