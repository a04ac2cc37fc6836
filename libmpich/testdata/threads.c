/* MPI_THREAD_MULTIPLE: two threads of each rank exchange messages with
 * the neighbours at once, each on a communicator of its own. Prints
 * "threads ok" on every rank. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int rank, size;
static MPI_Comm comms[2];

static void *exchange(void *arg) {
	int t = *(int *)arg, next = (rank + 1) % size, prev = (rank + size - 1) % size, i, in;
	for (i = 0; i < 1000; i++) {
		int out = rank * 10000 + t * 1000 + i;
		MPI_Sendrecv(&out, 1, MPI_INT, next, t, &in, 1, MPI_INT, prev, t, comms[t], MPI_STATUS_IGNORE);
		CHECK(in == prev * 10000 + t * 1000 + i, "thread %d message %d: %d", t, i, in);
	}
	return NULL;
}

int main(int argc, char **argv) {
	int provided, ids[2] = {0, 1};
	pthread_t th[2];
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
	MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, exchange, &ids[t]);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	MPI_Comm_free(&comms[0]);
	MPI_Comm_free(&comms[1]);
	printf("threads ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
