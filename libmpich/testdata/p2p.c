/* Point-to-point: a ring, a ping-pong, nonblocking exchanges, probes and
 * the statuses they return. Prints "p2p ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int rank, size;

static void ring(void) {
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int token = -1, count;
	MPI_Status st;
	if (rank == 0) {
		token = 100;
		MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
		MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
		CHECK(token == 100 + size - 1, "ring token %d", token);
	} else {
		MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 7, "ring status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
		token++;
		MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
	}
	MPI_Get_count(&st, MPI_INT, &count);
	CHECK(count == 1, "ring count %d", count);
}

static void pingpong(void) {
	double buf[1000];
	MPI_Status st;
	int count, i;
	if (size < 2 || rank > 1)
		return;
	for (i = 0; i < 1000; i++)
		buf[i] = rank == 0 ? i : 0;
	if (rank == 0) {
		MPI_Ssend(buf, 1000, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
		MPI_Recv(buf, 1000, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &count);
		CHECK(count == 500 && st.MPI_SOURCE == 1 && st.MPI_TAG == 4, "pong count %d", count);
		for (i = 0; i < 500; i++)
			CHECK(buf[i] == 2.0 * i, "pong value %d: %g", i, buf[i]);
		MPI_Get_count(&st, MPI_BYTE, &count);
		CHECK(count == 4000, "pong bytes %d", count);
	} else {
		MPI_Recv(buf, 1000, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &st);
		for (i = 0; i < 1000; i++)
			buf[i] *= 2;
		MPI_Send(buf, 500, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
	}
}

static void nonblocking(void) {
	int *in = calloc(size, sizeof(int)), out = rank * 10, i, idx, flag;
	MPI_Request *reqs = malloc(2 * size * sizeof(MPI_Request));
	MPI_Status *sts = malloc(2 * size * sizeof(MPI_Status));
	for (i = 0; i < size; i++) {
		MPI_Irecv(&in[i], 1, MPI_INT, i, 11, MPI_COMM_WORLD, &reqs[i]);
		MPI_Isend(&out, 1, MPI_INT, i, 11, MPI_COMM_WORLD, &reqs[size + i]);
	}
	MPI_Waitall(2 * size, reqs, sts);
	for (i = 0; i < size; i++) {
		CHECK(in[i] == i * 10, "waitall value from %d: %d", i, in[i]);
		CHECK(sts[i].MPI_SOURCE == i && sts[i].MPI_TAG == 11, "waitall status %d", i);
		CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not null", i);
	}
	/* Waitany over requests some of which are null. */
	MPI_Irecv(&in[0], 1, MPI_INT, rank, 12, MPI_COMM_WORLD, &reqs[1]);
	reqs[0] = MPI_REQUEST_NULL;
	MPI_Send(&out, 1, MPI_INT, rank, 12, MPI_COMM_WORLD);
	MPI_Waitany(2, reqs, &idx, &sts[0]);
	CHECK(idx == 1 && in[0] == out, "waitany index %d", idx);
	MPI_Waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
	CHECK(idx == MPI_UNDEFINED, "waitany on nulls %d", idx);
	/* Test until done. */
	MPI_Irecv(&in[0], 1, MPI_INT, rank, 13, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(&out, 1, MPI_INT, rank, 13, MPI_COMM_WORLD, &reqs[1]);
	do {
		MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
	} while (!flag);
	free(in), free(reqs), free(sts);
}

static void probes(void) {
	int v = rank, r, flag = 0, count;
	MPI_Status st;
	int peer = (rank + 1) % size, from = (rank + size - 1) % size;
	MPI_Request req;
	MPI_Isend(&v, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &req);
	MPI_Probe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_INT, &count);
	CHECK(st.MPI_SOURCE == from && count == 1, "probe source %d count %d", st.MPI_SOURCE, count);
	while (!flag)
		MPI_Iprobe(from, 21, MPI_COMM_WORLD, &flag, &st);
	MPI_Recv(&r, 1, MPI_INT, from, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	CHECK(r == from, "probed value %d", r);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	/* Sendrecv around the ring and with MPI_PROC_NULL. */
	MPI_Sendrecv(&v, 1, MPI_INT, peer, 22, &r, 1, MPI_INT, from, 22, MPI_COMM_WORLD, &st);
	CHECK(r == from && st.MPI_SOURCE == from, "sendrecv %d", r);
	MPI_Recv(&r, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "proc null source %d", st.MPI_SOURCE);
	/* A matched probe: the message is received through its handle. */
	MPI_Message msg;
	MPI_Isend(&v, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, &req);
	MPI_Mprobe(from, 23, MPI_COMM_WORLD, &msg, &st);
	MPI_Mrecv(&r, 1, MPI_INT, &msg, &st);
	CHECK(r == from && st.MPI_SOURCE == from && msg == MPI_MESSAGE_NULL, "mrecv %d", r);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		char version[MPI_MAX_LIBRARY_VERSION_STRING];
		int len;
		MPI_Get_library_version(version, &len);
		printf("library: %.*s\n", (int)strcspn(version, "\n"), version);
	}
	ring();
	pingpong();
	nonblocking();
	probes();
	MPI_Barrier(MPI_COMM_WORLD);
	printf("p2p ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
