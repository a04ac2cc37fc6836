// Package pmi lets launchers that speak PMI start a job of this runtime:
// MPICH's Hydra (mpiexec.hydra) and Slurm (srun --mpi=pmi2). A Client is
// a process's connection to its launcher's PMI server, over the
// descriptor the launcher passes in PMI_FD or to the TCP port it names in
// PMI_PORT (mpiexec.hydra -pmi-port), and serves as the job's
// datastore.Store. It speaks either wire protocol:
//
//   - PMI-1, the simple wire protocol documented by Flux's RFC 13
//     (lines of key=value attributes), whose reference server is Hydra's;
//   - PMI-2 (length-prefixed frames of key=value; attributes), spoken by
//     Slurm's mpi/pmi2 plugin and by Hydra when the client's init asks
//     for version 2.
//
// FromEnv reads PMI_FD, PMI_RANK and PMI_SIZE, or PMI_PORT and PMI_ID
// (the process's id, by which the server tells it its rank and size), and
// chooses the protocol: MARTINI_PMI=1 or 2 forces one; otherwise PMI-2 if
// PMI_JOBID is set (Slurm's plugin sets it, Hydra does not), else PMI-1.
// Launched tells a process that a PMI launcher started from one that no
// launcher did, and fails for a launcher the package cannot serve
// (PMIx's variables, or PMI's without PMI_FD or PMI_PORT).
//
// # What PMI lets the store promise
//
// The datastore.Store contract is kept, with PMI's rules where they
// differ from mpirun's data store:
//
//   - A value put by one process is visible to the others once it and
//     they have passed a fence. Get therefore asks the server again, less
//     and less often, until the key is there or the Timeout has passed; a
//     key this process put is answered at once.
//   - A key is put once: PMI servers keep the first value (Hydra keeps it
//     silently). A second Put of a key with the same value does nothing;
//     with another value it fails with ErrPutTwice. Two processes putting
//     the same key is not detected; the server keeps one of the values.
//   - Keys and values may hold any bytes. Every byte the wires cannot
//     carry (outside '!'..'~', and % = ; \ ,) travels as %XX, and a key
//     beginning with the servers' reserved PMI_ has its P escaped. The
//     escaped key and value must fit the server's limits (PMI-1's
//     get_maxes; PMI-2: 63 and 1023 bytes); a Put that does not fails
//     with ErrTooLong, naming the key, the lengths and the limit.
//   - FenceCollect finds the keys through index keys that every process
//     publishes at its fences, since the servers cannot list keys (no
//     getbyidx in Hydra); its doc comment counts its exchanges: O(n) per
//     process for a job of n processes.
//   - Fence and FenceCollect wait without a bound for the other
//     processes, but for the first, and fail with ErrServerLost instead
//     of hanging when the connection to the server breaks. Hydra ends the
//     whole job when one of its processes leaves without finalize, so a
//     fence does not wait for a dead process there; Slurm does when its
//     kill-on-bad-exit setting (srun -K) is on.
//   - The first fence, where every process meets the others in MPI's
//     Init, waits for at most the InitTimeout: MARTINI_PMI_INIT_TIMEOUT
//     (a duration such as "90s", or "0" for no bound), by default 5
//     minutes. A process that exits with success before its Init, or
//     hangs there, would otherwise hold the others forever, since Hydra
//     does not end the job for it. The error, which wraps
//     datastore.ErrTimeout, cannot name the missing processes: Hydra's
//     servers hold the puts until every process has entered the
//     barrier. After it the connection is unusable, and the process
//     ending (with a failure) ends the job.
//     On PMI-2, Hydra answers kvs-fence at once; the client completes the
//     barrier with a kvs-get that Hydra holds until every process has
//     fenced.
//   - Abort sends the protocol's abort, after which the launcher ends
//     the job: on PMI-1 with the abort's code as the job's exit status
//     (Hydra), on PMI-2 with its message (Slurm kills the job step; Hydra
//     4.0 does not know PMI-2's abort and ends the job on the unknown
//     command, exiting with 255).
//   - Close sends finalize and waits for its acknowledgement.
//
// PMI carries one request at a time: the Client's requests wait for each
// other, except Abort, which goes out even while a fence waits.
package pmi
