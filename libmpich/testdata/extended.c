/* MPI_Alltoallw and MPI_Ialltoallw, MPI_Ireduce_scatter, MPI_Isendrecv
 * and MPI_Isendrecv_replace, the nonblocking neighbourhood v-forms,
 * attributes on datatypes and windows, MPI_Info_get_string and
 * MPI_Comm_idup_with_info. Prints "extended ok" on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int rank, size, left, right;

/* mpich is set on MPICH's own library, whose MPI_Isendrecv (4.0) returns
 * the status of its internal schedule, not the receive's, so the statuses
 * are checked on other libraries only. */
static int mpich;

/* alltoallw sends two ints to every rank and receives them as two ints,
 * or, from odd ranks, into every other int (a vector datatype). */
static void alltoallw(int nonblocking) {
	int *s = malloc(2 * size * sizeof(int)), *r = malloc(4 * size * sizeof(int));
	int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int)), *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
	MPI_Datatype *st = malloc(size * sizeof(MPI_Datatype)), *rt = malloc(size * sizeof(MPI_Datatype)), vec;
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (int j = 0; j < size; j++) {
		s[2 * j] = rank * 100 + j * 10, s[2 * j + 1] = rank * 100 + j * 10 + 1;
		sc[j] = 2, sd[j] = 2 * j * sizeof(int), st[j] = MPI_INT;
		rc[j] = j % 2 ? 1 : 2, rd[j] = 4 * j * sizeof(int), rt[j] = j % 2 ? vec : MPI_INT;
	}
	for (int i = 0; i < 4 * size; i++)
		r[i] = -1;
	if (nonblocking) {
		MPI_Request req;
		MPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	} else
		MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD);
	for (int j = 0; j < size; j++) {
		int *b = r + 4 * j, want = j * 100 + rank * 10;
		if (j % 2)
			CHECK(b[0] == want && b[2] == want + 1 && b[1] == -1 && b[3] == -1, "alltoallw(%d) from %d: %d %d %d %d", nonblocking, j, b[0], b[1], b[2], b[3]);
		else
			CHECK(b[0] == want && b[1] == want + 1 && b[2] == -1, "alltoallw(%d) from %d: %d %d %d", nonblocking, j, b[0], b[1], b[2]);
	}
	/* In place: one int of every block, exchanged. */
	for (int j = 0; j < size; j++)
		r[j] = rank * 10 + j, rc[j] = 1, rd[j] = j * sizeof(int), rt[j] = MPI_INT;
	MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, r, rc, rd, rt, MPI_COMM_WORLD);
	for (int j = 0; j < size; j++)
		CHECK(r[j] == j * 10 + rank, "alltoallw in place from %d: %d", j, r[j]);
	/* MPI_Alltoallv and MPI_Ialltoallv in place, with the same blocks. */
	for (int j = 0; j < size; j++)
		r[j] = rank * 10 + j, rc[j] = 1, rd[j] = j;
	MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
	for (int j = 0; j < size; j++)
		CHECK(r[j] == j * 10 + rank, "alltoallv in place from %d: %d", j, r[j]);
	MPI_Request req;
	MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	for (int j = 0; j < size; j++)
		CHECK(r[j] == rank * 10 + j, "ialltoallv in place from %d: %d", j, r[j]);
	MPI_Type_free(&vec);
	free(s), free(r), free(sc), free(sd), free(rc), free(rd), free(st), free(rt);
}

/* ireduceScatter sums rank+k over the ranks and scatters rank i's i+1
 * elements to it. */
static void ireduceScatter(void) {
	int total = size * (size + 1) / 2, off = rank * (rank + 1) / 2;
	int *counts = malloc(size * sizeof(int)), *s = malloc(total * sizeof(int)), *r = malloc((rank + 1) * sizeof(int));
	MPI_Request req;
	for (int i = 0; i < size; i++)
		counts[i] = i + 1;
	for (int k = 0; k < total; k++)
		s[k] = rank + k;
	MPI_Ireduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	for (int k = 0; k <= rank; k++)
		CHECK(r[k] == size * (off + k) + size * (size - 1) / 2, "ireduce_scatter %d: %d", k, r[k]);
	free(counts), free(s), free(r);
}

/* isendrecv passes values around the ring, into plain and strided
 * buffers, and in place. */
static void isendrecv(void) {
	int s[3] = {rank, rank + 1, rank + 2}, r[3] = {-1, -1, -1}, v[6], rep[4], count;
	MPI_Request reqs[2];
	MPI_Status st[2];
	MPI_Datatype vec;
	MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (int i = 0; i < 6; i++)
		v[i] = -1;
	for (int i = 0; i < 4; i++)
		rep[i] = rank * 10 + i;
	MPI_Isendrecv(s, 3, MPI_INT, right, 7, r, 3, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isendrecv(s, 3, MPI_INT, left, 8, v, 1, vec, right, 8, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, st);
	MPI_Get_count(&st[0], MPI_INT, &count);
	if (!mpich)
		CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 7 && count == 3, "isendrecv status %d %d %d", st[0].MPI_SOURCE, st[0].MPI_TAG, count);
	for (int i = 0; i < 3; i++) {
		CHECK(r[i] == left + i, "isendrecv %d: %d", i, r[i]);
		CHECK(v[2 * i] == right + i && v[2 * i + 1] == -1, "isendrecv strided %d: %d %d", i, v[2 * i], v[2 * i + 1]);
	}
	MPI_Isendrecv_replace(rep, 4, MPI_INT, left, 9, right, 9, MPI_COMM_WORLD, &reqs[0]);
	MPI_Wait(&reqs[0], &st[0]);
	if (!mpich)
		CHECK(st[0].MPI_SOURCE == right && st[0].MPI_TAG == 9, "isendrecv_replace status %d %d", st[0].MPI_SOURCE, st[0].MPI_TAG);
	for (int i = 0; i < 4; i++)
		CHECK(rep[i] == right * 10 + i, "isendrecv_replace %d: %d", i, rep[i]);
	if (!mpich) { /* MPICH 4.0's crashes with MPI_PROC_NULL at both ends */
		MPI_Isendrecv_replace(rep, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]);
		MPI_Wait(&reqs[0], &st[0]);
		CHECK(st[0].MPI_SOURCE == MPI_PROC_NULL && rep[0] == right * 10, "isendrecv_replace with MPI_PROC_NULL: %d %d", st[0].MPI_SOURCE, rep[0]);
	}
	MPI_Type_free(&vec);
}

/* ineighbor runs the nonblocking neighbourhood v-forms on a periodic
 * ring, whose neighbours are the left (block 0) and right ranks: of 3
 * ranks or more, where they differ (MPI leaves the matching of two blocks
 * between the same pair of ranks to the implementation). */
static void ineighbor(void) {
	MPI_Comm ring;
	MPI_Request req;
	int dims[1] = {size}, periods[1] = {1}, v = rank, g[2] = {-1, -1};
	int gc[2] = {1, 1}, gd[2] = {1, 0};
	int s[3] = {rank * 10, rank * 10 + 1, rank * 10 + 2}, sc[2] = {1, 2}, sd[2] = {0, 1}, r[3] = {-1, -1, -1}, rc[2] = {2, 1}, rd[2] = {1, 0};
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	MPI_Ineighbor_allgatherv(&v, 1, MPI_INT, g, gc, gd, MPI_INT, ring, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(g[1] == left && g[0] == right, "ineighbor_allgatherv %d %d", g[0], g[1]);
	MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(r[1] == left * 10 + 1 && r[2] == left * 10 + 2 && r[0] == right * 10, "ineighbor_alltoallv %d %d %d", r[0], r[1], r[2]);
	MPI_Comm_free(&ring);
}

static int deleted;

/* countDelete counts the attribute values deleted, checking the extra state. */
static int countDelete(MPI_Datatype dt, int key, void *val, void *extra) {
	deleted += *(int *)extra;
	return MPI_SUCCESS;
}

static int countWinDelete(MPI_Win win, int key, void *val, void *extra) {
	deleted += *(int *)extra;
	return MPI_SUCCESS;
}

/* typeAttrs caches values on datatypes: a dup copies them, setting again,
 * deleting and freeing run the delete callback. */
static void typeAttrs(void) {
	static int one = 1, a = 5, b = 6;
	int key, flag, *val;
	MPI_Datatype t, d;
	MPI_Type_contiguous(2, MPI_INT, &t);
	MPI_Type_create_keyval(MPI_TYPE_DUP_FN, countDelete, &key, &one);
	MPI_Type_get_attr(t, key, &val, &flag);
	CHECK(!flag, "type attribute before it is set");
	MPI_Type_set_attr(t, key, &a);
	MPI_Type_get_attr(t, key, &val, &flag);
	CHECK(flag && val == &a, "type attribute %d", flag);
	MPI_Type_dup(t, &d);
	MPI_Type_get_attr(d, key, &val, &flag);
	CHECK(flag && val == &a, "dup's type attribute %d", flag);
	MPI_Type_set_attr(t, key, &b);
	CHECK(deleted == 1, "set again: %d deleted", deleted);
	MPI_Type_delete_attr(t, key);
	CHECK(deleted == 2, "delete_attr: %d deleted", deleted);
	MPI_Type_get_attr(t, key, &val, &flag);
	CHECK(!flag, "type attribute after delete");
	MPI_Type_free(&d);
	CHECK(deleted == 3, "free: %d deleted", deleted);
	MPI_Type_set_attr(MPI_INT, key, &b);
	MPI_Type_get_attr(MPI_INT, key, &val, &flag);
	CHECK(flag && val == &b, "MPI_INT's attribute %d", flag);
	MPI_Type_delete_attr(MPI_INT, key);
	CHECK(deleted == 4, "delete on MPI_INT: %d deleted", deleted);
	MPI_Type_free_keyval(&key);
	CHECK(key == MPI_KEYVAL_INVALID, "keyval not invalid after free");
	MPI_Type_free(&t);
}

/* winAttrs caches a value on a window beside its predefined attributes;
 * freeing the window runs the delete callback. */
static void winAttrs(void) {
	static int one = 1, a = 5;
	int key, keys[4], flag, buf[4], *val;
	void *base;
	MPI_Win win;
	deleted = 0;
	MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, countWinDelete, &key, &one);
	MPI_Win_get_attr(win, key, &val, &flag);
	CHECK(!flag, "window attribute before it is set");
	MPI_Win_set_attr(win, key, &a);
	MPI_Win_get_attr(win, key, &val, &flag);
	CHECK(flag && val == &a, "window attribute %d", flag);
	MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
	CHECK(flag && base == buf, "MPI_WIN_BASE %d", flag);
	/* A keyval freed while an attribute uses it lives on until the
	 * attribute goes: the window's free still runs its callback. */
	MPI_Win_free_keyval(&key);
	CHECK(key == MPI_KEYVAL_INVALID, "win keyval not invalid after free");
	for (int i = 0; i < 4; i++)
		MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &keys[i], NULL);
	MPI_Win_free(&win);
	CHECK(deleted == 1, "win free: %d deleted", deleted);
	for (int i = 0; i < 4; i++)
		MPI_Win_free_keyval(&keys[i]);
}

/* infoString reads a value whole, cut short and by its length only. */
static void infoString(void) {
	MPI_Info info;
	char val[16];
	int len, flag;
	MPI_Info_create(&info);
	MPI_Info_set(info, "color", "blue");
	len = 0;
	MPI_Info_get_string(info, "color", &len, val, &flag);
	CHECK(flag && len == 5, "get_string length %d %d", flag, len);
	len = sizeof val;
	MPI_Info_get_string(info, "color", &len, val, &flag);
	CHECK(flag && len == 5 && strcmp(val, "blue") == 0, "get_string %s %d", val, len);
	len = 3;
	MPI_Info_get_string(info, "color", &len, val, &flag);
	CHECK(flag && len == 5 && strcmp(val, "bl") == 0, "get_string cut %s %d", val, len);
	MPI_Info_get_string(info, "size", &len, val, &flag);
	CHECK(!flag, "get_string of a missing key");
	MPI_Info_free(&info);
}

/* idupWithInfo duplicates the world and reduces over the copy. */
static void idupWithInfo(void) {
	MPI_Comm c;
	MPI_Request req;
	MPI_Info info;
	int one = 1, n = 0;
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
	MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &c, &req);
	MPI_Info_free(&info);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, c);
	CHECK(n == size, "allreduce on the idup %d", n);
	MPI_Comm_free(&c);
}

/* A generalized request's functions: the query gives a status of its
 * own, the free and cancel functions count their calls in the state. */
struct greqState {
	int freed, cancelled, cancelledComplete;
};

static int greqQuery(void *state, MPI_Status *st) {
	st->MPI_SOURCE = 3;
	st->MPI_TAG = 77;
	MPI_Status_set_elements(st, MPI_INT, 5);
	MPI_Status_set_cancelled(st, 0);
	return MPI_SUCCESS;
}

static int greqFree(void *state) {
	((struct greqState *)state)->freed++;
	return MPI_SUCCESS;
}

static int greqCancel(void *state, int complete) {
	struct greqState *g = state;
	g->cancelled++;
	g->cancelledComplete = complete;
	return MPI_SUCCESS;
}

/* greq: a generalized request is not complete until the program says,
 * then completes with its query function's status, and its free function
 * runs once; cancelling it calls the cancel function. */
static void greq(void) {
	struct greqState g = {0, 0, 0};
	MPI_Request req;
	MPI_Status st;
	int flag, n;
	MPI_Grequest_start(greqQuery, greqFree, greqCancel, &g, &req);
	MPI_Test(&req, &flag, &st);
	CHECK(!flag, "a generalized request complete before MPI_Grequest_complete");
	MPI_Cancel(&req);
	CHECK(g.cancelled == 1 && g.cancelledComplete == 0, "cancel function: %d calls, complete %d", g.cancelled, g.cancelledComplete);
	MPI_Grequest_complete(req);
	CHECK(g.freed == 0, "freed before the request was");
	MPI_Wait(&req, &st);
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(req == MPI_REQUEST_NULL && g.freed == 1, "after MPI_Wait: request %#x, freed %d times", req, g.freed);
	CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 77 && n == 5, "status of a generalized request: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, n);
	/* Complete, then freed: the free function runs at MPI_Request_free. */
	MPI_Grequest_start(greqQuery, greqFree, greqCancel, &g, &req);
	MPI_Grequest_complete(req);
	MPI_Cancel(&req);
	CHECK(g.cancelled == 2 && g.cancelledComplete == 1, "cancel function of a complete request: %d calls, complete %d", g.cancelled, g.cancelledComplete);
	MPI_Request_free(&req);
	CHECK(g.freed == 2, "free function at MPI_Request_free: %d calls", g.freed);
}

/* MPI_COMM_SELF's attributes are deleted first at MPI_Finalize, the last
 * set first: selfDeleted records the order, which main checks after
 * MPI_Finalize. */
static int selfDeleted[3], nSelfDeleted;

static int selfDelete(MPI_Comm comm, int key, void *val, void *extra) {
	if (nSelfDeleted < 3)
		selfDeleted[nSelfDeleted] = *(int *)val;
	nSelfDeleted++;
	return MPI_SUCCESS;
}

static void selfAttrs(void) {
	static int vals[3] = {0, 1, 2};
	for (int i = 0; i < 3; i++) {
		int key;
		MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, selfDelete, &key, NULL);
		MPI_Comm_set_attr(MPI_COMM_SELF, key, &vals[i]);
		MPI_Comm_free_keyval(&key);
	}
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	left = (rank + size - 1) % size, right = (rank + 1) % size;
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	MPI_Get_library_version(version, &len);
	mpich = strncmp(version, "MPICH", 5) == 0;
	alltoallw(0);
	alltoallw(1);
	ireduceScatter();
	isendrecv();
	if (size >= 3)
		ineighbor();
	typeAttrs();
	winAttrs();
	infoString();
	idupWithInfo();
	greq();
	selfAttrs();
	MPI_Finalize();
	if (nSelfDeleted != 3 || selfDeleted[0] != 2 || selfDeleted[1] != 1 || selfDeleted[2] != 0) {
		fprintf(stderr, "rank %d: MPI_COMM_SELF's attributes deleted %d times, in the order %d %d %d\n", rank,
			nSelfDeleted, selfDeleted[0], selfDeleted[1], selfDeleted[2]);
		return 1;
	}
	printf("extended ok rank %d of %d\n", rank, size);
	return 0;
}
