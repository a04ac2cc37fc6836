// Package networks registers every network of the module with package
// llc/network: the emulated Martini NIC within a host (llc/martini) and
// TCP between hosts (llc/tcp). A program that uses MPI imports it for its
// side effect:
//
//	import _ "github.com/rhinet-go/martini/networks"
//
// Package mpi imports no network itself, so that a program links only the
// networks it imports.
package networks

import (
	_ "github.com/rhinet-go/martini/llc/martini" // the Martini NIC
	_ "github.com/rhinet-go/martini/llc/tcp"     // TCP
)
