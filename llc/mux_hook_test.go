package llc_test

import (
	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/mux"
)

// The tests of a job over several networks multiplex them with package
// mux.
func init() {
	llc.NewTestMux = func(size int, nets []llc.Transport, procs [][]int) (llc.TestMux, error) {
		ns := make([]mux.Network, len(nets))
		for i, tr := range nets {
			ns[i] = mux.Network{Transport: tr, Procs: procs[i]}
		}
		return mux.New(size, ns)
	}
	llc.RegionNetShift = mux.RegionShift
}
