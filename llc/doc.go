// Package llc is the network-independent communication layer, after the
// LLC design: a protocol engine of state machines (connection through a
// common command slot, lazy ring-buffer allocation, eager send through the
// rings, rendezvous by remote read or remote write, MPI matching) that
// consumes user operations and IR events and emits IR commands into a
// schedule queue; an Endpoint that issues those commands on a Transport and
// waits for operations; and the Transport interface, whose implementation
// for the emulated Martini NIC (package llc/martini) is the only
// network-aware code.
//
// Config.Eager selects the eager transport: those lazily connected rings
// (EagerRings, the default), PM/RHiNET's rings connected to every process
// at start with 2 KB-aligned records (EagerPM), or PM/RHiNET-VP's single
// receive queue that every sender enqueues into (EagerQueue). The PM
// transports report their host work to transports that charge it
// (HostCharger).
//
// The engine never calls a network: it can be driven by scripted events in
// tests, deterministically.
package llc
