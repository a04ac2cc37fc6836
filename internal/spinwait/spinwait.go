// Package spinwait gives a spinning waiter's hint to the processor: that
// the loop it runs only waits for a store of another processor.
//
// On amd64 the hint is PAUSE, on arm64 YIELD; elsewhere Pause does
// nothing. Intel's optimization manual gives PAUSE's purpose in a
// spin-wait loop: without it the processor runs ahead speculatively
// through the loop's loads, and when another core writes the awaited
// line it must discard that work (a memory-order machine clear) before
// the waiter goes on. How long PAUSE holds the processor differs from
// model to model; BenchmarkPause measures it.
package spinwait
