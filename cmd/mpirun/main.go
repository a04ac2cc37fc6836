// Command mpirun starts the ranks of a Martini MPI job and supervises them.
//
// Usage:
//
//	mpirun -np N [flags] PROGRAM [args...]
//	mpirun -hosts HOST:SLOTS,... | -hostfile FILE [-np N] [flags] PROGRAM [args...]
//	mpirun -version
//
// PROGRAM is an executable or a Go package, which is built first (as a
// process group of its own, with its temporary files in a directory of
// mpirun's: a signal or -timeout ends the whole build, and it leaves
// nothing behind). Before that, mpirun checks what it can: a process count
// beyond what the NIC, the system or its own descriptors allow, or a bad
// MARTINI_* setting in the ranks' environment, is a usage error (status 2).
//
// mpirun creates the job's shared segment (the emulated NIC) and data
// store, starts N processes of PROGRAM with the job described in their
// environment (see package launch), each leading a process group of its
// own, and forwards their output line by line. When a rank ends, what is
// left of its process group (the descendants it left running) is killed.
// When a rank fails (a non-zero exit, a signal, a panic, an MPI Abort, an
// exit without MPI Finalize after MPI Init began, or an exit before MPI
// Init while other ranks use MPI: each rank records how far it got in
// the data store, launch.RankState) mpirun kills the others, names the
// failed rank and exits with a non-zero status. A rank that left the job
// first (its data-store connection broke the others' requests) is named
// rather than the ranks that failed because of it.
//
// Rank 0 (or the rank of -stdin, on any host) reads mpirun's standard
// input, through a pipe that mpirun copies it to, and sees its end; the
// other ranks read /dev/null. mpirun reads a terminal only while it is in
// the foreground.
//
// Flags (one dash or two: -np or --np; "mpirun -h" describes each):
//
//	-np N, -n N        number of ranks (required without -hosts or -hostfile)
//	-tag-output        prefix every line of output with "[rank] "
//	-timeout D         stop the build and the job after D (exit status 124); unset, MPIEXEC_TIMEOUT's seconds if set, as Hydra reads it
//	-x NAME[=VALUE]    export NAME (mpirun's value, or VALUE) to the ranks; repeatable
//	-genv NAME VALUE, -env NAME VALUE  the same as -x NAME=VALUE (MPICH's mpiexec)
//	-genvlist NAME,..., -envlist NAME,...  the same as -x NAME for each
//	-genvall           accepted (the default: local ranks get mpirun's environment)
//	-wdir DIR, -wd DIR the ranks' working directory
//	-stdin RANK|none   the rank that reads mpirun's standard input (default 0)
//	-output-filename DIR[:nocopy]  also write rank N's output to DIR/1/rank.N/stdout and stderr
//	-map-by slot|core|hwthread  accepted: ranks fill each host's slots in order
//	-oversubscribe     let -np exceed the slots of -hosts (ranks may always outnumber CPUs)
//	-version, -V       print the module's version and the MPI standard level
//	-eager-limit BYTES forwarded as MARTINI_EAGER_LIMIT
//	-rndv pull|push|split  forwarded as MARTINI_RNDV
//	-send-path botf|push|aotf  forwarded as MARTINI_SEND_PATH
//	-eager rings|pm|vp forwarded as MARTINI_EAGER
//	-pm-rma            with -eager pm, forwarded as MARTINI_PM_RMA=1 (PM/RHiNET's remote memory access: a rendezvous without copies above 16 KB)
//	-vp-queue BYTES    with -eager vp, forwarded as MARTINI_VP_QUEUE (PM/RHiNET-VP's receive queue, a power of two; default 256 KB)
//	-pm-ring BYTES     with -eager pm, forwarded as MARTINI_PM_RING (PM/RHiNET's rings, a power of two; default 256 KB, the thesis's testbed 128 KB)
//	-bind-to none|core|hwthread  forwarded as MARTINI_BIND (hwthread as core)
//	-no-cma            forwarded as MARTINI_NO_CMA=1
//	-no-hugepages      forwarded as MARTINI_NO_HUGEPAGES=1
//	-no-shared-lines   forwarded as MARTINI_NO_SHARED_LINES=1
//	-stats             forwarded as MARTINI_STATS=1
//	-coll C=ALG,...    forwarded as MARTINI_COLL (collective algorithms)
//	-no-coll-check     forwarded as MARTINI_NO_COLL_CHECK=1
//	-tune V[:CPUS]     forwarded as MARTINI_TUNE (the host class of the thresholds: intel, amd or generic)
//	-run-ahead on|off  forwarded as MARTINI_RUN_AHEAD (small rooted collectives return before their check settles)
//	-no-offload        forwarded as MARTINI_NO_OFFLOAD=1
//	-transport auto|martini|tcp  forwarded as MARTINI_TRANSPORT
//	-tcp-timeout D     forwarded as MARTINI_TCP_TIMEOUT (the bound of a stalled TCP connection)
//	-tcp-sndbuf BYTES  forwarded as MARTINI_TCP_SNDBUF (a TCP connection's send buffer; 0: the kernel's autotuning)
//	-profile native|martini|dimmnet2|cenju4  the NIC's timing profile
//	-clock real|virtual  the timing profile's clock
//	-host-speed F|p3-933  in virtual time, the modelled host's speed
//	-compute cpu|declared  in virtual time, what counts as computing
//	-op-rate MOPS      under -compute declared, the modelled host's Mop/s
//	-hosts H:S,..., -H H:S,..., -host H:S,...  run the ranks on hosts, S slots each (1 if not given)
//	-hostfile FILE, -f FILE, -machinefile FILE  run the ranks on the hosts of FILE (Open MPI's format)
//	-launch TEMPLATE   how to start the agent of a host (default "ssh {host}")
//	-agent-timeout D   fail when an agent has not answered D after its launch command started (default 30s; 0: no bound)
//	-if CIDR|NAME      the network that joins the hosts
//	-v                 report what mpirun does
//	-libmpich DIR      the directory of this runtime's libmpich.so.12
//
// # Jobs across hosts
//
// With -hosts or -hostfile the ranks are placed on the hosts' slots in
// order: with -hosts A:2,B:2, A runs ranks 0 and 1 and B ranks 2 and 3.
// -np defaults to the total of the slots and may not exceed it. Hosts
// named localhost, by a loopback address or by this host's name are this
// host: when every host is, the job runs on this host as without -hosts;
// otherwise mpirun starts this host's agent itself, without -launch. A
// hostfile is Open MPI's: a host a line, with slots=N (1 if not given)
// and max_slots=N (checked against slots, and otherwise ignored: mpirun
// never places more ranks on a host than its slots), "#" comments and
// blank lines. A host listed twice gets the slots of both.
//
// mpirun (the head) starts an agent on every host with the launch
// template: TEMPLATE split at blanks (no quoting), {host} replaced by the
// host's name, followed by the path of mpirun itself and the hidden
// subcommand "agent" (so "ssh B /usr/local/bin/mpirun agent", or "ip netns
// exec B ..." for network namespaces standing for hosts). mpirun and
// PROGRAM must be at the same paths on every host: a Go package is built
// once, by the head, into a temporary directory, and go run puts mpirun
// in one too, so both work only where the hosts share the file system (as
// network namespaces do); elsewhere install them (go build, go install).
// Head and agent talk through the agent's standard input and output (the
// launch command carries them). The agent reports its host's network;
// the head serves the data store over TCP on its address on the network
// of -if (the first of its addresses in that CIDR, or on that interface),
// by default on the address from which it routes to the first host that
// does not share its network stack (loopback if every host does), and
// fails asking for -if when it has no such route. It then tells each
// agent the job and its ranks. The agent creates its host's segment and
// starts its ranks as mpirun does on one host, each dialing the data
// store and proving the job's secret key (see package launch, which also
// describes the variables the ranks get), and sends the head their output
// line by line and how each ended. The head judges them as on one host,
// naming the host of a failed rank ("rank 3 (pid 1234 on B)"). When the
// job fails, is interrupted or times out, the head tells every agent to
// end its ranks (SIGTERM, then SIGKILL), and kills the launch commands of
// the agents that have not ended 2.3 seconds later. An agent whose standard input
// ends (the head or the connection to it is gone) or that is signalled
// ends its ranks and exits too.
//
// A launch command that ends before its agent answers fails the job at
// once, with its exit status (what it wrote on its standard error is
// forwarded, prefixed with its host's name). One whose agent has not
// answered -agent-timeout after it started (30 seconds by default: it
// never started the agent, or waits for a password) fails the job, naming
// the host and the command; the launch commands are then killed. The
// agent's standard output must carry nothing but the agent protocol,
// which begins with a fixed magic: a launch command that writes something
// else there first (a login banner, or a shell start-up file such as
// ~/.bashrc printing text) fails the job, quoting the line it wrote.
package main

import (
	"os"

	"github.com/rhinet-go/martini/internal/mpirun"
)

func main() { os.Exit(mpirun.Main()) }
