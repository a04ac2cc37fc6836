/* Derived datatypes: a column of a matrix (vector), a struct with padding,
 * indexed blocks, a subarray, a transpose, resized and contiguous types,
 * sent, received, broadcast and packed. Prints "types ok" on every rank. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

struct particle {
	double x;
	int id;
	char tag;
};

static int rank, size;

static void column(void) {
	double m[4][5], col[4];
	int i, j, n;
	MPI_Datatype colt;
	MPI_Status st;
	MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &colt);
	MPI_Type_commit(&colt);
	MPI_Type_size(colt, &n);
	CHECK(n == 32, "vector size %d", n);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 5; j++)
			m[i][j] = rank == 0 ? 10 * i + j : -1;
	/* Rank 0 broadcasts column 2 in place. */
	MPI_Bcast(&m[0][2], 1, colt, 0, MPI_COMM_WORLD);
	for (i = 0; i < 4; i++)
		CHECK(m[i][2] == 10 * i + 2 && (rank == 0 || m[i][1] == -1), "bcast column row %d: %g", i, m[i][2]);
	/* A column sent as a vector arrives as 4 contiguous doubles. */
	MPI_Sendrecv(&m[0][3], 1, colt, rank, 1, col, 4, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_DOUBLE, &n);
	CHECK(n == 4 && col[3] == m[3][3], "column as doubles: %d, %g", n, col[3]);
	/* And contiguous doubles received into a column. */
	for (i = 0; i < 4; i++)
		col[i] = 100 + i;
	MPI_Sendrecv(col, 4, MPI_DOUBLE, rank, 2, &m[0][4], 1, colt, rank, 2, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, colt, &n);
	CHECK(n == 1 && m[2][4] == 102 && m[2][3] != 102, "doubles into a column: %d, %g", n, m[2][4]);
	char name[MPI_MAX_OBJECT_NAME];
	MPI_Type_get_name(MPI_DOUBLE, name, &n);
	CHECK(n == 10, "name of MPI_DOUBLE: %s", name);
	MPI_Type_set_name(colt, "column");
	MPI_Type_get_name(colt, name, &n);
	CHECK(n == 6, "name of the column type: %s", name);
	MPI_Type_free(&colt);
	CHECK(colt == MPI_DATATYPE_NULL, "type not null after free");
}

static void structs(void) {
	struct particle p[3], q[3];
	int bl[3] = {1, 1, 1}, i, n;
	MPI_Aint disp[3], base, lb, ext;
	MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR}, pt;
	MPI_Get_address(&p[0], &base);
	MPI_Get_address(&p[0].x, &disp[0]);
	MPI_Get_address(&p[0].id, &disp[1]);
	MPI_Get_address(&p[0].tag, &disp[2]);
	for (i = 0; i < 3; i++)
		disp[i] -= base;
	CHECK(disp[1] == offsetof(struct particle, id) && disp[2] == offsetof(struct particle, tag), "addresses");
	MPI_Type_create_struct(3, bl, disp, types, &pt);
	MPI_Type_commit(&pt);
	MPI_Type_get_extent(pt, &lb, &ext);
	MPI_Type_size(pt, &n);
	CHECK(lb == 0 && ext == sizeof(struct particle) && n == 13, "struct extent %ld size %d", (long)ext, n);
	for (i = 0; i < 3; i++)
		p[i].x = rank + i / 2.0, p[i].id = 10 * rank + i, p[i].tag = 'a' + i, q[i].id = -1;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MPI_Sendrecv(p, 3, pt, next, 3, q, 3, pt, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < 3; i++)
		CHECK(q[i].x == prev + i / 2.0 && q[i].id == 10 * prev + i && q[i].tag == 'a' + i, "struct %d: %g %d %c", i, q[i].x, q[i].id, q[i].tag);
	MPI_Type_free(&pt);
}

static void indexed(void) {
	int a[10], b[10], bl[2] = {2, 3}, dl[2] = {1, 6}, i, pos = 0, n;
	char packed[64];
	MPI_Datatype it, big;
	MPI_Type_indexed(2, bl, dl, MPI_INT, &it);
	MPI_Type_commit(&it);
	for (i = 0; i < 10; i++)
		a[i] = i, b[i] = -1;
	MPI_Pack(a, 1, it, packed, sizeof packed, &pos, MPI_COMM_WORLD);
	CHECK(pos == 20, "packed indexed %d bytes", pos);
	pos = 0;
	MPI_Unpack(packed, 20, &pos, b, 1, it, MPI_COMM_WORLD);
	CHECK(b[1] == 1 && b[2] == 2 && b[6] == 6 && b[8] == 8 && b[0] == -1 && b[3] == -1, "unpacked indexed");
	MPI_Type_contiguous(3, it, &big);
	MPI_Type_size(big, &n);
	CHECK(n == 60, "contiguous of indexed: size %d", n);
	MPI_Type_free(&big);
	MPI_Type_free(&it);
}

static void subarray(void) {
	int full[4][6], sizes[2] = {4, 6}, sub[2] = {2, 3}, starts[2] = {1, 2}, out[6], i, j;
	MPI_Datatype st;
	MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &st);
	MPI_Type_commit(&st);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 6; j++)
			full[i][j] = 10 * i + j;
	MPI_Sendrecv(full, 1, st, rank, 4, out, 6, MPI_INT, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	CHECK(out[0] == 12 && out[2] == 14 && out[3] == 22 && out[5] == 24, "subarray %d %d %d %d", out[0], out[2], out[3], out[5]);
	MPI_Type_free(&st);
}

/* mixed: a struct with a non-contiguous part (a column of a 3x3 matrix
 * beside a count), the value/index pair types' size and extent, elements
 * of a partial item, and MPI_LB/MPI_UB markers. */
struct record {
	int count;
	double m[3][3];
};

static void mixed(void) {
	struct record r = {7, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}}, got;
	MPI_Datatype col, parts[2], rec, marked, markers[3];
	MPI_Type_vector(3, 1, 3, MPI_DOUBLE, &col);
	int bl[3] = {1, 1, 1};
	MPI_Aint disp[3] = {offsetof(struct record, count), offsetof(struct record, m[0][1]), 0}, lb, ext;
	parts[0] = MPI_INT, parts[1] = col;
	MPI_Type_create_struct(2, bl, disp, parts, &rec);
	MPI_Type_commit(&rec);
	int n;
	MPI_Type_size(rec, &n);
	CHECK(n == 4 + 3 * 8, "struct with a column: size %d", n);
	memset(&got, 0, sizeof got);
	MPI_Status st;
	MPI_Sendrecv(&r, 1, rec, rank, 11, &got, 1, rec, rank, 11, MPI_COMM_WORLD, &st);
	CHECK(got.count == 7 && got.m[0][1] == 2 && got.m[1][1] == 5 && got.m[2][1] == 8 && got.m[0][0] == 0, "struct with a column: %d %g %g %g", got.count, got.m[0][1], got.m[1][1], got.m[2][1]);
	/* The count and one double of the column: three elements are not
	 * there, two are. */
	MPI_Sendrecv(&r, 12, MPI_BYTE, rank, 12, &got, 1, rec, rank, 12, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, rec, &n);
	CHECK(n == MPI_UNDEFINED, "count of a partial struct: %d", n);
	MPI_Get_elements(&st, rec, &n);
	CHECK(n == 2, "elements of a partial struct: %d", n);
	MPI_Type_size(MPI_DOUBLE_INT, &n);
	MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext);
	CHECK(n == 12 && ext == 16, "MPI_DOUBLE_INT: size %d, extent %ld", n, (long)ext);
	/* Markers: an int between bounds -8 and 24. */
	markers[0] = MPI_LB, markers[1] = MPI_INT, markers[2] = MPI_UB;
	MPI_Aint mdisp[3] = {-8, 0, 24};
	MPI_Type_create_struct(3, bl, mdisp, markers, &marked);
	MPI_Type_get_extent(marked, &lb, &ext);
	MPI_Type_size(marked, &n);
	CHECK(lb == -8 && ext == 32 && n == 4, "struct with markers: lb %ld, extent %ld, size %d", (long)lb, (long)ext, n);
	MPI_Type_free(&marked);
	MPI_Type_free(&rec);
	MPI_Type_free(&col);
}

/* transpose sends a matrix in column-major order (a vector of one int a
 * row, in an hvector a column apart), whose size equals its extent though
 * it reorders the elements: sent to the next rank, packed, and as a
 * one-sided put's target, it must arrive transposed or be refused. */
static void transpose(void) {
	enum { N = 5 };
	int a[N][N], b[N][N], i, j, pos = 0, rc;
	MPI_Datatype row, xpose;
	MPI_Aint lb, ext;
	MPI_Type_vector(N, 1, N, MPI_INT, &row);
	MPI_Type_create_hvector(N, 1, sizeof(int), row, &xpose);
	MPI_Type_commit(&xpose);
	MPI_Type_get_extent(xpose, &lb, &ext);
	CHECK(ext == sizeof a, "transpose extent %ld", (long)ext);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			a[i][j] = 10 * i + j;
	MPI_Sendrecv(a, 1, xpose, (rank + 1) % size, 5, b, N * N, MPI_INT, (rank + size - 1) % size, 5,
		MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			CHECK(b[i][j] == 10 * j + i, "sent transposed: b[%d][%d] = %d", i, j, b[i][j]);
	char packed[sizeof a];
	MPI_Pack(a, 1, xpose, packed, sizeof packed, &pos, MPI_COMM_WORLD);
	pos = 0;
	MPI_Unpack(packed, sizeof packed, &pos, b, N * N, MPI_INT, MPI_COMM_WORLD);
	CHECK(b[0][1] == 10 && b[1][0] == 1, "packed transposed: %d %d", b[0][1], b[1][0]);
	MPI_Win win;
	MPI_Win_create(b, sizeof b, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Win_fence(0, win);
	rc = MPI_Put(a, N * N, MPI_INT, rank, 0, 1, xpose, win);
	MPI_Win_fence(0, win);
	CHECK(rc != MPI_SUCCESS || (b[0][1] == 10 && b[1][0] == 1), "put transposed: %d %d", b[0][1], b[1][0]);
	MPI_Win_free(&win);
	MPI_Type_free(&xpose);
	MPI_Type_free(&row);
}

/* A datatype decoded: its envelope and contents give back the
   constructor and its arguments, a derived part as a handle to free, even
   after the program freed its own. */
static void decoded(void) {
	MPI_Datatype vec, st, sub, parts[2], got[2];
	int ni, na, nt, comb, ints[8], bl[2] = {2, 1}, sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
	MPI_Aint addrs[4], disp[2] = {0, 64};
	MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb);
	CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0, "MPI_INT's envelope: %d %d %d %d", comb, ni, na, nt);
	MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
	MPI_Type_get_envelope(vec, &ni, &na, &nt, &comb);
	CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1, "vector's envelope: %d %d %d %d", comb, ni, na, nt);
	MPI_Type_get_contents(vec, 8, 4, 2, ints, addrs, got);
	CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && got[0] == MPI_INT, "vector's contents: %d %d %d", ints[0], ints[1], ints[2]);
	parts[0] = vec;
	parts[1] = MPI_DOUBLE;
	MPI_Type_create_struct(2, bl, disp, parts, &st);
	MPI_Type_free(&vec);
	MPI_Type_get_envelope(st, &ni, &na, &nt, &comb);
	CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nt == 2, "struct's envelope: %d %d %d %d", comb, ni, na, nt);
	MPI_Type_get_contents(st, 8, 4, 2, ints, addrs, got);
	CHECK(ints[0] == 2 && ints[1] == 2 && ints[2] == 1 && addrs[0] == 0 && addrs[1] == 64 && got[1] == MPI_DOUBLE,
	      "struct's contents: %d %d %d %ld %ld", ints[0], ints[1], ints[2], (long)addrs[0], (long)addrs[1]);
	MPI_Type_get_envelope(got[0], &ni, &na, &nt, &comb);
	CHECK(comb == MPI_COMBINER_VECTOR && ni == 3, "the struct's freed vector: combiner %d", comb);
	MPI_Type_free(&got[0]);
	MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_FLOAT, &sub);
	MPI_Type_get_envelope(sub, &ni, &na, &nt, &comb);
	CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nt == 1, "subarray's envelope: %d %d %d %d", comb, ni, na, nt);
	MPI_Type_get_contents(sub, 8, 4, 2, ints, addrs, got);
	CHECK(ints[0] == 2 && ints[1] == 4 && ints[2] == 6 && ints[3] == 2 && ints[4] == 3 && ints[5] == 1 && ints[6] == 2 &&
	      ints[7] == MPI_ORDER_C && got[0] == MPI_FLOAT, "subarray's contents");
	MPI_Type_free(&sub);
	MPI_Type_free(&st);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	column();
	structs();
	indexed();
	subarray();
	transpose();
	mixed();
	decoded();
	printf("types ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
