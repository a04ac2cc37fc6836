// Package memorder publishes a word of shared memory to another process
// with release ordering and nothing more: every store the caller made
// before it becomes visible no later than the word, and the caller does
// not wait for them to land.
//
// sync/atomic's stores are sequentially consistent. On amd64 that is an
// XCHG, which drains the store buffer: a process that has just written
// lines another core holds waits there for those lines to come over (a
// cache line's trip between cores) before it can go on. A word that only
// says "the stores before me are done", such as a ring's consumer count,
// needs no more than a release store, and amd64's plain MOV is one (TSO).
//
// A release store is not a full barrier: a later load may be done before
// the store lands. Where a process stores a word and then loads one that
// another process stores before loading the first (a doorbell's "may
// sleep" flag against the data that should wake it), both stores must be
// sync/atomic's.
package memorder
