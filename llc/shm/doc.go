// Package shm is the receiving half of load/store transports, in the
// spirit of UCX's uct/sm: the part of a translator whose peers write into
// this process's memory (a shared-memory segment, or memory a stream
// transport writes for them). A LocalMemory remembers the memory of the
// regions the transport gave the engine, reads the eager rings, the
// halves of the shared lines, the watched slots and the receive queue
// (QueueReader) the engine asked it to watch, in the format of package
// llc/layout, and steps the engine's sink with what arrived as IR events.
// After a write of its own to a peer it holds off reading that peer for a
// while (the quiet window), so that the peer's answer finds its cache
// line still in the peer's cache.
//
// The translators that use it (llc/martini, and llc/tcp through
// llc/softmem) send with their network and receive with it; the engine (package llc) reads no memory.
package shm
