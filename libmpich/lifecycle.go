package main

// The runtime's life. Package mpi is initialized once, by MPI_Init or the
// first MPI_Session_init, whichever comes first, and finalized once
// neither the world model (MPI_Init to MPI_Finalize) nor any session uses
// it: by MPI_Finalize, or by the last MPI_Session_finalize. Package mpi
// cannot be initialized again after that, so a process whose runtime has
// ended can start neither a session nor the world model.

import (
	"sync"
	"sync/atomic"

	"github.com/rhinet-go/martini/mpi"
)

// The states of the world model, as MPI_Initialized and MPI_Finalized
// report them.
const (
	worldBefore int32 = iota // before MPI_Init
	worldUp                  // between MPI_Init and MPI_Finalize
	worldDone                // after MPI_Finalize
)

// life is what uses the runtime. The world model's state is read without
// the lock (MPI_Initialized, MPI_Finalized), which MPI_Finalize holds
// while it waits for the other processes.
var life struct {
	mu       sync.Mutex
	world    atomic.Int32 // worldBefore, worldUp or worldDone
	sessions int          // the sessions not finalized
	ended    bool         // package mpi was finalized
}

// startRuntime initializes package mpi unless it is running, and returns
// its world communicator. life.mu is held.
func startRuntime() (*mpi.Comm, error) {
	if w := mpi.World(); w != nil {
		return w, nil
	}
	if life.ended {
		return nil, errorf(errOther, "the runtime was finalized (by MPI_Finalize or the last MPI_Session_finalize) and cannot be initialized again")
	}
	if _, err := mpi.InitThread(mpi.ThreadMultiple); err != nil {
		return nil, err
	}
	w := mpi.World()
	setUniverse(w.Size())
	return w, nil
}

// stopUnused finalizes package mpi once neither the world model nor a
// session uses it. life.mu is held.
func stopUnused() error {
	if life.world.Load() == worldUp || life.sessions > 0 {
		return nil
	}
	life.ended = true
	return mpi.Finalize()
}

// enterWorld starts the world model (MPI_Init): the runtime, unless a
// session started it, and the predefined communicators.
func enterWorld() error {
	life.mu.Lock()
	defer life.mu.Unlock()
	switch life.world.Load() {
	case worldUp:
		return errorf(errOther, "MPI is already initialized")
	case worldDone:
		return errorf(errOther, "MPI_Init after MPI_Finalize")
	}
	w, err := startRuntime()
	if err != nil {
		return err
	}
	g, err := w.Group().Incl(w.Rank())
	var s *mpi.Comm
	if err == nil {
		s, err = w.CreateGroup(g, selfTag)
	}
	if err != nil {
		return err
	}
	world.Store(newCommObj(w))
	self.Store(newCommObj(s))
	life.world.Store(worldUp)
	return nil
}

// leaveWorld ends the world model (MPI_Finalize), and the runtime unless
// a session still uses it.
func leaveWorld() error {
	life.mu.Lock()
	defer life.mu.Unlock()
	if life.world.Load() != worldUp {
		return errorf(errOther, "MPI is not initialized")
	}
	life.world.Store(worldDone)
	if err := stopUnused(); err != nil {
		return err
	}
	world.Store(nil)
	self.Store(nil)
	return nil
}

// enterSession starts the runtime for a new session, unless it is
// running.
func enterSession() error {
	life.mu.Lock()
	defer life.mu.Unlock()
	if _, err := startRuntime(); err != nil {
		return err
	}
	life.sessions++
	return nil
}

// leaveSession ends a session, and the runtime unless the world model or
// another session still uses it.
func leaveSession() error {
	life.mu.Lock()
	defer life.mu.Unlock()
	life.sessions--
	return stopUnused()
}
