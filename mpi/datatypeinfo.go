package mpi

// Dup returns a copy of dt (MPI_Type_dup): a Datatype with the same
// blocks, bounds and extent. A Datatype never changes, so the copy is
// interchangeable with dt; Dup is there for code ported from MPI.
func (dt *Datatype) Dup() *Datatype {
	if dt == nil {
		return nil
	}
	d := *dt
	return &d
}

// TrueLowerBound returns the displacement of the first element an item
// of dt holds, whatever lower bound Resized set (MPI_Type_get_true_extent's
// true_lb); 0 for a datatype without elements.
func (dt *Datatype) TrueLowerBound() int { return dt.trueLB }

// TrueExtent returns the distance from the first element an item of dt
// holds to just past its last one, whatever extent Resized set
// (MPI_Type_get_true_extent's true_extent); 0 for a datatype without
// elements.
func (dt *Datatype) TrueExtent() int { return dt.trueExtent }

// IsContiguous reports whether count items of dt, for any count, are the
// count·Size() elements at the start of a buffer, in order: a datatype
// whose size equals its extent may still reorder its elements (a
// transpose), and is not contiguous then.
func (dt *Datatype) IsContiguous() bool { return dt.contiguous() }
