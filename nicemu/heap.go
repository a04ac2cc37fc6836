package nicemu

import "fmt"

// heap allocates registrable segment memory inside one process's partition.
// Only the owning process allocates from it, so it needs no locking across
// processes. Free extents are kept sorted and coalesced (first fit).
type heap struct {
	free []extent // sorted by off
}

type extent struct{ off, size int }

const heapAlign = 64

func newHeap(off, size int) heap { return heap{free: []extent{{off, size}}} }

func (h *heap) alloc(size int) (int, error) {
	size = roundUp(size, heapAlign)
	for i, e := range h.free {
		if e.size >= size {
			if e.size == size {
				h.free = append(h.free[:i], h.free[i+1:]...)
			} else {
				h.free[i] = extent{e.off + size, e.size - size}
			}
			return e.off, nil
		}
	}
	return 0, fmt.Errorf("nicemu: segment memory exhausted: no free extent of %d bytes", size)
}

func (h *heap) release(off, size int) {
	size = roundUp(size, heapAlign)
	i := 0
	for i < len(h.free) && h.free[i].off < off {
		i++
	}
	h.free = append(h.free, extent{})
	copy(h.free[i+1:], h.free[i:])
	h.free[i] = extent{off, size}
	// Coalesce with the next and the previous extent.
	if i+1 < len(h.free) && h.free[i].off+h.free[i].size == h.free[i+1].off {
		h.free[i].size += h.free[i+1].size
		h.free = append(h.free[:i+1], h.free[i+2:]...)
	}
	if i > 0 && h.free[i-1].off+h.free[i-1].size == h.free[i].off {
		h.free[i-1].size += h.free[i].size
		h.free = append(h.free[:i], h.free[i+1:]...)
	}
}
