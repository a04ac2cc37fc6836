/* Nonblocking collectives, a user-defined operation, a Cartesian
 * topology, persistent requests, packing, datatype queries and info
 * objects. Prints "more ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int rank, size;

/* absmax keeps the value of larger magnitude. */
static void absmax(void *in, void *inout, int *len, MPI_Datatype *dt) {
	int *a = in, *b = inout;
	for (int i = 0; i < *len; i++)
		if (abs(a[i]) > abs(b[i]))
			b[i] = a[i];
}

static void nonblocking(void) {
	MPI_Request reqs[4];
	int v = rank + 1, sum = 0, b = rank == 0 ? 42 : 0, r = 0, i;
	int *all = malloc(size * sizeof(int)), *out = malloc(size * sizeof(int));
	MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]);
	MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
	CHECK(sum == size * (size + 1) / 2, "iallreduce %d", sum);
	MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
	MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
	CHECK(b == 42, "ibcast %d", b);
	MPI_Ireduce(&v, &r, 1, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD, &reqs[0]);
	MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
	if (rank == size - 1)
		CHECK(r == size, "ireduce %d", r);
	for (i = 0; i < size; i++)
		all[i] = rank * size + i;
	MPI_Ialltoall(all, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD, &reqs[0]);
	MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
	for (i = 0; i < size; i++)
		CHECK(out[i] == i * size + rank, "ialltoall %d: %d", i, out[i]);
	free(all), free(out);
}

static void nonblockingv(void) {
	MPI_Request reqs[4];
	int v = rank + 1, sc = 0, ex = -1, i, *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
	int *all = malloc(size * sizeof(int)), *blk = malloc(size * sizeof(int)), red;
	for (i = 0; i < size; i++)
		counts[i] = 1, displs[i] = size - 1 - i, blk[i] = i;
	MPI_Iscan(&v, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
	MPI_Iexscan(&v, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
	MPI_Iallgatherv(&v, 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD, &reqs[2]);
	MPI_Ireduce_scatter_block(blk, &red, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[3]);
	MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
	CHECK(sc == (rank + 1) * (rank + 2) / 2, "iscan %d", sc);
	if (rank > 0)
		CHECK(ex == rank * (rank + 1) / 2, "iexscan %d", ex);
	for (i = 0; i < size; i++)
		CHECK(all[size - 1 - i] == i + 1, "iallgatherv %d: %d", i, all[size - 1 - i]);
	CHECK(red == rank * size, "ireduce_scatter_block %d", red);
	free(counts), free(displs), free(all), free(blk);
}

static void userop(void) {
	MPI_Op op;
	int v[2] = {rank % 2 ? -(rank + 10) : rank, 1}, r[2];
	MPI_Op_create(absmax, 1, &op);
	MPI_Allreduce(v, r, 2, MPI_INT, op, MPI_COMM_WORLD);
	int want = 0;
	for (int i = 0; i < size; i++) {
		int x = i % 2 ? -(i + 10) : i;
		if (abs(x) > abs(want))
			want = x;
	}
	CHECK(r[0] == want && r[1] == 1, "user op %d %d, want %d", r[0], r[1], want);
	MPI_Op_free(&op);
	CHECK(op == MPI_OP_NULL, "op not null after free");
}

static void cart(void) {
	int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], src, dst, crank, remain[2] = {1, 0}, rsize;
	MPI_Comm grid, row;
	MPI_Dims_create(size, 2, dims);
	CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "dims %d x %d", dims[0], dims[1]);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
	MPI_Comm_rank(grid, &crank);
	MPI_Cart_coords(grid, crank, 2, coords);
	CHECK(coords[0] * dims[1] + coords[1] == crank, "coords %d %d of %d", coords[0], coords[1], crank);
	MPI_Cart_shift(grid, 0, 1, &src, &dst);
	CHECK(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "shift dest %d", dst);
	MPI_Cart_shift(grid, 1, 1, &src, &dst);
	if (coords[1] == dims[1] - 1)
		CHECK(dst == MPI_PROC_NULL, "non-periodic shift %d", dst);
	MPI_Cart_sub(grid, remain, &row);
	MPI_Comm_size(row, &rsize);
	CHECK(rsize == dims[0], "sub size %d", rsize);
	MPI_Comm_free(&row);
	MPI_Comm_free(&grid);
}

/* cartNone keeps no dimension of a ring (MPI_Cart_sub): MPI gives each
 * process a zero-dimensional Cartesian communicator of itself alone,
 * congruent to MPI_COMM_SELF; MPICH 4.0.2's library gives it to rank 0
 * only, MPI_COMM_NULL to the others. */
static void cartNone(void) {
	int dims[1] = {size}, periods[1] = {0}, remain[1] = {0}, n = -1, result, topo, crank = -1, coords[1] = {0};
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	MPI_Comm ring, none, again;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	MPI_Cart_sub(ring, remain, &none);
	MPI_Get_library_version(version, &n);
	if (none == MPI_COMM_NULL) {
		CHECK(rank != 0 && strstr(version, "martini") == NULL, "MPI_Cart_sub to no dimension: MPI_COMM_NULL");
		MPI_Comm_free(&ring);
		return;
	}
	MPI_Comm_compare(MPI_COMM_SELF, none, &result);
	CHECK(result == MPI_CONGRUENT, "MPI_Cart_sub to no dimension: comparison with MPI_COMM_SELF %d", result);
	MPI_Topo_test(none, &topo);
	MPI_Cartdim_get(none, &n);
	MPI_Cart_rank(none, coords, &crank);
	CHECK(topo == MPI_CART && n == 0 && crank == 0, "no dimension: topology %d, %d dimensions, rank %d", topo, n, crank);
	MPI_Cart_sub(none, remain, &again);
	MPI_Comm_size(again, &n);
	MPI_Cartdim_get(again, &result);
	CHECK(n == 1 && result == 0, "MPI_Cart_sub of no dimension: size %d, %d dimensions", n, result);
	MPI_Comm_free(&again);
	MPI_Comm_free(&none);
	MPI_Comm_free(&ring);
}

/* neighbours exchanges with the neighbours of a periodic ring made as a
 * Cartesian topology, a graph and a distributed graph. */
static void neighbours(void) {
	int dims[1] = {size}, periods[1] = {1}, got[2] = {-1, -1}, next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int *index = malloc(size * sizeof(int)), *edges = malloc(2 * size * sizeof(int)), nb[2], n, i;
	MPI_Comm ring, graph, dist;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, ring);
	CHECK(got[0] == prev && got[1] == next, "cart neighbours %d %d", got[0], got[1]);
	MPI_Request req;
	got[0] = got[1] = -1;
	MPI_Ineighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, ring, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(got[0] == prev && got[1] == next, "nonblocking cart neighbours %d %d", got[0], got[1]);
	for (i = 0; i < size; i++)
		index[i] = 2 * (i + 1), edges[2 * i] = (i + size - 1) % size, edges[2 * i + 1] = (i + 1) % size;
	MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
	MPI_Graph_neighbors_count(graph, rank, &n);
	MPI_Graph_neighbors(graph, rank, 2, nb);
	CHECK(n == 2 && nb[0] == prev && nb[1] == next, "graph neighbours %d: %d %d", n, nb[0], nb[1]);
	int srcs[2] = {prev, next}, out[2] = {rank * 10, rank * 10 + 1};
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, srcs, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist);
	MPI_Neighbor_alltoall(out, 1, MPI_INT, got, 1, MPI_INT, dist);
	/* prev sent us its block for its next (us): prev*10+1; next its block 0.
	 * With fewer than 3 ranks prev and next are one rank, and which of its
	 * two edges meets which is the implementation's. */
	if (size >= 3)
		CHECK(got[0] == prev * 10 + 1 && got[1] == next * 10, "dist graph alltoall %d %d", got[0], got[1]);
	MPI_Comm_free(&dist);
	MPI_Comm_free(&graph);
	MPI_Comm_free(&ring);
	free(index), free(edges);
}

static void persistent(void) {
	int out = rank, in = -1, next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MPI_Request reqs[2];
	MPI_Recv_init(&in, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &reqs[0]);
	MPI_Send_init(&out, 1, MPI_INT, next, 5, MPI_COMM_WORLD, &reqs[1]);
	for (int round = 0; round < 3; round++) {
		out = rank + 100 * round;
		MPI_Startall(2, reqs);
		MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
		CHECK(in == prev + 100 * round, "persistent round %d: %d", round, in);
	}
	MPI_Request_free(&reqs[0]);
	MPI_Request_free(&reqs[1]);

	/* Every other int, on both sides: the odd ones are neither sent nor
	   written, and each round sends what the buffer holds at its start. */
	int vout[6], vin[6];
	MPI_Datatype every2;
	MPI_Type_vector(3, 1, 2, MPI_INT, &every2);
	MPI_Type_commit(&every2);
	MPI_Recv_init(vin, 1, every2, prev, 6, MPI_COMM_WORLD, &reqs[0]);
	MPI_Send_init(vout, 1, every2, next, 6, MPI_COMM_WORLD, &reqs[1]);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 6; i++) {
			vout[i] = i % 2 ? -7 : 10 * rank + round + i;
			vin[i] = -1;
		}
		MPI_Start(&reqs[0]);
		MPI_Start(&reqs[1]);
		MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
		for (int i = 0; i < 6; i++) {
			int want = i % 2 ? -1 : 10 * prev + round + i;
			CHECK(vin[i] == want, "persistent vector round %d: [%d] = %d, want %d", round, i, vin[i], want);
		}
	}
	MPI_Request_free(&reqs[0]);
	MPI_Request_free(&reqs[1]);
	MPI_Type_free(&every2);
}

static void types(void) {
	int n, pos = 0, ints[3] = {1, 2, 3}, back[3];
	double d = 2.5, dback;
	MPI_Aint lb, extent;
	char *packed;
	MPI_Datatype r8;
	MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &r8);
	MPI_Type_size(r8, &n);
	CHECK(n == 8, "matched real of size %d", n);
	MPI_Type_size(MPI_DOUBLE, &n);
	CHECK(n == 8, "double size %d", n);
	MPI_Type_get_extent(MPI_INT, &lb, &extent);
	CHECK(lb == 0 && extent == 4, "int extent %ld", (long)extent);
	MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &n);
	MPI_Alloc_mem(n + 8, MPI_INFO_NULL, &packed);
	MPI_Pack(ints, 3, MPI_INT, packed, n + 8, &pos, MPI_COMM_WORLD);
	MPI_Pack(&d, 1, MPI_DOUBLE, packed, n + 8, &pos, MPI_COMM_WORLD);
	CHECK(pos == 20, "packed %d bytes", pos);
	pos = 0;
	MPI_Unpack(packed, 20, &pos, back, 3, MPI_INT, MPI_COMM_WORLD);
	MPI_Unpack(packed, 20, &pos, &dback, 1, MPI_DOUBLE, MPI_COMM_WORLD);
	CHECK(back[2] == 3 && dback == 2.5, "unpacked %d %g", back[2], dback);
	MPI_Free_mem(packed);
}

static void info(void) {
	MPI_Info in, dup;
	char val[16], key[MPI_MAX_INFO_KEY + 1];
	int flag, n;
	MPI_Info_create(&in);
	MPI_Info_set(in, "color", "blue");
	MPI_Info_set(in, "size", "7");
	MPI_Info_dup(in, &dup);
	MPI_Info_delete(in, "color");
	MPI_Info_get_nkeys(in, &n);
	CHECK(n == 1, "nkeys %d", n);
	MPI_Info_get(dup, "color", sizeof val - 1, val, &flag);
	CHECK(flag && strcmp(val, "blue") == 0, "dup color %s", val);
	MPI_Info_get_nthkey(dup, 1, key);
	CHECK(strcmp(key, "size") == 0, "nth key %s", key);
	MPI_Info_get(in, "color", sizeof val - 1, val, &flag);
	CHECK(!flag, "deleted key found");
	MPI_Info_free(&in);
	MPI_Info_free(&dup);
	CHECK(in == MPI_INFO_NULL, "info not null after free");
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	nonblocking();
	nonblockingv();
	userop();
	cart();
	cartNone();
	neighbours();
	persistent();
	types();
	info();
	printf("more ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
