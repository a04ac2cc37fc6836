/* The origins (every rank but the last, or rank 0 alone) add 1 to
 * counters at the last rank, each update followed by MPI_Win_flush: by
 * MPI_Get_accumulate into a result of a contiguous derived datatype, of a
 * vector with gaps (unpacked by the flush) and by MPI_Rget_accumulate, by
 * MPI_Fetch_and_op and by a loop of MPI_Compare_and_swap. Accumulates are
 * atomic per element (MPI-3.1 11.7.1): the values fetched of a counter
 * are each of 0..total-1 once, and the counter ends at total. Prints
 * "counter ok rank R of N" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LEN 4    /* counters of an MPI_Get_accumulate */
#define ITERS 40 /* updates of each origin */

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

enum { GACC, GACC_VECTOR, RGACC, FOP, CAS };
static const char *names[] = {"get_accumulate", "get_accumulate (vector)", "rget_accumulate", "fetch_and_op", "compare_and_swap"};

static int rank, size, target, *base;
static MPI_Win win;
static MPI_Datatype contig, vector;

/* update makes one update of kind, flushed, and returns in got what it
 * fetched of each counter (-7 where nothing was written). */
static void update(int kind, int *got) {
	int one[LEN] = {1, 1, 1, 1}, res[2 * LEN], i;
	for (i = 0; i < 2 * LEN; i++)
		res[i] = -7;
	MPI_Request req;
	switch (kind) {
	case GACC:
		MPI_Get_accumulate(one, LEN, MPI_INT, res, 1, contig, target, 0, LEN, MPI_INT, MPI_SUM, win);
		break;
	case GACC_VECTOR:
		MPI_Get_accumulate(one, LEN, MPI_INT, res, 1, vector, target, 0, LEN, MPI_INT, MPI_SUM, win);
		break;
	case RGACC:
		MPI_Rget_accumulate(one, LEN, MPI_INT, res, 1, contig, target, 0, 1, contig, MPI_SUM, win, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		break;
	case FOP:
		MPI_Fetch_and_op(one, res, MPI_INT, target, 0, MPI_SUM, win);
		break;
	case CAS:
		for (int guess = 0;; guess = res[0]) {
			int next = guess + 1;
			MPI_Compare_and_swap(&next, &guess, res, MPI_INT, target, 0, win);
			MPI_Win_flush(target, win); /* the result is there once flushed */
			if (res[0] == guess)
				break;
		}
	}
	MPI_Win_flush(target, win);
	for (i = 0; i < LEN; i++)
		got[i] = res[kind == GACC_VECTOR ? 2 * i : i];
}

/* check checks counter j of what every rank fetched (all, ITERS updates
 * of LEN counters a rank, -1 where a rank is no origin) on rank 0 and
 * returns how many updates there were. */
static int check(int kind, const int *all, int j) {
	int n = 0, i;
	char *seen = calloc(ITERS * size, 1);
	for (i = j; i < ITERS * LEN * size; i += LEN) {
		if (all[i] == -1)
			continue;
		CHECK(all[i] >= 0 && all[i] < ITERS * size && !seen[all[i]],
		      "%s: counter %d: fetched %d, which is out of range or fetched before", names[kind], j, all[i]);
		seen[all[i]] = 1;
		n++;
	}
	free(seen);
	return n;
}

/* round zeroes the counters, makes the updates of kind on every origin
 * and checks them. */
static void round_of(int kind) {
	int got[ITERS * LEN], *all = malloc(sizeof(int) * ITERS * LEN * size), i, n = 0;
	int counters = kind == FOP || kind == CAS ? 1 : LEN;
	if (rank == target)
		for (i = 0; i < LEN; i++)
			base[i] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < ITERS * LEN; i++)
		got[i] = -1;
	if (rank != target || size == 1) {
		if (kind == FOP || kind == CAS)
			MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
		else
			MPI_Win_lock_all(0, win);
		for (i = 0; i < ITERS; i++)
			update(kind, got + i * LEN);
		if (kind == FOP || kind == CAS)
			MPI_Win_unlock(target, win);
		else
			MPI_Win_unlock_all(win);
	}
	MPI_Allgather(got, ITERS * LEN, MPI_INT, all, ITERS * LEN, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < counters; i++)
		n = check(kind, all, i);
	CHECK(n == ITERS * (size == 1 ? 1 : size - 1), "%s: %d updates", names[kind], n);
	if (rank == target) {
		MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
		for (i = 0; i < counters; i++)
			CHECK(base[i] == n, "%s: counter %d is %d after %d updates", names[kind], i, base[i], n);
		MPI_Win_unlock(target, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	free(all);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	target = size - 1;
	MPI_Type_contiguous(LEN, MPI_INT, &contig);
	MPI_Type_vector(LEN, 1, 2, MPI_INT, &vector);
	MPI_Type_commit(&contig);
	MPI_Type_commit(&vector);
	MPI_Win_allocate(LEN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int kind = GACC; kind <= CAS; kind++)
		round_of(kind);
	MPI_Win_free(&win);
	MPI_Type_free(&contig);
	MPI_Type_free(&vector);
	printf("counter ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
