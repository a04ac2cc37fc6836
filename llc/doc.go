// Package llc is the network-independent communication layer, after the
// LLC design: a protocol engine of state machines (connection through a
// common command slot, lazy ring-buffer allocation, eager send through the
// rings, rendezvous by remote read or remote write, MPI matching) that
// consumes user operations (Submit) and IR events (Step) and emits batches
// of IR commands (Ready, Advance); an Endpoint that issues those commands
// on a Transport and waits for operations; and the Transport interface,
// whose implementation
// for the emulated Martini NIC (package llc/martini) is the only
// network-aware code.
//
// Config.Eager selects the eager transport: those lazily connected rings
// (EagerRings, the default), PM/RHiNET's rings connected to every process
// at start with 2 KB-aligned records (EagerPM), or PM/RHiNET-VP's single
// receive queue that every sender enqueues into (EagerQueue). The PM
// transports report their host work to transports that charge it
// (HostCharger); as MPICH-SCore without remote memory access, they send
// every message eagerly (Config.NoRendezvous), one larger than a record
// as several (parts.go). With the rings, on a network whose memory two
// processes may both store into, each pair's small records can also go
// through the pair's shared line (Config.SharedLines, eager.go).
//
// The boundary has raft's shape: everything the network says reaches the
// engine through Step (a record arrived, a watched slot was signalled, a
// command completed, now or later), every user operation through Submit,
// and everything leaves it as batches of IR commands: Ready hands out the
// next batch (with the host work to charge, the notifications for the
// host and the engine's failure), the driver issues its commands, steps
// their completions, takes the notifications, and acknowledges it with
// Advance; what those completions cause comes out
// in the next batch, in the order it was emitted. The
// engine never calls a network and never reads network memory: a
// transport reports what arrived from its Poll (transports whose peers
// write into local memory use package llc/shm for it), may complete a
// command after Execute returns, and reports its capabilities (Caps), from
// which the engine and the layers above take their thresholds. It can be
// driven by scripted events in tests, deterministically.
//
// The layers around it have packages of their own: llc/layout is the
// format of records, rings and shared lines, which the engine writes and
// a receiver reads; llc/shm is the receiving half of load/store
// transports (it reads that memory and steps the engine with what
// arrived); llc/softmem is the memory side of a NIC done in software and
// llc/fdio the descriptors of networks reached through them, which
// translators over such networks share; the translators (llc/martini,
// llc/tcp) are the networks.
package llc
