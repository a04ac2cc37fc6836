// Package nicemu emulates Martini, the network interface controller of the
// RHiNET cluster, in a shared-memory segment on one machine.
//
// The segment holds, for every process of a job, what the NIC would hold:
// a PGIDTBL entry binding its Windows to (PGID, PID), its Windows (request
// areas written by the process and kicked to start a request), a contflag
// page, a SID table naming its registered memory, a bounce buffer and a
// heap of registrable segment memory. A process opens its NIC with Open and
// issues requests:
//
//   - Push and Pull: remote write and remote read, addressed as
//     (PID, SID, offset), with optional ack or completion flags;
//   - BOTF: a whole packet image written into a Window, whose PGID field the
//     NIC overwrites so it cannot be forged;
//   - AOTF: one 8-byte store whose header was registered (and checked) in
//     the Header Buffer beforehand;
//   - CompareAndSwap and FetchAndAdd on registered segment memory.
//
// Every request passes the protection checks of the real hardware: the
// target must belong to the same job (PGID) and the SID and range must be
// registered. A refused request is never performed; it is counted in Stats,
// recorded in ErrorEvents and returned as an *AccessError.
//
// Registered memory is either segment memory (RegisterSegment), reached by a
// copy through the shared mapping, or ordinary process memory
// (RegisterMemory), reached in a single copy by Linux cross-memory attach
// (process_vm_readv/writev) or, where the kernel denies that, through the
// target's bounce buffer (see Service). Translation caches modelled on the
// RVATLB and PATLB count hits and misses. Transfers are accounted in 2 KB
// MTU packets.
//
// Beside the data network, the segment emulates a synchronisation network
// (ETL's sync/comm controller, Cenju-4's in-network barrier): 256 barrier
// controllers, claimed by a job's process for a group and addressed by id,
// each releasing a generation when every member has arrived and carrying a
// payload of up to BarrierPayloadSize bytes from every member; and
// Cenju-4-style multicast, one write by the sender reaching the processes of
// a destination bitmap, each of which takes its copy from the sender's
// multicast buffer (TryMulticast, TryDeliver). Their refusals are counted,
// recorded in ErrorEvents and returned as *AccessError like the others.
//
// The emulated hardware runs in the process that kicks a Window: requests
// complete before the call returns.
//
// # Timing
//
// A job runs under a timing profile, chosen when its segment is created
// (JobConfig.Profile, mpirun -profile). Under native, the default, the NIC
// runs at the speed of the machine's memory. Under a timed profile
// (Martini, the thesis's RHiNET-2/NI card) every PUSH, PULL, BOTF, AOTF,
// CAS and FAA is modelled stage by stage on the machine's monotonic clock,
// which all processes share: the request is issued at the host's first
// store, it reserves the NIC resources it passes (Initiator, link, the
// target's receive FIFO, the PCI buses, the Replier) so that concurrent
// requests queue as on the hardware, and the issuing process spins until
// each stage is due. It moves the data when the model says the target
// sees it, and returns when the modelled host would have gone on: when it
// saw the Window's contflag (writes) or the data (reads). A request issued
// back to back with the last one (within Profile.BackToBack, not counting
// the host work a message layer charges between them) is timed from that
// modelled moment, so a host streaming through one Window pipelines as
// the hardware did although the emulation held the previous request
// longer; a request issued after another process's data arrived is not
// back to back (it may answer that data).
//
// The thesis's latencies are ping-pong round trips halved, which contain
// its host's own part of a hop. So that the emulation's part does not come
// on top, a remote write's data moves the segment's Handoff before its
// modelled time (see MeasureHandoff). The synchronisation network and
// multicast, which Martini does not have, are not timed; nor is the time a
// system call of cross-memory attach adds to a copy into process memory.
package nicemu
