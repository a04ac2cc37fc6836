/* Communicators and groups: split, split by type (MPI-4.0's hardware
 * types too), dup, compare, groups, MPI_COMM_SELF. Prints "comm ok" on
 * every rank. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int deletes;

static int count_delete(MPI_Comm comm, int key, void *val, void *extra) {
	deletes++;
	return MPI_SUCCESS;
}

/* attributes caches a value on MPI_COMM_WORLD under a key whose copy
 * callback is MPI_COMM_DUP_FN, checks that a duplicate has it and that
 * freeing the duplicate and deleting the attribute call the delete
 * callback. */
static void attributes(int rank) {
	int key, flag, value = 42, *got;
	MPI_Comm dup;
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, NULL);
	MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_get_attr(dup, key, &got, &flag);
	CHECK(flag && got == &value, "attribute on the duplicate: flag %d", flag);
	MPI_Comm_free(&dup);
	CHECK(deletes == 1, "deletes after free %d", deletes);
	MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
	MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag);
	CHECK(!flag && deletes == 2, "after delete: flag %d deletes %d", flag, deletes);
	MPI_Comm_free_keyval(&key);
	CHECK(key == MPI_KEYVAL_INVALID, "keyval not invalid after free");
}

/* splittypes splits by MPI-4.0's hardware split types: MPI_COMM_TYPE_HW_GUIDED
 * with the resource type mpi_shared_memory as MPI_COMM_TYPE_SHARED, without a
 * resource type MPI_COMM_NULL; MPI_COMM_TYPE_HW_UNGUIDED a strictly smaller
 * communicator, its resource type set in the info, or MPI_COMM_NULL; and
 * MPI_UNDEFINED on the odd ranks beside MPI_COMM_TYPE_SHARED on the others. */
static void splittypes(int rank, int size) {
	MPI_Comm shared, c;
	MPI_Info info;
	int ssize, n, flag;
	char v[64];
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
	MPI_Comm_size(shared, &ssize);
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c);
	CHECK(c != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory: MPI_COMM_NULL");
	MPI_Comm_size(c, &n);
	CHECK(n == ssize, "HW_GUIDED mpi_shared_memory: size %d, MPI_COMM_TYPE_SHARED's %d", n, ssize);
	MPI_Comm_free(&c);
	MPI_Info_free(&info);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c);
	CHECK(c == MPI_COMM_NULL, "HW_GUIDED without a resource type: a communicator");
	MPI_Info_create(&info);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, info, &c);
	if (c != MPI_COMM_NULL) {
		MPI_Comm_size(c, &n);
		MPI_Info_get(info, "mpi_hw_resource_type", sizeof v - 1, v, &flag);
		CHECK(n < size && flag, "HW_UNGUIDED: size %d of %d, resource type set %d", n, size, flag);
		MPI_Comm_free(&c);
	}
	MPI_Info_free(&info);
	MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
	CHECK((rank % 2 == 1) == (c == MPI_COMM_NULL), "MPI_UNDEFINED beside MPI_COMM_TYPE_SHARED");
	if (c != MPI_COMM_NULL)
		MPI_Comm_free(&c);
	MPI_Comm_free(&shared);
}

int main(int argc, char **argv) {
	int rank, size, srank, ssize, sum, res, gsize, grank, zero = 0, tr;
	int *tagub, flag;
	MPI_Comm half, dup;
	MPI_Group wg, g0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
	MPI_Comm_rank(half, &srank);
	MPI_Comm_size(half, &ssize);
	CHECK(ssize == (size + 1 - rank % 2) / 2, "split size %d", ssize);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
	int want = 0;
	for (int r = rank % 2; r < size; r += 2)
		want += r;
	CHECK(sum == want, "sum over the half %d, want %d", sum, want);
	CHECK(srank == ssize - 1 - rank / 2, "split rank %d (keys reverse the order)", srank);

	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
	CHECK(res == MPI_CONGRUENT, "compare dup %d", res);
	MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
	CHECK(res == MPI_IDENT, "compare self %d", res);
	MPI_Bcast(&size, 1, MPI_INT, 0, dup);

	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_incl(wg, 1, &zero, &g0);
	MPI_Group_size(g0, &gsize);
	MPI_Group_rank(g0, &grank);
	CHECK(gsize == 1 && grank == (rank == 0 ? 0 : MPI_UNDEFINED), "group size %d rank %d", gsize, grank);
	MPI_Group_translate_ranks(g0, 1, &zero, wg, &tr);
	CHECK(tr == 0, "translate %d", tr);
	MPI_Group_free(&g0);
	/* The even ranks, by a range. */
	int range[1][3] = {{0, size - 1, 2}}, evens;
	MPI_Group_range_incl(wg, 1, range, &g0);
	MPI_Group_size(g0, &evens);
	CHECK(evens == (size + 1) / 2, "range_incl size %d", evens);
	MPI_Group_free(&g0);
	MPI_Group_free(&wg);
	CHECK(g0 == MPI_GROUP_NULL, "group not null after free");

	MPI_Comm_size(MPI_COMM_SELF, &ssize);
	MPI_Comm_rank(MPI_COMM_SELF, &srank);
	CHECK(ssize == 1 && srank == 0, "self size %d rank %d", ssize, srank);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
	CHECK(sum == rank, "self allreduce %d", sum);

	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag);
	CHECK(flag && *tagub >= 32767, "tag ub %d", flag ? *tagub : -1);

	attributes(rank);
	splittypes(rank, size);

	/* A nonblocking duplicate, usable once its request completes. */
	MPI_Comm idup;
	MPI_Request req;
	MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, idup);
	CHECK(sum == size * (size - 1) / 2, "allreduce on idup %d", sum);
	MPI_Comm_free(&idup);

	/* The two halves joined in an intercommunicator, then merged. */
	if (size >= 2) {
		MPI_Comm parity, inter, merged;
		int rsize, msize, mrank;
		/* Ordered by rank: world ranks 0 and 1 lead the halves. */
		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
		MPI_Intercomm_create(parity, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 77, &inter);
		MPI_Comm_remote_size(inter, &rsize);
		CHECK(rsize == size / 2 + (rank % 2 == 1 ? size % 2 : 0), "remote size %d", rsize);
		MPI_Intercomm_merge(inter, rank % 2, &merged);
		MPI_Comm_size(merged, &msize);
		MPI_Comm_rank(merged, &mrank);
		CHECK(msize == size && (rank % 2 == 1 || mrank < (size + 1) / 2), "merged size %d rank %d", msize, mrank);
		MPI_Comm_free(&merged);
		MPI_Comm_free(&inter);
		MPI_Comm_free(&parity);
	}
	MPI_Comm_free(&dup);
	MPI_Comm_free(&half);
	CHECK(dup == MPI_COMM_NULL && half == MPI_COMM_NULL, "comm not null after free");
	printf("comm ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
