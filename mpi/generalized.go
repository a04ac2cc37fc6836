package mpi

import "sync"

// generalizedName names the requests of GeneralizedRequest.
const generalizedName = "GeneralizedRequest"

// GeneralizedRequest returns a request of c for an operation the program
// runs itself (MPI_Grequest_start), in another goroutine say: it
// completes when complete is called (MPI_Grequest_complete), with the
// status and error that the call completing the request then returns,
// and Wait, Test, Waitall and the others wait for it as for any request.
// complete may be called from any goroutine; calls after the first do
// nothing. Cancel leaves the request alone: the program cancels its own
// operation.
func GeneralizedRequest(c *Comm) (*Request, func(Status, error), error) {
	if err := c.check(generalizedName); err != nil {
		return nil, nil, err
	}
	cr := new(collRequest)
	c.requestStarted()
	var once sync.Once
	complete := func(st Status, err error) {
		once.Do(func() {
			cr.status, cr.err = &st, err
			cr.markDone(c)
		})
	}
	return &Request{c: c, coll: cr, name: generalizedName}, complete, nil
}
