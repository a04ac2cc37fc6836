/*
 * imb.c: the benchmarks of the martini suite (package bench), run by the
 * system's C MPI (Open MPI, MPICH, ...), so that the suite's tables can
 * show the system MPI beside martini. It measures exactly as the Go side
 * does; see bench/peer.go, which embeds, builds and runs this file.
 *
 * Usage:
 *   mpirun -np N peer-imb -bench PingPong,Allreduce,... -sizes 0,1,2,4,...
 *          [-budget SECONDS] [-samples N] [-offcache BYTES] [-samplefloors 1]
 *
 * For every benchmark and size, rank 0 prints one line to stdout:
 *   ROW <benchmark> <bytes> <reps> <T> <TMin> <TMax> <TAvg> <MBps> <s1>,<s2>,... <f1>,<f2>,...
 * with times per operation in microseconds; the f are the job's own
 * cross-core floor after each sample (-samplefloors 1: see
 * bench/samplefloor.go), "-" where it was not measured. Errors go to
 * stderr, with a non-zero exit status.
 *
 * Written for this project; C99, MPI and GCC's __atomic builtins.
 */
#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The benchmarks, in the order and with the names of bench/names.go. */
enum bench {
	PINGPONG,
	PINGPING,
	SENDRECV,
	EXCHANGE,
	BARRIER,
	BCAST,
	REDUCE,
	ALLREDUCE,
	ALLGATHER,
	GATHER,
	SCATTER,
	ALLTOALL,
	IBARRIER,
	IBCAST,
	IREDUCE,
	IALLREDUCE,
	IALLGATHER,
	IALLTOALL,
	UNIDIR_PUT,
	UNIDIR_GET,
	ACCUMULATE,
	NBENCH
};

static const char *const bench_names[NBENCH] = {
	"PingPong", "PingPing", "Sendrecv", "Exchange",
	"Barrier", "Bcast", "Reduce", "Allreduce",
	"Allgather", "Gather", "Scatter", "Alltoall",
	"Ibarrier", "Ibcast", "Ireduce", "Iallreduce", "Iallgather", "Ialltoall",
	"Unidir_put", "Unidir_get", "Accumulate",
};

/* PingPong and PingPing run on ranks 0 and 1 only (see run_ops). */
#define P2P_RANKS 2
#define MAX_REPS (1L << 20)
#define WARMUP 2 /* untimed operations before the calibration */
#define CACHE_LINE 64
#define TAG 1000

/* The one-sided benchmarks (IMB-RMA's single transfers, non-aggregate):
 * rank 0 accesses rank 1's window under a shared lock and flushes after
 * each operation; the window and the lock live for one size (measure). */
static int is_rma(int b) { return b >= UNIDIR_PUT; }
static int is_p2p(int b) { return b <= EXCHANGE || is_rma(b); }
static int is_nbc(int b) { return b >= IBARRIER && b <= IALLTOALL; }
static int pair_only(int b) { return b == PINGPONG || b == PINGPING || is_rma(b); }
static MPI_Win rma_win;

/* The run's settings, from the command line. */
struct opts {
	int benches[NBENCH];
	int nbench;
	long *sizes;
	int nsizes;
	double budget;   /* seconds per size of each benchmark */
	int samples;
	long offcache;   /* bytes; 0 = off */
	int samplefloors;
};

/*
 * Buffers of one benchmark at one size: nslots slots, each a send buffer
 * of sstride bytes and a receive buffer of rstride bytes, used in turn so
 * that with off-cache on consecutive operations touch memory not in cache.
 */
struct bufs {
	char *spool, *rpool;
	size_t sstride, rstride;
	size_t nslots, next;
};

static int rank, nprocs;

/* mpi_fail reports a failed MPI call and ends the job. */
static void mpi_fail(const char *call, int rc, int line)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof msg, "error %d", rc);
	fprintf(stderr, "peer-imb: rank %d: line %d: %s: %s\n", rank, line, call, msg);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1); /* not reached */
}

#define MPI_CHECK(call)                                   \
	do {                                              \
		int rc_ = (call);                         \
		if (rc_ != MPI_SUCCESS)                   \
			mpi_fail(#call, rc_, __LINE__);   \
	} while (0)

/* fatal reports an error that is not MPI's and ends the job. */
static void fatal(const char *msg)
{
	fprintf(stderr, "peer-imb: rank %d: %s\n", rank, msg);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1); /* not reached */
}

/* round_up rounds n up to a multiple of the cache line (0 stays 0). */
static size_t round_up(size_t n)
{
	return (n + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
}

/*
 * bufs_init allocates the buffers benchmark b needs for messages of size
 * bytes: with off-cache, enough slots that together they exceed offcache
 * bytes.
 */
/*
 * Write a zero into every page of p: a page of its own, not the kernel's
 * shared zero page, which a buffer only ever read would map (GCC turns
 * malloc and a memset to zero into calloc, which writes nothing into
 * fresh memory). The Go side (bench.newBuffers) does the same.
 */
static void touch_pages(char *p, size_t n)
{
	volatile char *v = p;
	size_t i;

	for (i = 0; i < n; i += 4096)
		v[i] = 0;
}

static void bufs_init(struct bufs *bf, int b, size_t size, long offcache)
{
	size_t np = (size_t)nprocs, sb = 0, rb = 0, slot, stotal, rtotal;

	if (size > 0 && np > SIZE_MAX / 4 / size)
		fatal("message size too large");
	switch (b) {
	case PINGPONG: case PINGPING: case SENDRECV:
	case REDUCE: case ALLREDUCE: case IREDUCE: case IALLREDUCE:
	case UNIDIR_PUT: case UNIDIR_GET: case ACCUMULATE:
		sb = size;
		rb = size;
		break;
	case EXCHANGE:
		sb = size;
		rb = 2 * size;
		break;
	case BARRIER: case IBARRIER:
		break;
	case BCAST: case IBCAST:
		sb = size;
		break;
	case ALLGATHER: case GATHER: case IALLGATHER:
		sb = size;
		rb = np * size;
		break;
	case SCATTER:
		sb = np * size;
		rb = size;
		break;
	case ALLTOALL: case IALLTOALL:
		sb = np * size;
		rb = np * size;
		break;
	default:
		fatal("internal error: unknown benchmark");
	}
	bf->sstride = round_up(sb);
	bf->rstride = round_up(rb);
	slot = bf->sstride + bf->rstride;
	bf->nslots = 1;
	if (offcache > 0 && slot > 0)
		bf->nslots = (size_t)offcache / slot + 1;
	if (bf->sstride > 0 && bf->nslots > SIZE_MAX / bf->sstride)
		fatal("off-cache buffers too large");
	if (bf->rstride > 0 && bf->nslots > SIZE_MAX / bf->rstride)
		fatal("off-cache buffers too large");
	stotal = bf->nslots * bf->sstride;
	rtotal = bf->nslots * bf->rstride;
	/* Never malloc(0): the buffers are passed to MPI even when empty. */
	bf->spool = malloc(stotal > 0 ? stotal : 1);
	bf->rpool = malloc(rtotal > 0 ? rtotal : 1);
	if (bf->spool == NULL || bf->rpool == NULL) {
		free(bf->spool);
		free(bf->rpool);
		fatal("out of memory");
	}
	/* Touch every page now, not in the timed loops; zero is 0.0f. */
	touch_pages(bf->spool, stotal > 0 ? stotal : 1);
	touch_pages(bf->rpool, rtotal > 0 ? rtotal : 1);
	bf->next = 0;
}

static void bufs_free(struct bufs *bf)
{
	free(bf->spool);
	free(bf->rpool);
	bf->spool = bf->rpool = NULL;
}

/* bufs_next returns the buffers of the next operation. */
static void bufs_next(struct bufs *bf, char **s, char **r)
{
	size_t k = bf->next;

	bf->next = k + 1 == bf->nslots ? 0 : k + 1;
	*s = bf->spool + k * bf->sstride;
	*r = bf->rpool + k * bf->rstride;
}

/*
 * The job's own floor (bench/samplefloor.go, which this mirrors): ranks 0
 * and 1 pass a counter back and forth on a cache line of a shared-memory
 * window, FLOOR_TRIPS round trips after each sample; rank 0 gives up
 * after FLOOR_LIMIT seconds (two ranks on one CPU), and the floors of the
 * job are unknown from then on.
 */
#define FLOOR_TRIPS 1000
#define FLOOR_LIMIT 0.02
#define FLOOR_STOP UINT64_MAX

static MPI_Win floor_win = MPI_WIN_NULL;
static uint64_t *floor_line; /* NULL: no floors */
static uint64_t floor_next;

static void floor_free(void)
{
	if (floor_win != MPI_WIN_NULL)
		MPI_CHECK(MPI_Win_free(&floor_win));
	floor_line = NULL;
}

/* floor_init allocates the line; without shared memory the job measures
 * no floors. Every rank learns whether all could map it: a rank 1 that
 * could, beside a rank 0 that could not, would wait for pings that never
 * come. */
static void floor_init(void)
{
	MPI_Aint size = rank == 0 ? 128 : 0, qsize;
	int unit, ok, all;
	void *base;
	char *p = NULL;

	if (nprocs < 2 || MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &floor_win) != MPI_SUCCESS) {
		floor_win = MPI_WIN_NULL;
		return;
	}
	ok = MPI_Win_shared_query(floor_win, 0, &qsize, &unit, &p) == MPI_SUCCESS && qsize >= 128;
	MPI_CHECK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
	if (!all) {
		floor_free();
		return;
	}
	p += (CACHE_LINE - (uintptr_t)p % CACHE_LINE) % CACHE_LINE;
	floor_line = (uint64_t *)(void *)p;
}

/* floor_answer is rank 1's side of a measurement from base. */
static void floor_answer(uint64_t base)
{
	uint64_t i, v;

	for (i = 0; i < FLOOR_TRIPS; i++) {
		while ((v = __atomic_load_n(floor_line, __ATOMIC_ACQUIRE)) != base + 2 * i + 1) {
			if (v == FLOOR_STOP) {
				floor_line = NULL;
				return;
			}
		}
		__atomic_store_n(floor_line, base + 2 * i + 2, __ATOMIC_RELEASE);
	}
}

/* floor_measure returns, at rank 0, half the mean round trip of one
 * measurement in µs; 0 elsewhere and where it is unknown. */
static double floor_measure(void)
{
	uint64_t base = floor_next, i, sent, expect;
	double t0;
	long spins;

	if (floor_line == NULL || rank > 1)
		return 0;
	floor_next += 2 * FLOOR_TRIPS;
	if (rank == 1) {
		floor_answer(base);
		return 0;
	}
	t0 = MPI_Wtime();
	for (i = 0; i < FLOOR_TRIPS; i++) {
		sent = base + 2 * i + 1;
		__atomic_store_n(floor_line, sent, __ATOMIC_RELEASE);
		for (spins = 0; __atomic_load_n(floor_line, __ATOMIC_ACQUIRE) == sent; spins++) {
			if (spins % 1024 != 1023 || MPI_Wtime() - t0 <= FLOOR_LIMIT)
				continue;
			/* Give up, unless the answer came meanwhile (the
			 * exchange then fails, and the loop sees it). */
			expect = sent;
			if (__atomic_compare_exchange_n(floor_line, &expect, FLOOR_STOP, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				floor_line = NULL;
				return 0;
			}
		}
	}
	return (MPI_Wtime() - t0) * 1e6 / (2 * FLOOR_TRIPS);
}

/* run_ops runs n operations of benchmark b with messages of size bytes. */
static void run_ops(int b, int size, long n, struct bufs *bf)
{
	MPI_Comm comm = MPI_COMM_WORLD;
	/* PingPong and PingPing run between ranks 0 and 1; Sendrecv and
	 * Exchange, as in IMB, along the periodic chain of all ranks. */
	int chain = pair_only(b) ? P2P_RANKS : nprocs;
	int right = (rank + 1) % chain;
	int left = (rank - 1 + chain) % chain;
	int fcount = size / 4;
	long i;
	char *s, *r;
	MPI_Request req[3];

	if (pair_only(b) && rank >= P2P_RANKS)
		return;
	if (is_rma(b) && rank != 0)
		return; /* the target takes no part */
	for (i = 0; i < n; i++) {
		int root = (int)(i % nprocs);

		bufs_next(bf, &s, &r);
		switch (b) {
		case PINGPONG:
			if (rank == 0) {
				MPI_CHECK(MPI_Send(s, size, MPI_BYTE, 1, TAG, comm));
				MPI_CHECK(MPI_Recv(r, size, MPI_BYTE, 1, TAG, comm, MPI_STATUS_IGNORE));
			} else {
				MPI_CHECK(MPI_Recv(r, size, MPI_BYTE, 0, TAG, comm, MPI_STATUS_IGNORE));
				MPI_CHECK(MPI_Send(s, size, MPI_BYTE, 0, TAG, comm));
			}
			break;
		case PINGPING:
			MPI_CHECK(MPI_Isend(s, size, MPI_BYTE, right, TAG, comm, &req[0]));
			MPI_CHECK(MPI_Recv(r, size, MPI_BYTE, right, TAG, comm, MPI_STATUS_IGNORE));
			MPI_CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
			break;
		case SENDRECV:
			MPI_CHECK(MPI_Sendrecv(s, size, MPI_BYTE, right, TAG,
			                       r, size, MPI_BYTE, left, TAG,
			                       comm, MPI_STATUS_IGNORE));
			break;
		case EXCHANGE:
			/* The tags tell the two messages apart when left == right. */
			MPI_CHECK(MPI_Isend(s, size, MPI_BYTE, left, TAG, comm, &req[0]));
			MPI_CHECK(MPI_Isend(s, size, MPI_BYTE, right, TAG + 1, comm, &req[1]));
			MPI_CHECK(MPI_Recv(r, size, MPI_BYTE, left, TAG + 1, comm, MPI_STATUS_IGNORE));
			MPI_CHECK(MPI_Recv(r + size, size, MPI_BYTE, right, TAG, comm, MPI_STATUS_IGNORE));
			MPI_CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
			break;
		case BARRIER:
			MPI_CHECK(MPI_Barrier(comm));
			break;
		case BCAST:
			MPI_CHECK(MPI_Bcast(s, size, MPI_BYTE, root, comm));
			break;
		case REDUCE:
			MPI_CHECK(MPI_Reduce(s, r, fcount, MPI_FLOAT, MPI_SUM, root, comm));
			break;
		case ALLREDUCE:
			MPI_CHECK(MPI_Allreduce(s, r, fcount, MPI_FLOAT, MPI_SUM, comm));
			break;
		case ALLGATHER:
			MPI_CHECK(MPI_Allgather(s, size, MPI_BYTE, r, size, MPI_BYTE, comm));
			break;
		case GATHER:
			MPI_CHECK(MPI_Gather(s, size, MPI_BYTE, r, size, MPI_BYTE, root, comm));
			break;
		case SCATTER:
			MPI_CHECK(MPI_Scatter(s, size, MPI_BYTE, r, size, MPI_BYTE, root, comm));
			break;
		case ALLTOALL:
			MPI_CHECK(MPI_Alltoall(s, size, MPI_BYTE, r, size, MPI_BYTE, comm));
			break;
		/* IMB-NBC's pure mode: started here, waited for at once
		 * below; the wait frees the request. */
		case IBARRIER:
			MPI_CHECK(MPI_Ibarrier(comm, &req[0]));
			break;
		case IBCAST:
			MPI_CHECK(MPI_Ibcast(s, size, MPI_BYTE, root, comm, &req[0]));
			break;
		case IREDUCE:
			MPI_CHECK(MPI_Ireduce(s, r, fcount, MPI_FLOAT, MPI_SUM, root, comm, &req[0]));
			break;
		case IALLREDUCE:
			MPI_CHECK(MPI_Iallreduce(s, r, fcount, MPI_FLOAT, MPI_SUM, comm, &req[0]));
			break;
		case IALLGATHER:
			MPI_CHECK(MPI_Iallgather(s, size, MPI_BYTE, r, size, MPI_BYTE, comm, &req[0]));
			break;
		case IALLTOALL:
			MPI_CHECK(MPI_Ialltoall(s, size, MPI_BYTE, r, size, MPI_BYTE, comm, &req[0]));
			break;
		case UNIDIR_PUT:
			MPI_CHECK(MPI_Put(s, size, MPI_BYTE, 1, 0, size, MPI_BYTE, rma_win));
			MPI_CHECK(MPI_Win_flush(1, rma_win));
			break;
		case UNIDIR_GET:
			MPI_CHECK(MPI_Get(s, size, MPI_BYTE, 1, 0, size, MPI_BYTE, rma_win));
			MPI_CHECK(MPI_Win_flush(1, rma_win));
			break;
		case ACCUMULATE:
			MPI_CHECK(MPI_Accumulate(s, fcount, MPI_FLOAT, 1, 0, fcount, MPI_FLOAT, MPI_SUM, rma_win));
			MPI_CHECK(MPI_Win_flush(1, rma_win));
			break;
		default:
			fatal("internal error: unknown benchmark");
		}
		if (is_nbc(b))
			MPI_CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median returns the median of v[0..n-1] (n >= 1), sorting v. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	if (n % 2 == 1)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* time_ops returns the time n operations of benchmark b take on the
 * slowest rank, after a barrier. */
static double time_ops(int b, int size, long n, struct bufs *bf, MPI_Comm comm)
{
	double t0, el, t;

	MPI_CHECK(MPI_Barrier(comm));
	t0 = MPI_Wtime();
	run_ops(b, size, n, bf);
	el = MPI_Wtime() - t0;
	MPI_CHECK(MPI_Allreduce(&el, &t, 1, MPI_DOUBLE, MPI_MAX, comm));
	return t;
}

/*
 * measure times benchmark b at size bytes and, on rank 0, prints its ROW
 * line. work holds 6*samples doubles.
 */
static void measure(int b, int size, const struct opts *o, double *work)
{
	MPI_Comm comm = MPI_COMM_WORLD;
	double target = o->budget / o->samples;
	double *st = work, *smin = work + o->samples, *smax = work + 2 * o->samples;
	double *savg = work + 3 * o->samples, *sorted = work + 4 * o->samples;
	double *floors = work + 5 * o->samples;
	double t, t0, el, per, red[3], tmed, tmin = 0, tmax = 0, tavg = 0, mbps = 0;
	long n = 1, reps = 1;
	int k;
	struct bufs bf;

	bufs_init(&bf, b, (size_t)size, o->offcache);
	if (is_rma(b)) {
		void *base;
		int unit = b == ACCUMULATE ? 4 : 1;

		MPI_CHECK(MPI_Win_allocate((MPI_Aint)size, unit, MPI_INFO_NULL, comm, &base, &rma_win));
		if (rank == 0)
			MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, rma_win));
	}

	/* Warm up (connections, first touches) with WARMUP operations, then
	 * calibrate: double n until n operations take a quarter of the
	 * target on the slowest rank. A time that reaches the quarter is
	 * taken once more and the smaller kept, as bench.calibrate does: one
	 * hiccup in the few operations of the first rounds must not set the
	 * repetitions. */
	MPI_CHECK(MPI_Barrier(comm));
	run_ops(b, size, WARMUP, &bf);
	for (;;) {
		t = time_ops(b, size, n, &bf, comm);
		if (t >= target / 4 && n < MAX_REPS) {
			double again = time_ops(b, size, n, &bf, comm);

			if (again < t)
				t = again;
		}
		if (t >= target / 4 || n >= MAX_REPS)
			break;
		n *= 2;
	}
	if (rank == 0) {
		double want = t > 0 ? (double)n * target / t : (double)MAX_REPS;

		if (want >= (double)MAX_REPS) {
			reps = MAX_REPS;
		} else {
			reps = (long)want;
			if ((double)reps < want)
				reps++; /* ceil */
			if (reps < 1)
				reps = 1;
		}
	}
	MPI_CHECK(MPI_Bcast(&reps, 1, MPI_LONG, 0, comm));

	for (k = 0; k < o->samples; k++) {
		MPI_CHECK(MPI_Barrier(comm));
		t0 = MPI_Wtime();
		run_ops(b, size, reps, &bf);
		el = MPI_Wtime() - t0;
		floors[k] = floor_measure();
		per = el / (double)reps * 1e6;
		if (b == PINGPONG)
			per /= 2;
		if (is_p2p(b)) {
			st[k] = per; /* rank 0's time */
			continue;
		}
		MPI_CHECK(MPI_Reduce(&per, &red[0], 1, MPI_DOUBLE, MPI_MIN, 0, comm));
		MPI_CHECK(MPI_Reduce(&per, &red[1], 1, MPI_DOUBLE, MPI_MAX, 0, comm));
		MPI_CHECK(MPI_Reduce(&per, &red[2], 1, MPI_DOUBLE, MPI_SUM, 0, comm));
		if (rank == 0) {
			smin[k] = red[0];
			smax[k] = red[1];
			savg[k] = red[2] / nprocs;
			st[k] = red[1];
		}
	}
	bufs_free(&bf);
	if (is_rma(b)) {
		if (rank == 0)
			MPI_CHECK(MPI_Win_unlock(1, rma_win));
		MPI_CHECK(MPI_Win_free(&rma_win));
	}
	if (rank != 0)
		return;

	memcpy(sorted, st, (size_t)o->samples * sizeof *st);
	tmed = median(sorted, o->samples);
	if (is_p2p(b)) {
		double mult = b == SENDRECV ? 2 : b == EXCHANGE ? 4 : 1;

		if (tmed > 0)
			mbps = mult * size / tmed; /* bytes per µs = MB/s */
	} else {
		tmin = median(smin, o->samples);
		tmax = median(smax, o->samples);
		tavg = median(savg, o->samples);
	}
	printf("ROW %s %d %ld %.6g %.6g %.6g %.6g %.6g ",
	       bench_names[b], size, reps, tmed, tmin, tmax, tavg, mbps);
	for (k = 0; k < o->samples; k++)
		printf(k == 0 ? "%.6g" : ",%.6g", st[k]);
	for (k = 0; k < o->samples && floors[k] > 0; k++)
		;
	if (k < o->samples) {
		printf(" -\n");
	} else {
		for (k = 0; k < o->samples; k++)
			printf(k == 0 ? " %.6g" : ",%.6g", floors[k]);
		printf("\n");
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		fatal("cannot write to stdout");
}

/* parse_long reads a whole decimal integer in [lo, hi]. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* parse_benches reads a comma-separated list of benchmark names. */
static int parse_benches(char *list, struct opts *o, char *err, size_t errlen)
{
	char *tok;
	int b, j;

	o->nbench = 0;
	for (tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
		for (b = 0; b < NBENCH && strcmp(tok, bench_names[b]) != 0; b++)
			;
		if (b == NBENCH) {
			snprintf(err, errlen, "unknown benchmark %s", tok);
			return -1;
		}
		for (j = 0; j < o->nbench && o->benches[j] != b; j++)
			;
		if (j == o->nbench)
			o->benches[o->nbench++] = b;
	}
	if (o->nbench == 0) {
		snprintf(err, errlen, "-bench: no benchmark given");
		return -1;
	}
	return 0;
}

/* parse_sizes reads a comma-separated list of message sizes in bytes. */
static int parse_sizes(char *list, struct opts *o, char *err, size_t errlen)
{
	char *tok;
	size_t cap = 1;
	long v;

	for (tok = list; *tok != '\0'; tok++)
		if (*tok == ',')
			cap++;
	o->sizes = malloc(cap * sizeof *o->sizes);
	if (o->sizes == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	o->nsizes = 0;
	for (tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
		if (parse_long(tok, 0, INT_MAX, &v) != 0) {
			snprintf(err, errlen, "-sizes: bad size %s", tok);
			return -1;
		}
		o->sizes[o->nsizes++] = v;
	}
	if (o->nsizes == 0) {
		snprintf(err, errlen, "-sizes: no size given");
		return -1;
	}
	return 0;
}

/* parse_args reads the command line into o; on error it fills err. */
static int parse_args(int argc, char **argv, struct opts *o, char *err, size_t errlen)
{
	int i, have_bench = 0, have_sizes = 0;
	long v;
	char *end;

	o->budget = 1;
	o->samples = 5;
	o->offcache = 0;
	for (i = 1; i < argc; i++) {
		const char *name = argv[i];
		char *val;

		if (name[0] == '-' && name[1] == '-')
			name++;
		if (i + 1 >= argc) {
			snprintf(err, errlen, "%s: missing value", argv[i]);
			return -1;
		}
		val = argv[++i];
		if (strcmp(name, "-bench") == 0) {
			if (parse_benches(val, o, err, errlen) != 0)
				return -1;
			have_bench = 1;
		} else if (strcmp(name, "-sizes") == 0) {
			free(o->sizes);
			o->sizes = NULL;
			if (parse_sizes(val, o, err, errlen) != 0)
				return -1;
			have_sizes = 1;
		} else if (strcmp(name, "-budget") == 0) {
			errno = 0;
			o->budget = strtod(val, &end);
			if (errno != 0 || end == val || *end != '\0' ||
			    !(o->budget > 0 && o->budget < 1e6)) {
				snprintf(err, errlen, "-budget: bad value %s (seconds, > 0)", val);
				return -1;
			}
		} else if (strcmp(name, "-samples") == 0) {
			if (parse_long(val, 1, 1000000, &v) != 0) {
				snprintf(err, errlen, "-samples: bad value %s (1 or more)", val);
				return -1;
			}
			o->samples = (int)v;
		} else if (strcmp(name, "-offcache") == 0) {
			if (parse_long(val, 0, LONG_MAX, &v) != 0) {
				snprintf(err, errlen, "-offcache: bad value %s (bytes, 0 = off)", val);
				return -1;
			}
			o->offcache = v;
		} else if (strcmp(name, "-samplefloors") == 0) {
			if (parse_long(val, 0, 1, &v) != 0) {
				snprintf(err, errlen, "-samplefloors: bad value %s (0 or 1)", val);
				return -1;
			}
			o->samplefloors = (int)v;
		} else {
			snprintf(err, errlen, "unknown flag %s", argv[i - 1]);
			return -1;
		}
	}
	if (!have_bench || !have_sizes) {
		snprintf(err, errlen, "usage: %s -bench B1,B2,... -sizes S1,S2,... "
		         "[-budget SECONDS] [-samples N] [-offcache BYTES] [-samplefloors 0|1]", argv[0]);
		return -1;
	}
	for (i = 0; i < o->nbench; i++) {
		if (is_p2p(o->benches[i]) && nprocs < P2P_RANKS) {
			snprintf(err, errlen, "%s needs at least %d ranks, have %d",
			         bench_names[o->benches[i]], P2P_RANKS, nprocs);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	char err[256];
	double *work;
	int i, j;

	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "peer-imb: MPI_Init failed\n");
		return 1;
	}
	MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nprocs));

	memset(&o, 0, sizeof o);
	o.sizes = NULL;
	/* Every rank reads the same arguments, so all fail alike. */
	if (parse_args(argc, argv, &o, err, sizeof err) != 0) {
		if (rank == 0)
			fprintf(stderr, "peer-imb: %s\n", err);
		free(o.sizes);
		if (MPI_Finalize() != MPI_SUCCESS)
			fprintf(stderr, "peer-imb: rank %d: MPI_Finalize failed\n", rank);
		return 2;
	}
	work = malloc(6 * (size_t)o.samples * sizeof *work);
	if (work == NULL)
		fatal("out of memory");
	if (o.samplefloors)
		floor_init();

	for (i = 0; i < o.nbench; i++) {
		int b = o.benches[i];

		if (b == BARRIER || b == IBARRIER) {
			/* Size-less: measured once, whatever the sizes. */
			measure(b, 0, &o, work);
			continue;
		}
		for (j = 0; j < o.nsizes; j++) {
			int size = (int)o.sizes[j];

			if ((b == REDUCE || b == ALLREDUCE || b == IREDUCE || b == IALLREDUCE || b == ACCUMULATE) && size % 4 != 0)
				continue;
			measure(b, size, &o, work);
		}
	}

	floor_free();
	free(work);
	free(o.sizes);
	if (MPI_Finalize() != MPI_SUCCESS) {
		fprintf(stderr, "peer-imb: rank %d: MPI_Finalize failed\n", rank);
		return 1;
	}
	return 0;
}
