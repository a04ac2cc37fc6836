package nicemu

import "unsafe"

// BOTFBuffer returns the payload area of the packet image of the Window the
// next KickBOTF will send, so that a caller can write the packet image in
// place (MaxBOTF bytes) instead of copying it twice.
func (n *NIC) BOTFBuffer() []byte {
	w := n.window()
	n.botf = w + 1 // KickBOTF sends this Window
	hs := int(unsafe.Sizeof(botfHeader{}))
	return n.windows[w].image[hs : hs+MaxBOTF]
}

// KickBOTF sends the first length bytes written into BOTFBuffer to
// (dst, sid, off).
func (n *NIC) KickBOTF(dst int, sid SID, off uint64, length int) error {
	w := n.botf - 1
	switch {
	case w < 0: // no BOTFBuffer: the next Window, as before
		w = n.window()
	case n.timing != nil:
		n.timing.begin() // the header's stores, as a Window's first
	}
	n.botf = 0
	h := (*botfHeader)(unsafe.Pointer(&n.windows[w].image[0]))
	h.pgid, h.dst, h.sid, h.off, h.length = n.ent.pgid, uint64(dst), uint64(sid), off, uint64(length)
	return n.kick(w, OpBOTF)
}
