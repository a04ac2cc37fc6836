// Package tuning turns facts into thresholds, once, when a process joins
// its job: what the network reports about itself (llc.Caps), the class of
// host (Host: the processors' vendor and the CPUs), the job's size and
// the user's settings go in; the protocol engine's configuration
// (llc.Config), the collectives' thresholds and how a waiting process
// uses its CPU (Waiting) come out (Plan).
//
// Every threshold that depends on the host lives in one table (table.go),
// keyed by a Class: the vendor and how the processes share the CPUs
// (Load); those that do not (the collectives' size thresholds, the
// engine's protocol constants) stay beside the code they steer. The
// host class is detected (Detected) unless MARTINI_TUNE (mpirun -tune)
// names one (ParseHost). docs/tuning.md gives the measurements behind
// each entry.
//
// The transports (llc/martini, llc/tcp), the engine (llc) and the
// collectives do not import this package: they get plain values, the
// fields of llc.Config and of collectives.Tuning.
package tuning
