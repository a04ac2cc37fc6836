/* MPI-4.0's large-count (_c) calls: point-to-point with MPI_Count counts
 * (Send_c, Recv_c, Isend_c, Irecv_c, Sendrecv_c, Get_count_c), a datatype
 * of 2^31+1 bytes (Type_contiguous_c, Type_size_c, Get_elements_c) whose
 * counts do not fit an int, collectives (Bcast_c, Allreduce_c with a
 * predefined and an Op_create_c operation, Alltoallv_c with MPI_Count and
 * MPI_Aint arrays, Ibcast_c, Bcast_init_c), Type_vector_c with its extent,
 * envelope and contents, Pack_c/Unpack_c, Put_c/Get_c/Accumulate_c on a
 * window of Win_allocate_c, and negative counts giving MPI_ERR_COUNT (on
 * this library, a one-sided count past 2^31-1 too). Prints
 * "largecount ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

#define N 100
#define BIG (((MPI_Count)1 << 31) + 1) /* bytes: past any int */

static int rank, size;

/* martini reports whether this is the runtime's library, not MPICH's. */
static int martini(void) {
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	MPI_Get_library_version(version, &len);
	return strstr(version, "martini") != NULL;
}

/* p2p sends N ints to the right neighbour and receives the left one's,
 * by Isend_c and Recv_c, then Irecv_c and Send_c, and to itself by
 * Sendrecv_c. */
static void p2p(void) {
	int out[N], in[N], i, right = (rank + 1) % size, left = (rank + size - 1) % size, n;
	MPI_Request req;
	MPI_Status st;
	MPI_Count count;
	for (i = 0; i < N; i++)
		out[i] = 1000 * rank + i;
	MPI_Isend_c(out, N, MPI_INT, right, 1, MPI_COMM_WORLD, &req);
	MPI_Recv_c(in, N, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Get_count_c(&st, MPI_INT, &count);
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(count == N && n == N && st.MPI_SOURCE == left, "Recv_c: count %lld, %d, source %d", (long long)count, n, st.MPI_SOURCE);
	for (i = 0; i < N; i++)
		CHECK(in[i] == 1000 * left + i, "Recv_c: in[%d] = %d", i, in[i]);
	memset(in, 0, sizeof in);
	MPI_Irecv_c(in, N, MPI_INT, left, 2, MPI_COMM_WORLD, &req);
	MPI_Send_c(out, N / 2, MPI_INT, right, 2, MPI_COMM_WORLD);
	MPI_Wait(&req, &st);
	MPI_Get_count_c(&st, MPI_INT, &count);
	CHECK(count == N / 2 && in[N / 2 - 1] == 1000 * left + N / 2 - 1 && in[N / 2] == 0, "Irecv_c: count %lld", (long long)count);
	MPI_Sendrecv_c(out, N, MPI_INT, rank, 3, in, N, MPI_INT, rank, 3, MPI_COMM_WORLD, &st);
	MPI_Get_elements_c(&st, MPI_INT, &count);
	CHECK(count == N && in[N - 1] == out[N - 1], "Sendrecv_c: elements %lld", (long long)count);
}

/* big checks a datatype of BIG bytes, which needs no memory: its size and
 * extent as MPI_Counts, and a status of BIG bytes counted in its items,
 * in bytes and in ints (MPI_UNDEFINED where the count does not fit). */
static void big(void) {
	MPI_Datatype t;
	MPI_Count sz, lb, ext, count;
	MPI_Status st;
	int n;
	MPI_Type_contiguous_c(BIG, MPI_BYTE, &t);
	MPI_Type_commit(&t);
	MPI_Type_size_c(t, &sz);
	MPI_Type_get_extent_c(t, &lb, &ext);
	CHECK(sz == BIG && lb == 0 && ext == BIG, "Type_contiguous_c(2^31+1): size %lld, lb %lld, extent %lld", (long long)sz, (long long)lb, (long long)ext);
	MPI_Type_size(t, &n);
	CHECK(n == MPI_UNDEFINED, "Type_size of 2^31+1 bytes: %d", n);
	MPI_Status_set_elements_x(&st, MPI_BYTE, BIG);
	MPI_Get_elements_c(&st, t, &count);
	CHECK(count == BIG, "Get_elements_c: %lld", (long long)count);
	MPI_Get_count_c(&st, t, &count);
	CHECK(count == 1, "Get_count_c of the type: %lld", (long long)count);
	MPI_Get_count_c(&st, MPI_BYTE, &count);
	CHECK(count == BIG, "Get_count_c of bytes: %lld", (long long)count);
	MPI_Get_count(&st, MPI_BYTE, &n);
	CHECK(n == MPI_UNDEFINED, "Get_count of 2^31+1 bytes: %d", n);
	MPI_Type_free(&t);
}

/* sumc is an MPI_User_function_c: a sum of longs. */
static void sumc(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt) {
	long *a = in, *b = inout;
	MPI_Count i;
	for (i = 0; i < *len; i++)
		b[i] += a[i];
}

static void colls(void) {
	double d[10];
	int v[5], s[5], i;
	long lv[3], ls[3];
	MPI_Op op;
	for (i = 0; i < 10; i++)
		d[i] = rank == 0 ? i * 1.5 : -1;
	MPI_Bcast_c(d, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (i = 0; i < 10; i++)
		CHECK(d[i] == i * 1.5, "Bcast_c: d[%d] = %g", i, d[i]);
	for (i = 0; i < 5; i++)
		v[i] = (rank + 1) * (i + 1);
	MPI_Allreduce_c(v, s, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < 5; i++)
		CHECK(s[i] == size * (size + 1) / 2 * (i + 1), "Allreduce_c: s[%d] = %d", i, s[i]);
	MPI_Op_create_c(sumc, 1, &op);
	for (i = 0; i < 3; i++)
		lv[i] = (long)rank * 10 + i;
	MPI_Allreduce_c(lv, ls, 3, MPI_LONG, op, MPI_COMM_WORLD);
	for (i = 0; i < 3; i++)
		CHECK(ls[i] == 10L * size * (size - 1) / 2 + (long)i * size, "Allreduce_c (Op_create_c): ls[%d] = %ld", i, ls[i]);
	MPI_Reduce_local_c(lv, ls, 3, MPI_LONG, op);
	CHECK(ls[2] == 10L * size * (size - 1) / 2 + 2L * size + lv[2], "Reduce_local_c: %ld", ls[2]);
	MPI_Op_free(&op);
}

/* alltoallv sends i+1 ints to rank i, with MPI_Count counts and MPI_Aint
 * displacements. */
static void alltoallv(void) {
	MPI_Count sc[4], rc[4];
	MPI_Aint sd[4], rd[4];
	int sb[10], rb[16], i, k;
	for (i = 0, k = 0; i < size; i++) {
		sc[i] = i + 1;
		sd[i] = k;
		for (int j = 0; j <= i; j++)
			sb[k++] = 100 * rank + i;
		rc[i] = rank + 1;
		rd[i] = i * (rank + 1);
	}
	MPI_Alltoallv_c(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < size; i++)
		for (k = 0; k <= rank; k++)
			CHECK(rb[i * (rank + 1) + k] == 100 * i + rank, "Alltoallv_c: from %d item %d: %d", i, k, rb[i * (rank + 1) + k]);
}

/* vector checks Type_vector_c's extent and envelope, sends a vector to
 * itself, and packs and unpacks it with MPI_Count positions. */
static void vector(void) {
	MPI_Datatype t, old;
	MPI_Count lb, ext, ni, na, nc, nd, counts[3], pos = 0, psize;
	int m[12], got[6], packed[6], i, comb, ints[1];
	MPI_Aint addrs[1];
	MPI_Type_vector_c(3, 2, 4, MPI_INT, &t);
	MPI_Type_commit(&t);
	MPI_Type_get_extent_c(t, &lb, &ext);
	CHECK(lb == 0 && ext == 10 * sizeof(int), "Type_vector_c: lb %lld, extent %lld", (long long)lb, (long long)ext);
	MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
	CHECK(comb == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nc == 3 && nd == 1, "envelope_c: %d %lld %lld %lld %lld", comb, (long long)ni, (long long)na, (long long)nc, (long long)nd);
	MPI_Type_get_contents_c(t, 0, 0, 3, 1, ints, addrs, counts, &old);
	CHECK(counts[0] == 3 && counts[1] == 2 && counts[2] == 4 && old == MPI_INT, "contents_c: %lld %lld %lld", (long long)counts[0], (long long)counts[1], (long long)counts[2]);
	for (i = 0; i < 12; i++)
		m[i] = rank * 100 + i;
	MPI_Sendrecv_c(m, 1, t, rank, 4, got, 6, MPI_INT, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	CHECK(got[0] == m[0] && got[1] == m[1] && got[2] == m[4] && got[5] == m[9], "vector sent: %d %d %d", got[0], got[2], got[5]);
	MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &psize);
	CHECK(psize >= 6 * (MPI_Count)sizeof(int), "Pack_size_c: %lld", (long long)psize);
	MPI_Pack_c(m, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
	CHECK(pos == sizeof packed && packed[3] == m[5], "Pack_c: position %lld", (long long)pos);
	memset(m, 0, sizeof m);
	pos = 0;
	MPI_Unpack_c(packed, sizeof packed, &pos, m, 1, t, MPI_COMM_WORLD);
	CHECK(pos == sizeof packed && m[8] == rank * 100 + 8 && m[9] == rank * 100 + 9 && m[2] == 0, "Unpack_c: position %lld, %d", (long long)pos, m[8]);
	MPI_Type_free(&t);
}

/* onesided puts the rank into slot rank of the right neighbour, adds one
 * into slot 0 of every rank and reads the left neighbour's slot back, on a
 * window of Win_allocate_c. */
static void onesided(void) {
	int *base, i, right = (rank + 1) % size, one = 1, got = -1;
	MPI_Win win;
	/* 64 ints: MPICH 4.0.2's own library (ch4:ucx) misplaces accesses to
	 * rank 1 of 2 in windows of a few bytes. */
	MPI_Win_allocate_c((MPI_Aint)64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (i = 0; i <= size; i++)
		base[i] = -1;
	base[0] = 0;
	MPI_Win_fence(0, win);
	MPI_Put_c(&rank, 1, MPI_INT, right, rank + 1, 1, MPI_INT, win);
	for (i = 0; i < size; i++)
		MPI_Accumulate_c(&one, 1, MPI_INT, i, 0, 1, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);
	int left = (rank + size - 1) % size;
	CHECK(base[0] == size && base[left + 1] == left, "Put_c/Accumulate_c: slot 0 %d, slot %d %d", base[0], left + 1, base[left + 1]);
	MPI_Get_c(&got, 1, MPI_INT, right, rank + 1, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	CHECK(got == rank, "Get_c: %d", got);
	if (martini()) {
		/* This library's one-sided calls take counts up to 2^31-1: a
		 * larger one is MPI_ERR_COUNT before any byte moves (MPICH's
		 * would read 2 GiB past got). */
		int rc, class;
		MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
		MPI_Win_fence(0, win);
		rc = MPI_Put_c(&got, BIG, MPI_BYTE, right, 0, BIG, MPI_BYTE, win);
		MPI_Error_class(rc, &class);
		CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT, "Put_c of 2^31+1 bytes: %d, class %d", rc, class);
		MPI_Win_fence(0, win);
	}
	MPI_Win_free(&win);
}

/* nonblocking broadcasts by Ibcast_c, and a persistent one by
 * Bcast_init_c started twice. */
static void nonblocking(void) {
	long v[4];
	int i, round;
	MPI_Request req;
	for (i = 0; i < 4; i++)
		v[i] = rank == 0 ? 7 * i : 0;
	MPI_Ibcast_c(v, 4, MPI_LONG, 0, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(v[3] == 21, "Ibcast_c: %ld", v[3]);
	MPI_Bcast_init_c(v, 4, MPI_LONG, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
	for (round = 1; round <= 2; round++) {
		for (i = 0; i < 4; i++)
			v[i] = rank == 0 ? 100 * round + i : 0;
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		CHECK(v[2] == 100 * round + 2, "Bcast_init_c round %d: %ld", round, v[2]);
	}
	MPI_Request_free(&req);
}

/* negative counts are MPI_ERR_COUNT under MPI_ERRORS_RETURN. */
static void errors(void) {
	int buf[4] = {0}, rc, class;
	MPI_Datatype t;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Send_c(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD);
	MPI_Error_class(rc, &class);
	CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT, "Send_c count -1: %d, class %d", rc, class);
	rc = MPI_Bcast_c(buf, -5, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Error_class(rc, &class);
	CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT, "Bcast_c count -5: %d, class %d", rc, class);
	rc = MPI_Type_contiguous_c(-2, MPI_INT, &t);
	MPI_Error_class(rc, &class);
	CHECK(rc != MPI_SUCCESS && class == MPI_ERR_COUNT, "Type_contiguous_c count -2: %d, class %d", rc, class);
	/* A datatype of a _c constructor has large counts in its envelope:
	 * MPI_Type_get_envelope, which has no room for them, fails. */
	int ni, na, nd, comb;
	MPI_Type_vector_c(2, 1, 3, MPI_INT, &t);
	rc = MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	CHECK(rc != MPI_SUCCESS, "Type_get_envelope of a Type_vector_c type succeeded");
	MPI_Type_free(&t);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	p2p();
	big();
	colls();
	alltoallv();
	vector();
	onesided();
	nonblocking();
	errors();
	MPI_Barrier(MPI_COMM_WORLD);
	printf("largecount ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
