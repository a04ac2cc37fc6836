! Fortran through MPICH's libmpichfort.so.12 onto this library: a ring
! with a status check, reductions (one in place), nonblocking calls and
! MPI_STATUS(ES)_IGNORE. Prints "fortran ok" on every rank.
program ring
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, token, status(MPI_STATUS_SIZE), next, prev, s
  double precision :: x, total
  integer :: reqs(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  if (rank == 0) then
    token = 100
    call MPI_Send(token, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, ierr)
    call MPI_Recv(token, 1, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, status, ierr)
    if (token /= 100 + nprocs - 1) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  else
    call MPI_Recv(token, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, status, ierr)
    if (status(MPI_SOURCE) /= prev) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
    token = token + 1
    call MPI_Send(token, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, ierr)
  end if
  x = rank
  call MPI_Allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= nprocs * (nprocs - 1) / 2) call MPI_Abort(MPI_COMM_WORLD, 4, ierr)
  call MPI_Recv(s, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  ! In place, and nonblocking with MPI_STATUSES_IGNORE.
  s = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (s /= nprocs) call MPI_Abort(MPI_COMM_WORLD, 5, ierr)
  call MPI_Irecv(token, 1, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, next, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (token /= prev) call MPI_Abort(MPI_COMM_WORLD, 6, ierr)
  print '(a,i0,a,i0)', 'fortran ok rank ', rank, ' of ', nprocs
  call MPI_Finalize(ierr)
end program ring
