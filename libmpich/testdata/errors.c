/* Error handling: with MPI_ERRORS_RETURN, errors come back as codes of the
 * right class with a text; a function the runtime lacks returns
 * MPI_ERR_OTHER naming it. With "fatal" as argument, an error under the
 * default MPI_ERRORS_ARE_FATAL aborts the job. Prints "errors ok". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: ", rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 2); } } while (0)

static int handled, handled_class;

static void handler(MPI_Comm *comm, int *code, ...) {
	handled++;
	MPI_Error_class(*code, &handled_class);
}

int main(int argc, char **argv) {
	int rank, size, rc, class, len, provided, flag, v = 1;
	char msg[MPI_MAX_ERROR_STRING], version[MPI_MAX_LIBRARY_VERSION_STRING];
	MPI_Errhandler eh;
	MPI_File fh;
	MPI_Initialized(&flag);
	if (flag)
		return 3;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
	if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
		MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
		printf("fatal error returned\n");
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
	CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler %#x", eh);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	rc = MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_RANK, "invalid rank: class %d (code %d)", class, rc);
	MPI_Error_string(rc, msg, &len);
	CHECK(len > 0 && len == (int)strlen(msg), "error string %s", msg);

	rc = MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_COMM, "invalid comm: class %d", class);

	if (rank == 0) {
		int big[4] = {1, 2, 3, 4}, small[2];
		MPI_Send(big, 4, MPI_INT, 0, 9, MPI_COMM_WORLD);
		rc = MPI_Recv(small, 2, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Error_class(rc, &class);
		CHECK(class == MPI_ERR_TRUNCATE, "truncation: class %d", class);
	}

	/* A handler of the program's on a duplicate, which stays after
	 * MPI_Errhandler_free, and a truncation found by MPI_Wait. */
	MPI_Comm dup;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_create_errhandler(handler, &eh);
	MPI_Comm_set_errhandler(dup, eh);
	MPI_Errhandler_free(&eh);
	MPI_Send(&v, 1, MPI_INT, size + 5, 0, dup);
	CHECK(handled == 1 && handled_class == MPI_ERR_RANK, "handler called %d times, class %d", handled, handled_class);
	{
		int big[4] = {1, 2, 3, 4}, small[2];
		MPI_Request req;
		MPI_Irecv(small, 2, MPI_INT, rank, 8, dup, &req);
		MPI_Send(big, 4, MPI_INT, rank, 8, dup);
		rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Error_class(rc, &class);
		CHECK(class == MPI_ERR_TRUNCATE, "wait: class %d", class);
	}
	MPI_Comm_free(&dup);

	/* An error class and code of the program's, with their texts. */
	int myclass, mycode, *last;
	MPI_Add_error_class(&myclass);
	MPI_Add_error_code(myclass, &mycode);
	/* No string set yet: MPI_Error_string gives an empty one. */
	MPI_Error_string(myclass, msg, &len);
	CHECK(len == 0 && msg[0] == '\0', "added class without a string: \"%s\"", msg);
	MPI_Error_string(mycode, msg, &len);
	CHECK(len == 0 && msg[0] == '\0', "added code without a string: \"%s\"", msg);
	MPI_Add_error_string(mycode, "my error");
	MPI_Error_class(mycode, &class);
	MPI_Error_string(mycode, msg, &len);
	CHECK(class == myclass && strcmp(msg, "my error") == 0, "added code: class %d text %s", class, msg);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
	CHECK(flag && *last >= myclass, "last used code %d, added class %d", flag ? *last : -1, myclass);

	/* The functions this runtime lacks (MPICH has them). */
	MPI_Get_library_version(version, &len);
	if (strstr(version, "martini") == NULL)
		goto done;
	rc = MPI_File_open(MPI_COMM_WORLD, "x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
	MPI_Error_class(rc, &class);
	MPI_Error_string(rc, msg, &len);
	CHECK(class == MPI_ERR_OTHER && strstr(msg, "MPI_File_open") != NULL, "stub: class %d text %s", class, msg);
	rc = PMPI_File_close(&fh);
	MPI_Error_class(rc, &class);
	CHECK(class == MPI_ERR_OTHER, "PMPI stub: class %d", class);

done:
	MPI_Barrier(MPI_COMM_WORLD);
	printf("errors ok rank %d of %d\n", rank, size);
	MPI_Finalize();
	MPI_Finalized(&flag);
	CHECK(flag, "not finalized");
	return 0;
}
