/* Dynamic windows: memory attached to an MPI_Win_create_dynamic window and
 * reached at its address (MPI_Get_address, MPI_BOTTOM-based displacements)
 * by puts, gets, accumulates, atomics and a derived target datatype, under
 * lock_all, fences and PSCW; detach, attach again; the flavor attribute;
 * on this library, accesses to unattached addresses fail with
 * MPI_ERR_RMA_RANGE. Prints "dynamic ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

#define N 8

static int rank, size;

/* exchange gathers every rank's address of p into addrs. */
static void exchange(void *p, MPI_Aint *addrs) {
	MPI_Aint mine;
	MPI_Get_address(p, &mine);
	MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
}

/* onesided puts into the right neighbour's ints, sums into rank 0's
 * counter, and reads back, under lock_all. */
static void onesided(MPI_Win win, int *ints, long *counter, MPI_Aint *ia, MPI_Aint *ca) {
	int right = (rank + 1) % size, left = (rank + size - 1) % size, i;
	int vals[N], got[N];
	long one = 1, old = -1, cmp = 0, swap = rank + 1, prev = -1, res;
	MPI_Datatype every2;
	for (i = 0; i < N; i++)
		vals[i] = 1000 * rank + i;
	MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every2);
	MPI_Type_commit(&every2);
	MPI_Win_lock_all(0, win);
	MPI_Put(vals, N / 2, MPI_INT, right, ia[right], N / 2, MPI_INT, win);
	MPI_Put(vals + N / 2, N / 2, MPI_INT, right, MPI_Aint_add(ia[right], N / 2 * sizeof(int)), N / 2, MPI_INT, win);
	MPI_Accumulate(&one, 1, MPI_LONG, 0, ca[0], 1, MPI_LONG, MPI_SUM, win);
	MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, MPI_Aint_add(ca[0], sizeof(long)), MPI_SUM, win);
	MPI_Get_accumulate(&one, 1, MPI_LONG, &res, 1, MPI_LONG, 0, MPI_Aint_add(ca[0], 2 * sizeof(long)), 1, MPI_LONG, MPI_SUM, win);
	do {
		MPI_Compare_and_swap(&swap, &cmp, &prev, MPI_LONG, 0, MPI_Aint_add(ca[0], 3 * sizeof(long)), win);
		MPI_Win_flush(0, win);
	} while (prev != 0);
	MPI_Compare_and_swap(&cmp, &swap, &prev, MPI_LONG, 0, MPI_Aint_add(ca[0], 3 * sizeof(long)), win);
	MPI_Win_flush_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	memset(got, 0, sizeof got);
	MPI_Get(got, N / 2, MPI_INT, left, ia[left], 1, every2, win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < N; i++)
		CHECK(ints[i] == 1000 * left + i, "ints[%d] = %d after the put of %d", i, ints[i], left);
	int ll = (rank + 2 * size - 2) % size;
	for (i = 0; i < N / 2; i++)
		CHECK(got[i] == 1000 * ll + 2 * i, "got[%d] = %d from %d", i, got[i], left);
	if (rank == 0)
		CHECK(counter[0] == size && counter[1] == size && counter[2] == size && counter[3] == 0,
			"counters %ld %ld %ld %ld", counter[0], counter[1], counter[2], counter[3]);
	MPI_Type_free(&every2);
}

/* active puts into the right neighbour's ints under fences, then PSCW. */
static void active(MPI_Win win, int *ints, MPI_Aint *ia) {
	int right = (rank + 1) % size, left = (rank + size - 1) % size, v = 7 + rank;
	MPI_Group world, from, to;
	MPI_Win_fence(0, win);
	MPI_Put(&v, 1, MPI_INT, right, MPI_Aint_add(ia[right], sizeof(int)), 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	CHECK(ints[1] == 7 + left, "fence put: %d", ints[1]);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &left, &from);
	MPI_Group_incl(world, 1, &right, &to);
	MPI_Win_post(from, 0, win);
	MPI_Win_start(to, 0, win);
	v = 70 + rank;
	MPI_Put(&v, 1, MPI_INT, right, MPI_Aint_add(ia[right], 2 * sizeof(int)), 1, MPI_INT, win);
	MPI_Win_complete(win);
	MPI_Win_wait(win);
	CHECK(ints[2] == 70 + left, "pscw put: %d", ints[2]);
	MPI_Group_free(&world);
	MPI_Group_free(&from);
	MPI_Group_free(&to);
}

/* unattached checks, on this library only (MPICH's would write to the
 * address), that accesses where nothing is attached fail with
 * MPI_ERR_RMA_RANGE, and detaching such an address too. */
static void unattached(MPI_Win win, MPI_Aint *ia) {
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len, rc, class, v = 0, right = (rank + 1) % size;
	MPI_Get_library_version(version, &len);
	if (strstr(version, "martini") == NULL)
		return;
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
	rc = MPI_Put(&v, 1, MPI_INT, right, 64, 1, MPI_INT, win);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_RMA_RANGE, "put at address 64: class %d", class);
	rc = MPI_Get(&v, 2, MPI_INT, right, MPI_Aint_add(ia[right], (N - 1) * sizeof(int)), 2, MPI_INT, win);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_RMA_RANGE, "get past the end: class %d", class);
	MPI_Win_unlock(right, win);
	rc = MPI_Win_detach(win, &v);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_RMA_RANGE, "detach of unattached memory: class %d", class);
	MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
	MPI_Win win;
	int *ints = calloc(N, sizeof(int)), *flavor, flag;
	long *counter = calloc(4, sizeof(long));
	MPI_Aint *ia, *ca;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	ia = calloc(size, sizeof(MPI_Aint));
	ca = calloc(size, sizeof(MPI_Aint));
	MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
	CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", *flavor);
	MPI_Win_attach(win, ints, N * sizeof(int));
	MPI_Win_attach(win, counter, 4 * sizeof(long));
	exchange(ints, ia);
	exchange(counter, ca);
	onesided(win, ints, counter, ia, ca);
	active(win, ints, ia);
	unattached(win, ia);
	/* Detach, attach fresh memory, reach it. */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_detach(win, ints);
	free(ints);
	ints = calloc(N, sizeof(int));
	MPI_Win_attach(win, ints, N * sizeof(int));
	exchange(ints, ia);
	memset(counter, 0, 4 * sizeof(long));
	MPI_Barrier(MPI_COMM_WORLD);
	onesided(win, ints, counter, ia, ca);
	MPI_Win_detach(win, ints);
	MPI_Win_detach(win, counter);
	MPI_Win_free(&win);
	printf("dynamic ok rank %d of %d\n", rank, size);
	free(ints);
	free(counter);
	free(ia);
	free(ca);
	MPI_Finalize();
	return 0;
}
