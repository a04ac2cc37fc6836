/* Sessions (MPI-4.0 chapter 11): a session without MPI_Init (process
 * sets, communicators from groups, disjoint groups at once, an
 * intercommunicator from groups), a session beside MPI_Init (its errors
 * under MPI_ERRORS_RETURN), and accumulates of value/index pairs. An outer
 * session spans MPI_Init and MPI_Finalize. Prints "sessions ok" on every
 * rank. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); exit(2); } } while (0)
#define OK(call) do { int rc_ = (call); CHECK(rc_ == MPI_SUCCESS, "%s: error %d", #call, rc_); } while (0)

/* fromPset returns a communicator of process set pset made with tag. */
static MPI_Comm fromPset(MPI_Session s, const char *pset, const char *tag) {
	MPI_Group g;
	MPI_Comm c;
	OK(MPI_Group_from_session_pset(s, pset, &g));
	OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
	OK(MPI_Group_free(&g));
	return c;
}

/* psetSize returns the mpi_size of process set pset. */
static int psetSize(MPI_Session s, const char *pset) {
	MPI_Info info;
	char v[32];
	int flag;
	OK(MPI_Session_get_pset_info(s, pset, &info));
	OK(MPI_Info_get(info, "mpi_size", sizeof v - 1, v, &flag));
	CHECK(flag, "no mpi_size for %s", pset);
	OK(MPI_Info_free(&info));
	return atoi(v);
}

static void psets(MPI_Session s) {
	int n, i, len, world = 0, self = 0;
	char name[MPI_MAX_PSET_NAME_LEN];
	OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
	CHECK(n >= 2, "%d process sets", n);
	for (i = 0; i < n; i++) {
		len = 0;
		OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
		CHECK(len > 1 && len <= (int)sizeof name, "process set %d: length %d", i, len);
		OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
		CHECK((int)strlen(name) + 1 == len, "process set %d: %s of length %d", i, name, len);
		world |= strcmp(name, "mpi://WORLD") == 0;
		self |= strcmp(name, "mpi://SELF") == 0;
	}
	CHECK(world && self, "process sets: world %d self %d", world, self);
	CHECK(psetSize(s, "mpi://SELF") == 1, "mpi://SELF's size");
}

/* halves makes the communicators of the even and of the odd ranks at
 * once, then the intercommunicator between them, and sends across. */
static void halves(MPI_Session s) {
	MPI_Group wg, mine, other;
	MPI_Comm c, ic;
	int ranks[2][64], n[2] = {0, 0}, i, p = rank % 2, sum, r, flag, got;
	for (i = 0; i < size && i < 128; i++)
		ranks[i % 2][n[i % 2]++] = i;
	OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
	OK(MPI_Group_incl(wg, n[p], ranks[p], &mine));
	OK(MPI_Comm_create_from_group(mine, p ? "org.example.sessions.odd" : "org.example.sessions.even",
	                              MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
	OK(MPI_Comm_size(c, &r));
	CHECK(r == n[p], "half of size %d, want %d", r, n[p]);
	OK(MPI_Comm_rank(c, &r));
	CHECK(r == rank / 2, "rank %d in the half", r);
	OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
	CHECK(sum == n[p] * (n[p] - 1) + p * n[p], "half's sum %d", sum);
	if (size >= 2) {
		OK(MPI_Group_incl(wg, n[1 - p], ranks[1 - p], &other));
		OK(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "org.example.sessions.halves",
		                                    MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
		OK(MPI_Comm_test_inter(ic, &flag));
		OK(MPI_Comm_remote_size(ic, &r));
		CHECK(flag && r == n[1 - p], "intercommunicator: inter %d remote size %d", flag, r);
		if (rank < 2) {
			OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE));
			CHECK(got == 1 - rank, "got %d across", got);
		}
		OK(MPI_Barrier(ic));
		OK(MPI_Comm_free(&ic));
		OK(MPI_Group_free(&other));
	}
	OK(MPI_Comm_free(&c));
	OK(MPI_Group_free(&mine));
	OK(MPI_Group_free(&wg));
}

/* alone runs a session without MPI_Init. */
static void alone(void) {
	MPI_Session s;
	MPI_Comm world, world2, again, self;
	int sum, cmp, flag, x, y = -1;
	OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
	OK(MPI_Initialized(&flag));
	CHECK(!flag, "MPI_Initialized with a session only");
	psets(s);
	world = fromPset(s, "mpi://WORLD", "org.example.sessions.world");
	OK(MPI_Comm_rank(world, &rank));
	OK(MPI_Comm_size(world, &size));
	CHECK(psetSize(s, "mpi://WORLD") == size, "mpi://WORLD's size");
	OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, world));
	CHECK(sum == size * (size - 1) / 2, "sum %d", sum);
	/* Another tag, the name in another case; the first tag again. */
	world2 = fromPset(s, "mpi://world", "org.example.sessions.world2");
	OK(MPI_Comm_compare(world, world2, &cmp));
	CHECK(cmp == MPI_CONGRUENT, "two tags: comparison %d", cmp);
	again = fromPset(s, "mpi://WORLD", "org.example.sessions.world");
	x = rank == size - 1 ? 42 : 0;
	OK(MPI_Bcast(&x, 1, MPI_INT, size - 1, again));
	CHECK(x == 42, "bcast %d", x);
	OK(MPI_Comm_free(&world2));
	OK(MPI_Comm_free(&again));
	self = fromPset(s, "mpi://SELF", "org.example.sessions.self");
	OK(MPI_Comm_size(self, &x));
	CHECK(x == 1, "self of size %d", x);
	x = 7;
	OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, 1, &y, 1, MPI_INT, 0, 1, self, MPI_STATUS_IGNORE));
	CHECK(y == 7, "self sent %d", y);
	OK(MPI_Comm_free(&self));
	halves(s);
	OK(MPI_Comm_free(&world));
	OK(MPI_Session_finalize(&s));
	CHECK(s == MPI_SESSION_NULL, "session not null after finalize");
}

static int handled;
static MPI_Session handledOn;

static void onError(MPI_Session *s, int *code, ...) {
	handled = *code;
	handledOn = *s;
}

/* errors checks the errors of a session under MPI_ERRORS_RETURN (on
 * MPI_COMM_WORLD too: MPICH 4.0.2 raises them there) and its handlers. */
static void errors(MPI_Session s) {
	MPI_Group g;
	MPI_Info info;
	MPI_Errhandler eh;
	char name[MPI_MAX_PSET_NAME_LEN];
	int rc, class, len = sizeof name;
	rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
	MPI_Error_class(rc, &class);
	CHECK(rc != MPI_SUCCESS && class == MPI_ERR_ARG, "bad process set: class %d", class);
	rc = MPI_Session_get_pset_info(s, "mpi://NOWHERE", &info);
	MPI_Error_class(rc, &class);
	CHECK(rc != MPI_SUCCESS && class == MPI_ERR_ARG, "bad process set info: class %d", class);
	rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, name);
	MPI_Error_class(rc, &class);
	CHECK(rc != MPI_SUCCESS && class == MPI_ERR_ARG, "process set 99: class %d", class);
	OK(MPI_Session_create_errhandler(onError, &eh));
	OK(MPI_Session_set_errhandler(s, eh));
	OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
	CHECK(handled == MPI_ERR_OTHER && handledOn == s, "handler: code %d", handled);
	OK(MPI_Errhandler_free(&eh));
	OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
	OK(MPI_Session_get_errhandler(s, &eh));
	CHECK(eh == MPI_ERRORS_RETURN, "session's error handler");
}

/* beside runs a session beside MPI_Init. */
static void beside(void) {
	MPI_Session s;
	MPI_Info info, used;
	MPI_Comm c;
	char v[64];
	int flag, cmp, sum;
	OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	OK(MPI_Info_create(&info));
	OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE"));
	OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
	OK(MPI_Session_get_info(s, &used));
	OK(MPI_Info_get(used, "thread_level", sizeof v - 1, v, &flag));
	CHECK(flag && strcmp(v, "MPI_THREAD_MULTIPLE") == 0, "thread_level %s", flag ? v : "unset");
	OK(MPI_Info_free(&used));
	OK(MPI_Info_free(&info));
	c = fromPset(s, "mpi://WORLD", "org.example.sessions.beside");
	OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
	CHECK(cmp == MPI_CONGRUENT, "beside MPI_COMM_WORLD: comparison %d", cmp);
	OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
	CHECK(sum == size * (size - 1) / 2, "sum %d", sum);
	OK(MPI_Comm_free(&c));
	errors(s);
	OK(MPI_Session_finalize(&s));
}

struct dint { double v; int i; };
struct ldint { long double v; int i; };
struct sint { short v; int i; };
struct area {
	struct dint d[4];
	struct ldint l[6];
	struct sint s[4];
	int two[4][2];
};

static struct area area;

/* accumulate has every rank accumulate value/index pairs into rank 0's
 * window at once. */
static void accumulate(MPI_Win win) {
	struct dint d[4];
	struct ldint l[3];
	struct sint sv[4];
	int two[4][2], k;
	MPI_Datatype pairs2, every2;
	for (k = 0; k < 4; k++) {
		d[k].v = rank + k, d[k].i = rank;
		sv[k].v = (short)-rank, sv[k].i = rank;
		two[k][0] = rank, two[k][1] = rank;
	}
	for (k = 0; k < 3; k++)
		l[k].v = 1.0L, l[k].i = rank + 10;
	OK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &pairs2));
	OK(MPI_Type_commit(&pairs2));
	OK(MPI_Type_vector(3, 1, 2, MPI_LONG_DOUBLE_INT, &every2));
	OK(MPI_Type_commit(&every2));
	OK(MPI_Win_fence(0, win));
	OK(MPI_Accumulate(d, 2, pairs2, 0, offsetof(struct area, d), 4, MPI_DOUBLE_INT, MPI_MAXLOC, win));
	OK(MPI_Accumulate(l, 3, MPI_LONG_DOUBLE_INT, 0, offsetof(struct area, l), 1, every2, MPI_MINLOC, win));
	OK(MPI_Accumulate(sv, 4, MPI_SHORT_INT, 0, offsetof(struct area, s), 4, MPI_SHORT_INT, MPI_MAXLOC, win));
	OK(MPI_Accumulate(two, 4, MPI_2INT, 0, offsetof(struct area, two), 4, MPI_2INT, MPI_MINLOC, win));
	OK(MPI_Win_fence(0, win));
	OK(MPI_Type_free(&pairs2));
	OK(MPI_Type_free(&every2));
}

/* checkPairs checks rank 0's window after accumulate. */
static void checkPairs(void) {
	int k;
	for (k = 0; k < 4; k++) {
		CHECK(area.d[k].v == size - 1 + k && area.d[k].i == size - 1, "double_int %d: %g %d", k, area.d[k].v, area.d[k].i);
		CHECK(area.s[k].v == 0 && area.s[k].i == 0, "short_int %d: %d %d", k, area.s[k].v, area.s[k].i);
		CHECK(area.two[k][0] == 0 && area.two[k][1] == 0, "2int %d: %d %d", k, area.two[k][0], area.two[k][1]);
	}
	for (k = 0; k < 6; k++) {
		int on = k % 2 == 0;
		CHECK(area.l[k].v == (on ? 1.0L : 5.0L) && area.l[k].i == (on ? 10 : -5),
		      "long_double_int %d: %Lg %d", k, area.l[k].v, area.l[k].i);
	}
}

/* pairs runs accumulates of value/index pairs, then a get-accumulate. */
static void pairs(void) {
	MPI_Win win;
	struct dint in = {5000.0, 77}, out = {0, 0};
	int k;
	for (k = 0; k < 4; k++) {
		area.d[k].v = -1e9, area.d[k].i = -1;
		area.s[k].v = -30000, area.s[k].i = -1;
		area.two[k][0] = 1 << 30, area.two[k][1] = -1;
	}
	for (k = 0; k < 6; k++)
		area.l[k].v = 5.0L, area.l[k].i = -5;
	OK(MPI_Win_create(&area, sizeof area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	accumulate(win);
	if (rank == 0) {
		checkPairs();
		OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
		OK(MPI_Get_accumulate(&in, 1, MPI_DOUBLE_INT, &out, 1, MPI_DOUBLE_INT, 0,
		                      offsetof(struct area, d), 1, MPI_DOUBLE_INT, MPI_MAXLOC, win));
		OK(MPI_Win_unlock(0, win));
		CHECK(out.v == size - 1 && out.i == size - 1, "get_accumulate result %g %d", out.v, out.i);
		CHECK(area.d[0].v == 5000.0 && area.d[0].i == 77, "get_accumulate target %g %d", area.d[0].v, area.d[0].i);
	}
	OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
	MPI_Session outer;
	int flag;
	/* The outer session holds MPI up from the first part to the end. */
	OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &outer));
	alone();
	OK(MPI_Init(&argc, &argv));
	OK(MPI_Initialized(&flag));
	CHECK(flag, "MPI_Initialized after MPI_Init");
	OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
	beside();
	pairs();
	OK(MPI_Barrier(MPI_COMM_WORLD));
	printf("sessions ok rank %d of %d\n", rank, size);
	OK(MPI_Finalize());
	OK(MPI_Finalized(&flag));
	CHECK(flag, "MPI_Finalized after MPI_Finalize");
	OK(MPI_Session_finalize(&outer));
	return 0;
}
