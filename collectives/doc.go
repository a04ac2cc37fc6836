// Package collectives holds the algorithms of MPI's collective operations,
// written once against two small interfaces: Net, the tagged point-to-point
// messages of one communicator, and Hardware, a network's optional
// synchronisation network and multicast (the barrier controller and the
// destination-bitmap multicast of the ETL and Cenju-4 papers).
//
// Algorithms work on bytes; element types enter only through an Op's
// Reducer. Each algorithm is selectable by name (see Algorithms and
// Selector), and the mpi package chooses among them by message size and
// communicator size unless told otherwise.
//
// The package knows no NIC and no MPI object: it can be tested with an
// in-process Net, and the mpi package supplies the real one.
package collectives
