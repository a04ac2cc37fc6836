package main

// Communicators made from groups without a parent communicator (MPI-4.0:
// MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups), as the
// session model makes them: over the runtime's world communicator, among
// the group's members only (mpi.Comm.CreateGroup), with a tag derived
// from the program's string tag, so that disjoint groups making theirs at
// once do not meet.

import "C"

import (
	"hash/fnv"

	"github.com/rhinet-go/martini/mpi"
)

// stringTag returns the tag of string tag s: its FNV-1a hash, in MPI's
// range of tags. Two string tags of one hash are told apart by the
// groups that use them; only overlapping groups making communicators at
// once with such tags would mix their messages.
func stringTag(s string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return int(h.Sum32() & mpi.TagUB)
}

// fromGroupArgs checks the error handler and info of a call that makes a
// communicator from groups and returns the runtime's world
// communicator.
func fromGroupArgs(info, errh int32) (*mpi.Comm, error) {
	if !validErrhandler(errh) {
		return nil, errorf(errArg, "invalid error handler %#x", uint32(errh))
	}
	if _, ok := lookupInfo(info); !ok && info != infoNull {
		return nil, errorf(errInfo, "invalid info %#x", uint32(info))
	}
	w := mpi.World()
	if w == nil {
		return nil, errorf(errOther, "neither MPI_Init nor MPI_Session_init initialized MPI")
	}
	return w, nil
}

// groupValue returns the group of handle h.
func groupValue(h int32) (mpi.Group, error) {
	g, ok := lookupGroup(h)
	if !ok {
		return g, errorf(errGroup, "invalid group %#x", uint32(h))
	}
	return g, nil
}

// fromGroups runs fn, a call that makes a communicator from groups:
// build makes it over the runtime's world communicator, and its handle,
// with error handler errh, goes to out. An error is handled by errh, the
// handler the program gave for the new communicator (no communicator or
// session is at hand), or by MPI_COMM_WORLD's where errh is not one.
func fromGroups(fn string, info, errh int32, out *int32, build func(w *mpi.Comm) (*mpi.Comm, error)) int32 {
	w, err := fromGroupArgs(info, errh)
	var c *mpi.Comm
	if err == nil {
		c, err = build(w)
	}
	if err == nil {
		err = addComm(c, errh, out)
	}
	switch {
	case err == nil:
		return errSuccess
	case validErrhandler(errh):
		return raise(fn, errh, commNull, err)
	}
	return fail(fn, nil, commWorld, err)
}

// PMPI_Comm_create_from_group implements MPI_Comm_create_from_group:
// collective over the group's processes; the new communicator has error
// handler errh. info holds no hint this runtime uses.
//
//export PMPI_Comm_create_from_group
func PMPI_Comm_create_from_group(group int32, tag *C.char, info, errh int32, out *int32) (rc int32) {
	const fn = "MPI_Comm_create_from_group"
	defer guard(fn, &rc)
	return fromGroups(fn, info, errh, out, func(w *mpi.Comm) (*mpi.Comm, error) {
		g, err := groupValue(group)
		if err != nil {
			return nil, err
		}
		return w.CreateGroup(g, stringTag(C.GoString(tag)))
	})
}

// PMPI_Intercomm_create_from_groups implements
// MPI_Intercomm_create_from_groups: the local group's communicator is
// made as MPI_Comm_create_from_group makes it, then the
// intercommunicator as MPI_Intercomm_create makes it, the leaders
// exchanging the groups over a communicator of their own (leaderPair).
//
//export PMPI_Intercomm_create_from_groups
func PMPI_Intercomm_create_from_groups(lgroup, lleader, rgroup, rleader int32, tag *C.char, info, errh int32, out *int32) (rc int32) {
	const fn = "MPI_Intercomm_create_from_groups"
	defer guard(fn, &rc)
	return fromGroups(fn, info, errh, out, func(w *mpi.Comm) (*mpi.Comm, error) {
		local, err := groupValue(lgroup)
		if err != nil {
			return nil, err
		}
		remote, err := groupValue(rgroup)
		if err != nil {
			return nil, err
		}
		return intercommFromGroups(w, local, int(lleader), remote, int(rleader), stringTag(C.GoString(tag)))
	})
}

// intercommFromGroups makes the intercommunicator between local, the
// caller's group, and remote, both groups of w's processes, whose
// leaders are their ranks lleader and rleader, with tag.
func intercommFromGroups(w *mpi.Comm, local mpi.Group, lleader int, remote mpi.Group, rleader, tag int) (*mpi.Comm, error) {
	lc, err := w.CreateGroup(local, tag)
	if err != nil {
		return nil, err
	}
	var peer *mpi.Comm
	var perr error
	peerLeader := 0
	if lc.Rank() == lleader {
		// On an error peer stays nil: IntercommCreate fails at every
		// process of the local group, not only here.
		peer, peerLeader, perr = leaderPair(w, remote, rleader, tag)
	}
	ic, err := lc.IntercommCreate(lleader, peer, peerLeader, tag)
	if perr != nil {
		err = perr
	}
	if peer != nil {
		err = firstErr(err, peer.Free())
	}
	return ic, firstErr(err, lc.Free())
}

// leaderPair returns a communicator of the calling process, a leader,
// and the other group's leader, rank rleader of remote, made over w with
// tag, and that leader's rank in it: the leaders exchange their groups
// there, where no message of the program can take theirs (MPI_COMM_WORLD
// shares w's contexts).
func leaderPair(w *mpi.Comm, remote mpi.Group, rleader, tag int) (*mpi.Comm, int, error) {
	wg := w.Group()
	rs, err := remote.TranslateRanks([]int{rleader}, wg)
	if err != nil {
		return nil, 0, err
	}
	me, them := w.Rank(), rs[0]
	if them == me {
		return nil, 0, errorf(errArg, "the remote leader (rank %d of the remote group) is the calling process: the groups must be disjoint", rleader)
	}
	g, err := wg.Incl(min(me, them), max(me, them))
	var c *mpi.Comm
	if err == nil {
		c, err = w.CreateGroup(g, tag)
	}
	if err != nil {
		return nil, 0, err
	}
	return c, 1 - c.Rank(), nil
}

// firstErr returns err, or next where err is nil.
func firstErr(err, next error) error {
	if err != nil {
		return err
	}
	return next
}
