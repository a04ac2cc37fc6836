// Package readme holds the test that the README's first program, as a
// reader copies it, builds and runs under mpirun.
package readme
