/* Distributed arrays (MPI_Type_create_darray) against hand-computed
 * index lists, the external32 representation (MPI_Pack_external) against
 * big-endian bytes, and datatypes of negative lower bounds and extents
 * sent, received and packed where MPI places their bytes. Prints
 * "layouts ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int rank, size;

/* mpich is set on MPICH's own library, which does not check
 * MPI_Pack_external's data representation, has no external32 size for
 * the value/index pair types, and stops on an illegal instruction packing
 * a struct of an int and a double (4.0.2). */
static int mpich;

/* darrayCase is a darray of a 2-D array of ints over a 2x2 grid: what
 * each of the 4 processes holds, in the order it packs. */
struct darrayCase {
	const char *name;
	int gsizes[2], distribs[2], dargs[2], psizes[2], order;
	int n[4];        /* elements of each process */
	int idx[4][12];  /* their indices in the array, in storage order */
};

static const struct darrayCase darrays[] = {
	{"block/block C", {4, 6}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
	 {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, {2, 2}, MPI_ORDER_C, {6, 6, 6, 6},
	 {{0, 1, 2, 6, 7, 8}, {3, 4, 5, 9, 10, 11}, {12, 13, 14, 18, 19, 20}, {15, 16, 17, 21, 22, 23}}},
	{"cyclic(2)/cyclic C", {5, 4}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC},
	 {2, MPI_DISTRIBUTE_DFLT_DARG}, {2, 2}, MPI_ORDER_C, {6, 6, 4, 4},
	 {{0, 2, 4, 6, 16, 18}, {1, 3, 5, 7, 17, 19}, {8, 10, 12, 14}, {9, 11, 13, 15}}},
	{"block/cyclic(2) Fortran", {4, 6}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
	 {MPI_DISTRIBUTE_DFLT_DARG, 2}, {2, 2}, MPI_ORDER_FORTRAN, {8, 4, 8, 4},
	 {{0, 1, 4, 5, 16, 17, 20, 21}, {8, 9, 12, 13}, {2, 3, 6, 7, 18, 19, 22, 23}, {10, 11, 14, 15}}},
	{"block(3)/none Fortran", {5, 3}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE},
	 {3, MPI_DISTRIBUTE_DFLT_DARG}, {4, 1}, MPI_ORDER_FORTRAN, {9, 6, 0, 0},
	 {{0, 1, 2, 5, 6, 7, 10, 11, 12}, {3, 4, 8, 9, 13, 14}, {0}, {0}}},
};

/* checkDarray packs the part of process p of case c from an array whose
 * elements hold their index, items of old (ints, stride ints apart), and
 * compares it with the hand-computed list. */
static void checkDarray(const struct darrayCase *c, int p, MPI_Datatype old, int stride) {
	int a[2 * 30], out[16], pos = 0, i, total = c->gsizes[0] * c->gsizes[1], sz;
	MPI_Datatype d;
	MPI_Aint lb, ext;
	for (i = 0; i < 2 * 30; i++)
		a[i] = i % stride == 0 ? i / stride : -1;
	CHECK(MPI_Type_create_darray(4, p, 2, c->gsizes, c->distribs, c->dargs, c->psizes, c->order, old, &d) == MPI_SUCCESS,
	      "darray %s of process %d", c->name, p);
	MPI_Type_commit(&d);
	MPI_Type_size(d, &sz);
	MPI_Type_get_extent(d, &lb, &ext);
	CHECK(sz == 4 * c->n[p] && lb == 0 && ext == (MPI_Aint)(total * stride * sizeof(int)),
	      "darray %s of process %d: size %d, lb %ld, extent %ld", c->name, p, sz, (long)lb, (long)ext);
	MPI_Pack(a, 1, d, out, sizeof out, &pos, MPI_COMM_SELF);
	CHECK(pos == 4 * c->n[p], "darray %s of process %d: packed %d bytes", c->name, p, pos);
	for (i = 0; i < c->n[p]; i++)
		CHECK(out[i] == c->idx[p][i], "darray %s of process %d: element %d is %d, want %d", c->name, p, i, out[i], c->idx[p][i]);
	MPI_Type_free(&d);
}

/* darray checks every case for every process of the grid, of ints and of
 * ints 8 bytes apart (a datatype that is not contiguous), its envelope,
 * and sends this process's part of the first case (when the job has 4). */
static void darray(void) {
	size_t k;
	int p, ni, na, nt, comb, ints[12], got[6];
	MPI_Datatype wide, d, t;
	MPI_Aint addr;
	MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &wide);
	for (k = 0; k < sizeof darrays / sizeof darrays[0]; k++)
		for (p = 0; p < 4; p++) {
			checkDarray(&darrays[k], p, MPI_INT, 1);
			checkDarray(&darrays[k], p, wide, 2);
		}
	/* A subarray of ints 8 bytes apart: rows 1-2, columns 2-4 of 4x6. */
	int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2}, a[48], out[6], pos = 0, i;
	static const int wantSub[6] = {8, 9, 10, 14, 15, 16};
	MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, wide, &d);
	MPI_Type_commit(&d);
	for (i = 0; i < 48; i++)
		a[i] = i % 2 == 0 ? i / 2 : -1;
	MPI_Pack(a, 1, d, out, sizeof out, &pos, MPI_COMM_SELF);
	CHECK(pos == 24 && memcmp(out, wantSub, sizeof out) == 0, "subarray of ints 8 bytes apart: %d bytes, %d %d", pos, out[0], out[5]);
	MPI_Type_free(&d);
	const struct darrayCase *c = &darrays[1];
	MPI_Type_create_darray(4, 3, 2, c->gsizes, c->distribs, c->dargs, c->psizes, c->order, MPI_INT, &d);
	MPI_Type_get_envelope(d, &ni, &na, &nt, &comb);
	CHECK(comb == MPI_COMBINER_DARRAY && ni == 12 && na == 0 && nt == 1, "darray's envelope: %d %d %d %d", comb, ni, na, nt);
	MPI_Type_get_contents(d, 12, 0, 1, ints, &addr, &t);
	CHECK(ints[0] == 4 && ints[1] == 3 && ints[2] == 2 && ints[3] == 5 && ints[4] == 4 && ints[5] == MPI_DISTRIBUTE_CYCLIC &&
	      ints[7] == 2 && ints[8] == MPI_DISTRIBUTE_DFLT_DARG && ints[9] == 2 && ints[11] == MPI_ORDER_C && t == MPI_INT,
	      "darray's contents");
	MPI_Type_free(&d);
	if (size == 4) { /* each rank sends its part of case 0 to itself, received as ints */
		int a[24], i;
		MPI_Status st;
		c = &darrays[0];
		for (i = 0; i < 24; i++)
			a[i] = 100 + i;
		MPI_Type_create_darray(4, rank, 2, c->gsizes, c->distribs, c->dargs, c->psizes, c->order, MPI_INT, &d);
		MPI_Type_commit(&d);
		MPI_Sendrecv(a, 1, d, rank, 0, got, 6, MPI_INT, rank, 0, MPI_COMM_WORLD, &st);
		for (i = 0; i < 6; i++)
			CHECK(got[i] == 100 + c->idx[rank][i], "darray sent: element %d is %d", i, got[i]);
		MPI_Type_free(&d);
	}
	MPI_Type_free(&wide);
}

/* same compares n bytes with the expected ones. */
static void same(const char *what, const unsigned char *got, const unsigned char *want, int n) {
	int i;
	for (i = 0; i < n; i++)
		CHECK(got[i] == want[i], "%s: byte %d is %02x, want %02x", what, i, got[i], want[i]);
}

/* external32 packs predefined and derived datatypes and compares their
 * bytes with big-endian encodings of the standard's sizes, and unpacks
 * them back. */
static void external32(void) {
	unsigned char buf[128];
	MPI_Aint pos = 0, sz;
	int ints[3] = {1, -2, 0x01020304}, ints2[3];
	double dbl[2] = {1.0, -2.5}, dbl2[2];
	long lng = -3, lng2 = 0;
	short sh = 0x0102;
	long double ld = 1.5L, ld2 = 0;
	static const unsigned char wantInts[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4};
	static const unsigned char wantDbl[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0x04, 0, 0, 0, 0, 0, 0};
	static const unsigned char wantMisc[] = {0xff, 0xff, 0xff, 0xfd, 1, 2, 0x3f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	CHECK(sizeof wantMisc == 22, "wantMisc has %d bytes", (int)sizeof wantMisc);
	MPI_Pack_external_size("external32", 3, MPI_INT, &sz);
	CHECK(sz == 12, "external32 size of 3 ints: %ld", (long)sz);
	MPI_Pack_external_size("external32", 2, MPI_LONG, &sz);
	CHECK(sz == 8, "external32 size of 2 longs: %ld", (long)sz);
	/* A pair type is its value and its int (MPICH 4.0's own library says 0). */
	MPI_Pack_external_size("external32", 1, MPI_DOUBLE_INT, &sz);
	CHECK(sz == 12 || mpich, "external32 size of MPI_DOUBLE_INT: %ld", (long)sz);
	MPI_Pack_external("external32", ints, 3, MPI_INT, buf, sizeof buf, &pos);
	MPI_Pack_external("external32", dbl, 2, MPI_DOUBLE, buf, sizeof buf, &pos);
	CHECK(pos == 28, "external32 position after ints and doubles: %ld", (long)pos);
	same("external32 ints", buf, wantInts, 12);
	same("external32 doubles", buf + 12, wantDbl, 16);
	MPI_Pack_external("external32", &lng, 1, MPI_LONG, buf, sizeof buf, &pos);
	MPI_Pack_external("external32", &sh, 1, MPI_SHORT, buf, sizeof buf, &pos);
	MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos);
	CHECK(pos == 50, "external32 position after long, short, long double: %ld", (long)pos);
	same("external32 long, short, long double", buf + 28, wantMisc, 22);
	pos = 0;
	MPI_Unpack_external("external32", buf, 50, &pos, ints2, 3, MPI_INT);
	MPI_Unpack_external("external32", buf, 50, &pos, dbl2, 2, MPI_DOUBLE);
	MPI_Unpack_external("external32", buf, 50, &pos, &lng2, 1, MPI_LONG);
	pos += 2;
	MPI_Unpack_external("external32", buf, 50, &pos, &ld2, 1, MPI_LONG_DOUBLE);
	CHECK(pos == 50 && memcmp(ints, ints2, sizeof ints) == 0 && dbl2[0] == 1.0 && dbl2[1] == -2.5 && lng2 == -3 && ld2 == 1.5L,
	      "external32 round trip: %d %d %d, %g %g, %ld, %Lg", ints2[0], ints2[1], ints2[2], dbl2[0], dbl2[1], lng2, ld2);
	/* A struct {int; double} (padded to 16 bytes), two items, packed as
	 * 12 bytes each; and a vector of doubles, every other one. */
	struct { int i; double d; } s[2] = {{7, 0.5}, {-1, 2.0}}, s2[2];
	int bl[2] = {1, 1};
	MPI_Aint disp[2] = {0, 8};
	MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, st, vec;
	static const unsigned char wantStruct[] = {0, 0, 0, 7, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0,
	                                           0xff, 0xff, 0xff, 0xff, 0x40, 0, 0, 0, 0, 0, 0, 0};
	MPI_Type_create_struct(2, bl, disp, types, &st);
	MPI_Type_commit(&st);
	if (!mpich) {
		pos = 0;
		MPI_Pack_external("external32", s, 2, st, buf, sizeof buf, &pos);
		CHECK(pos == 24, "external32 of 2 structs: %ld bytes", (long)pos);
		same("external32 structs", buf, wantStruct, 24);
		memset(s2, 0, sizeof s2);
		pos = 0;
		MPI_Unpack_external("external32", buf, 24, &pos, s2, 2, st);
		CHECK(pos == 24 && s2[0].i == 7 && s2[0].d == 0.5 && s2[1].i == -1 && s2[1].d == 2.0, "external32 structs back");
	}
	double v[6] = {1, 2, 3, 4, 5, 6}, v2[6] = {0};
	MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec);
	MPI_Type_commit(&vec);
	pos = 0;
	MPI_Pack_external("external32", v, 1, vec, buf, sizeof buf, &pos);
	CHECK(pos == 24 && buf[8] == 0x40 && buf[9] == 0x08, "external32 vector: %ld bytes, %02x %02x", (long)pos, buf[8], buf[9]);
	pos = 0;
	MPI_Unpack_external("external32", buf, 24, &pos, v2, 1, vec);
	CHECK(v2[0] == 1 && v2[1] == 0 && v2[2] == 3 && v2[4] == 5 && v2[5] == 0, "external32 vector back");
	if (!mpich) { /* an unknown representation, and too small a buffer, are errors */
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		int err = MPI_Pack_external_size("native", 1, MPI_INT, &sz), class;
		MPI_Error_class(err, &class);
		CHECK(class == MPI_ERR_UNSUPPORTED_DATAREP, "MPI_Pack_external_size(\"native\"): class %d", class);
		pos = 0;
		err = MPI_Pack_external("external32", v, 1, vec, buf, 20, &pos);
		CHECK(err != MPI_SUCCESS && pos == 0, "MPI_Pack_external into 20 bytes: %d", err);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}
	MPI_Type_free(&st);
	MPI_Type_free(&vec);
}

/* bounds gives a datatype's size, bounds and true bounds. */
static void bounds(const char *what, MPI_Datatype t, int size, long lb, long ext, long tlb, long text) {
	int sz;
	MPI_Aint l, e, tl, te;
	MPI_Type_size(t, &sz);
	MPI_Type_get_extent(t, &l, &e);
	MPI_Type_get_true_extent(t, &tl, &te);
	CHECK(sz == size && l == lb && e == ext && tl == tlb && te == text,
	      "%s: size %d, lb %ld, extent %ld, true lb %ld, true extent %ld; want %d %ld %ld %ld %ld",
	      what, sz, (long)l, (long)e, (long)tl, (long)te, size, lb, ext, tlb, text);
}

/* moved sends count items of t at a+at to this process, received as
 * ints and compared with want; then receives ints -1... into them and
 * checks where they landed. */
static void moved(const char *what, MPI_Datatype t, int count, int at, const int *want, int n) {
	int a[16], got[8], i, j, pos = 0;
	char packed[64];
	MPI_Status st;
	for (i = 0; i < 16; i++)
		a[i] = i;
	MPI_Sendrecv(a + at, count, t, rank, 0, got, 8, MPI_INT, rank, 0, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_INT, &j);
	CHECK(j == n, "%s: %d ints sent", what, j);
	for (i = 0; i < n; i++)
		CHECK(got[i] == want[i], "%s: sent int %d is %d, want %d", what, i, got[i], want[i]);
	MPI_Pack(a + at, count, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
	CHECK(pos == 4 * n && memcmp(packed, got, pos) == 0, "%s: packed %d bytes", what, pos);
	for (i = 0; i < n; i++)
		got[i] = -1 - i;
	MPI_Sendrecv(got, n, MPI_INT, rank, 1, a + at, count, t, rank, 1, MPI_COMM_WORLD, &st);
	for (i = 0; i < 16; i++) {
		int expect = i;
		for (j = 0; j < n; j++)
			if (want[j] == i)
				expect = -1 - j;
		CHECK(a[i] == expect, "%s: received, a[%d] is %d, want %d", what, i, a[i], expect);
	}
}

/* negative builds datatypes of negative lower bounds and extents and
 * checks their bounds and where their bytes go. */
static void negative(void) {
	MPI_Datatype four, neg, evil, rev, back, nv, lbonly, t2;
	int bl[2] = {1, 1};
	MPI_Aint d2[2] = {-8, 0}, d10 = 10;
	MPI_Datatype ty2[2] = {MPI_INT, MPI_INT}, lbt = MPI_LB;
	/* { (LB,6), 4 bytes at 0, (UB,-3) }, then 3 of them (MPICH's lbub). */
	MPI_Type_contiguous(4, MPI_BYTE, &four);
	MPI_Type_create_resized(four, 6, -9, &neg);
	bounds("resized lb 6 extent -9", neg, 4, 6, -9, 0, 4);
	MPI_Type_contiguous(3, neg, &evil);
	bounds("3 of extent -9", evil, 12, -12, 9, -18, 22);
	/* Ints backwards: extent -4, so item i is i ints before the first. */
	MPI_Type_create_resized(MPI_INT, 0, -4, &rev);
	MPI_Type_commit(&rev);
	bounds("int of extent -4", rev, 4, 0, -4, 0, 4);
	int wantRev[3] = {9, 8, 7};
	moved("3 ints of extent -4", rev, 3, 9, wantRev, 3);
	/* Two ints at -8 and 0: true lb -8, extent 12. */
	MPI_Type_create_struct(2, bl, d2, ty2, &back);
	MPI_Type_commit(&back);
	bounds("ints at -8 and 0", back, 8, -8, 12, -8, 12);
	int wantBack[4] = {4, 6, 7, 9};
	moved("2 items of ints at -8 and 0", back, 2, 6, wantBack, 4);
	/* A vector of negative stride. */
	MPI_Type_vector(3, 1, -2, MPI_INT, &nv);
	MPI_Type_commit(&nv);
	bounds("vector stride -2", nv, 12, -16, 20, -16, 20);
	int wantNv[3] = {10, 8, 6};
	moved("vector stride -2", nv, 1, 10, wantNv, 3);
	/* Negative extent and lb of a resized type, two of them sent. */
	MPI_Type_create_resized(back, -4, -12, &t2);
	MPI_Type_commit(&t2);
	bounds("ints at -8 and 0, extent -12", t2, 8, -4, -12, -8, 12);
	int wantT2[4] = {10, 12, 7, 9};
	moved("2 items of extent -12", t2, 2, 12, wantT2, 4);
	/* A marker alone: { (LB,10) }, whose upper bound is 0. */
	MPI_Type_create_struct(1, bl, &d10, &lbt, &lbonly);
	bounds("LB alone", lbonly, 0, 10, -10, 0, 0);
	MPI_Type_free(&four);
	MPI_Type_free(&neg);
	MPI_Type_free(&evil);
	MPI_Type_free(&rev);
	MPI_Type_free(&back);
	MPI_Type_free(&nv);
	MPI_Type_free(&t2);
	MPI_Type_free(&lbonly);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	MPI_Get_library_version(version, &len);
	mpich = strncmp(version, "MPICH", 5) == 0;
	darray();
	external32();
	negative();
	printf("layouts ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
