package mpi

// Point-to-point calls with a derived datatype: the items are packed into
// a buffer of their own before sending and unpacked after receiving, so
// that strided or scattered data needs no copy loop in the caller. A
// datatype whose items are one contiguous run is sent in place.

// contiguous reports whether count items of dt are the count·dt.Size()
// elements at the start of the buffer.
func (dt *Datatype) contiguous() bool {
	return dt.size == 0 || dt.dense && dt.trueLB == 0 && dt.size == dt.extent
}

// packed returns count items of dt from buf as one run of elements: buf
// itself when they are contiguous there, else a packed copy.
func packed[T Type](op string, buf []T, count int, dt *Datatype) ([]T, error) {
	if err := dt.check(op, count, len(buf)); err != nil {
		return nil, err
	}
	if dt.contiguous() {
		return buf[:count*dt.size], nil
	}
	out := make([]T, count*dt.size)
	gather(buf, count, dt, out)
	return out, nil
}

// SendType sends count items of dt from buf to rank dest of c with tag
// (MPI_Send with a derived datatype). The receiver may receive them with
// any datatype of the same element type, or as plain elements.
func SendType[T Type](c *Comm, buf []T, count int, dt *Datatype, dest, tag int) error {
	p, err := packed("SendType", buf, count, dt)
	if err != nil {
		return err
	}
	return Send(c, p, dest, tag)
}

// IsendType starts sending count items of dt from buf (MPI_Isend with a
// derived datatype). The items are packed before it returns, so buf may
// be reused at once unless dt is contiguous.
func IsendType[T Type](c *Comm, buf []T, count int, dt *Datatype, dest, tag int) (*Request, error) {
	p, err := packed("IsendType", buf, count, dt)
	if err != nil {
		return nil, err
	}
	return Isend(c, p, dest, tag)
}

// RecvType receives a message from rank source (or AnySource) of c with
// tag (or AnyTag) into count items of dt in buf (MPI_Recv with a derived
// datatype). The status's Count is the number of elements received; a
// message longer than count items is an error wrapping ErrTruncate.
func RecvType[T Type](c *Comm, buf []T, count int, dt *Datatype, source, tag int) (Status, error) {
	if err := dt.check("RecvType", count, len(buf)); err != nil {
		return Status{}, err
	}
	if dt.contiguous() {
		return Recv(c, buf[:count*dt.size], source, tag)
	}
	tmp := make([]T, count*dt.size)
	st, err := Recv(c, tmp, source, tag)
	scatter(tmp[:st.Count], buf, count, dt)
	return st, err
}

// IrecvType starts receiving into count items of dt in buf (MPI_Irecv
// with a derived datatype); the items are written when the Request
// completes.
func IrecvType[T Type](c *Comm, buf []T, count int, dt *Datatype, source, tag int) (*Request, error) {
	if err := dt.check("IrecvType", count, len(buf)); err != nil {
		return nil, err
	}
	if dt.contiguous() {
		return Irecv(c, buf[:count*dt.size], source, tag)
	}
	tmp := make([]T, count*dt.size)
	return irecv(c, tmp, source, tag, func(st Status) { scatter(tmp[:st.Count], buf, count, dt) })
}
