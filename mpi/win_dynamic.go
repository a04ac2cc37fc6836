package mpi

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
)

// Dynamic windows (MPI-3.1 11.2.4): a window made with no memory, to which
// each process attaches regions of its own memory, and detaches them, at
// any time, without the others' part. A target displacement is an address
// (Address, MPI_Get_address), and the displacement unit is one byte.
//
// Each process registers the memory it attaches with the networks that
// reach the window's processes, as WinCreate registers a window, and
// publishes its attachments in a table of memory the network allocates:
// for each attachment its address, its size and the region by which each
// rank reaches it. The table's region for each rank, the number of
// attachments and a generation word are control words of the window
// (ctlDynTable, ctlDynCount, ctlDynGen): the generation is odd while the
// owner changes the table, and moves at every change. An origin reads a
// target's table with one-sided reads, as it reads any memory of the
// target: the generation, the count, the table's region and the entries,
// then the generation again, and again until both readings of the
// generation agree and are even. It keeps what it read, and reads the
// generation again, reading the table again only when it moved, at its
// first access to the target after each of its synchronizations with it
// (Fence, Flush, Unlock, Complete, Sync), and when an address is not
// among the attachments it knows. An access to an address that no
// attachment covers is an error wrapping ErrRMARange naming the address.

// Control words of a dynamic window, after the PSCW ones of a window of n
// processes.
func ctlDynGen(n int) int         { return ctlPost + n }
func ctlDynCount(n int) int       { return ctlPost + n + 1 }
func ctlDynTable(n, rank int) int { return ctlPost + n + 2 + rank }

// tableFirst is the number of entries of a dynamic window's first table;
// each next one has twice as many as needed.
const tableFirst = 16

// winDynamic is a dynamic window's attachments: this process's own, and
// what it knows of the other processes'.
type winDynamic struct {
	mu sync.Mutex // attached and the tables
	// attached are this process's attachments, in table order.
	attached []attachment
	// tables are the tables allocated so far, the current one last: an
	// origin may still read an earlier one, whose contents it then
	// throws away, so they are kept until Free. regs are their
	// registrations for networks that do not serve them.
	tables []*llc.ExposeOp
	regs   []*llc.ExposeOp
	// capacity is the number of entries of the current table, and
	// tableRegions the region by which each rank reaches it.
	capacity     int
	tableRegions []llc.RegionID

	viewMu sync.Mutex // views
	// views are what this process knows of each rank's attachments.
	views []dynView
}

// attachment is memory this process attached: its address and size, its
// registrations, and the region by which each rank reaches it.
type attachment struct {
	addr, size uint64
	regs       []*llc.ExposeOp
	regions    []llc.RegionID
}

// dynView is what an origin knows of a target's attachments.
type dynView struct {
	gen     uint64 // the generation entries were read at
	known   bool   // entries were read
	checked bool   // gen was read since the last synchronization
	// entries are the target's attachments, by address.
	entries []dynEntry
	raw     []byte // the table's bytes, read into
}

// dynEntry is an attachment of a target as its table gives it.
type dynEntry struct {
	addr, size uint64
	region     llc.RegionID
}

// WinCreateDynamic makes a window with no memory on every process of c
// (MPI_Win_create_dynamic): each process then attaches memory of its own
// with Attach and detaches it with Detach, at any time. Its displacements
// are addresses (Address of the target's memory), its displacement unit
// is one byte, and, as on any window of bytes, its accumulates are of any
// element type. Collective over c.
func WinCreateDynamic(c *Comm) (*Win, error) {
	w, err := newWin[byte](c, "WinCreateDynamic")
	if err != nil {
		return nil, err
	}
	w.dyn = &winDynamic{views: make([]dynView, c.size)}
	if err := w.open("WinCreateDynamic"); err != nil {
		return nil, err
	}
	return w, nil
}

// Address returns the address of the first element of buf, the
// displacement of a dynamic window's memory that starts there
// (MPI_Get_address); Address(buf[i:]) is that of element i. buf must not
// be empty unless it was sliced from a larger one.
func Address[T Type](buf []T) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
}

// Attach attaches buf to w, a dynamic window, so that the window's
// processes access it at its address (Address) (MPI_Win_attach). It is
// local: an origin finds memory attached before its access, as MPI
// requires the program to ensure (by a message, a barrier or a one-sided
// operation telling it the address). buf must stay attached, and
// unchanged in length, until Detach; memory attached at the same address
// already fails with ErrRMAAttach.
func Attach[T Type](w *Win, buf []T) error {
	return w.attach(asBytes(buf))
}

// Detach detaches the memory attached at the start of buf (its length
// does not matter) from w, a dynamic window (MPI_Win_detach). Local; an
// address with nothing attached fails with ErrRMARange. Origins must no
// longer access it: the program ensures that, as MPI requires.
func Detach[T Type](w *Win, buf []T) error {
	return w.detach(uint64(Address(buf)))
}

// checkDynamic checks that w is a live dynamic window.
func (w *Win) checkDynamic(op string) error {
	if err := w.check(op); err != nil {
		return err
	}
	if w.dyn == nil {
		return fmt.Errorf("mpi: %s on %v, which is not dynamic: %w", op, w, ErrRMAAttach)
	}
	return nil
}

// attach registers b, attaches it and publishes the attachments.
func (w *Win) attach(b []byte) error {
	if err := w.checkDynamic("Attach"); err != nil {
		return err
	}
	a := attachment{addr: uint64(Address(b)), size: uint64(len(b))}
	d := w.dyn
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.find(a.addr) >= 0 {
		return fmt.Errorf("mpi: Attach of %d bytes at %#x: memory is attached at that address already: %w", a.size, a.addr, ErrRMAAttach)
	}
	if len(b) > 0 {
		regions, regs, err := w.reachFor(&llc.ExposeOp{Data: b}, true)
		if err != nil {
			return fmt.Errorf("mpi: Attach of %d bytes at %#x: %w: %w", a.size, a.addr, ErrRMAAttach,
				errors.Join(err, withdraw(w.ep, regs)))
		}
		a.regions, a.regs = regions, regs
	}
	list := append(slices.Clip(d.attached), a)
	if err := w.publish(list); err != nil {
		return fmt.Errorf("mpi: Attach of %d bytes at %#x: %w: %w", a.size, a.addr, ErrRMAAttach,
			errors.Join(err, withdraw(w.ep, a.regs)))
	}
	return nil
}

// detach detaches the attachment at addr: it publishes the attachments
// without it, then withdraws its registrations.
func (w *Win) detach(addr uint64) error {
	if err := w.checkDynamic("Detach"); err != nil {
		return err
	}
	d := w.dyn
	d.mu.Lock()
	defer d.mu.Unlock()
	i := d.find(addr)
	if i < 0 {
		return fmt.Errorf("mpi: Detach at %#x: no memory is attached at that address: %w", addr, ErrRMARange)
	}
	a := d.attached[i]
	if err := w.publish(slices.Delete(slices.Clone(d.attached), i, i+1)); err != nil {
		return fmt.Errorf("mpi: Detach at %#x: %w", addr, err)
	}
	if err := withdraw(w.ep, a.regs); err != nil {
		return fmt.Errorf("mpi: Detach at %#x: %w", addr, err)
	}
	return nil
}

// find returns the index of the attachment at addr, or -1. Called with
// d.mu held.
func (d *winDynamic) find(addr uint64) int {
	return slices.IndexFunc(d.attached, func(a attachment) bool { return a.addr == addr })
}

// withdraw withdraws the registrations regs.
func withdraw(ep *llc.Endpoint, regs []*llc.ExposeOp) error {
	var errs []error
	for _, r := range regs {
		errs = append(errs, ep.Expose(r, true))
	}
	return errors.Join(errs...)
}

// entryWords is the number of words of an entry of the table of a window
// of n processes: the address, the size, the region of each rank.
func entryWords(n int) int { return 2 + n }

// publish makes list this process's attachments and writes them into the
// table, first allocating a larger one if it is full: the table's regions,
// its entries and their number change while the generation word is odd.
// Called with d.mu held.
func (w *Win) publish(list []attachment) error {
	d, n := w.dyn, w.c.size
	if len(list) > d.capacity {
		if err := w.growTable(max(tableFirst, 2*len(list))); err != nil {
			return err
		}
	}
	table := d.tables[len(d.tables)-1]
	gen := w.localCtl(ctlDynGen(n))
	atomicAdd(gen, 1)
	for r, region := range d.tableRegions {
		atomic.StoreUint64(w.localCtl(ctlDynTable(n, r)), uint64(region))
	}
	for i, a := range list {
		e := i * entryWords(n)
		storeWord(table.Mem, e, a.addr)
		storeWord(table.Mem, e+1, a.size)
		for r := range n {
			var region llc.RegionID
			if a.regions != nil {
				region = a.regions[r]
			}
			storeWord(table.Mem, e+2+r, uint64(region))
		}
	}
	atomic.StoreUint64(w.localCtl(ctlDynCount(n)), uint64(len(list)))
	atomicAdd(gen, 1)
	d.attached = list
	return nil
}

// storeWord stores v as word i of mem, memory the network allocated.
func storeWord(mem []byte, i int, v uint64) {
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&mem[8*i])), v)
}

// growTable allocates a table of entries entries, reached by every rank,
// which publish makes the current one.
func (w *Win) growTable(entries int) error {
	d := w.dyn
	t := &llc.ExposeOp{Peer: w.c.toWorld(w.c.rank), Size: 8 * entries * entryWords(w.c.size)}
	if err := w.ep.Expose(t, false); err != nil {
		return fmt.Errorf("allocating a table of %d attachments: %w", entries, err)
	}
	regions, regs, err := w.reachFor(t, true)
	d.regs = append(d.regs, regs...)
	d.tables = append(d.tables, t)
	if err != nil {
		return fmt.Errorf("registering the table of attachments: %w", err)
	}
	d.capacity, d.tableRegions = entries, regions
	return nil
}

// release withdraws every attachment and table of the window.
func (d *winDynamic) release(ep *llc.Endpoint) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for _, a := range d.attached {
		errs = append(errs, withdraw(ep, a.regs))
	}
	errs = append(errs, withdraw(ep, d.regs), withdraw(ep, d.tables))
	d.attached, d.regs, d.tables, d.capacity = nil, nil, nil, 0
	return errors.Join(errs...)
}

// recheck makes the next access to each target of [lo, hi) of a dynamic
// window check for changes of the target's attachments: called by every
// synchronization.
func (w *Win) recheck(lo, hi int) {
	if w.dyn == nil {
		return
	}
	w.dyn.viewMu.Lock()
	for t := lo; t < hi; t++ {
		w.dyn.views[t].checked = false
	}
	w.dyn.viewMu.Unlock()
}

// resolve returns where the n bytes at address disp of target's
// attachments lie, or an error wrapping ErrRMARange naming the address.
func (w *Win) resolve(target, disp, n int) (winPlace, error) {
	if n == 0 {
		return winPlace{}, nil // nothing to move, wherever it is
	}
	d := w.dyn
	d.viewMu.Lock()
	defer d.viewMu.Unlock()
	v := &d.views[target]
	fresh := false
	if !v.checked {
		if err := w.refresh(target, v); err != nil {
			return winPlace{}, err
		}
		fresh = true
	}
	at, ok := v.lookup(disp, n)
	if !ok && !fresh {
		if err := w.refresh(target, v); err != nil {
			return winPlace{}, err
		}
		at, ok = v.lookup(disp, n)
	}
	if !ok {
		return winPlace{}, fmt.Errorf("%d bytes at address %#x: not attached at rank %d: %w", n, uint64(disp), target, ErrRMARange)
	}
	return at, nil
}

// lookup returns where the n bytes at address disp lie among v's
// entries: in one attachment, or across adjacent ones, one piece in each.
func (v *dynView) lookup(disp, n int) (winPlace, bool) {
	if disp < 0 || n <= 0 {
		return winPlace{}, false
	}
	addr, left := uint64(disp), uint64(n)
	var at winPlace
	for first := true; left > 0; first = false {
		e, ok := v.covering(addr)
		if !ok {
			return winPlace{}, false
		}
		off := addr - e.addr
		p := winPlace{region: e.region, off: off, limit: e.size, n: min(left, e.size-off)}
		if first {
			at = p
		} else {
			at.rest = append(at.rest, p)
		}
		addr, left = addr+p.n, left-p.n
	}
	return at, true
}

// covering returns, of the entries that cover the byte at addr, the one
// that reaches furthest.
func (v *dynView) covering(addr uint64) (dynEntry, bool) {
	// Entries before i start at or below addr.
	i, _ := slices.BinarySearchFunc(v.entries, addr, func(e dynEntry, a uint64) int {
		if e.addr <= a {
			return -1
		}
		return 1
	})
	var best dynEntry
	found := false
	for _, e := range v.entries[:i] {
		if addr-e.addr < e.size && (!found || e.addr+e.size > best.addr+best.size) {
			best, found = e, true
		}
	}
	return best, found
}

// refresh reads target's generation word and, if it moved since v was
// read (or v was never read), the target's table. Called with d.viewMu
// held.
func (w *Win) refresh(target int, v *dynView) error {
	n := w.c.size
	for tries := 0; ; tries++ {
		gen, err := w.readCtl(target, ctlDynGen(n))
		if err != nil {
			return fmt.Errorf("reading rank %d's attachments: %w", target, err)
		}
		if gen&1 == 0 && v.known && gen == v.gen {
			v.checked = true
			return nil
		}
		if gen&1 == 0 {
			ok, err := w.readTable(target, v, gen)
			if err != nil {
				return fmt.Errorf("reading rank %d's attachments: %w", target, err)
			}
			if ok {
				return nil
			}
		}
		w.backoff(tries)
	}
}

// readCtl reads control word i of target atomically.
func (w *Win) readCtl(target, i int) (uint64, error) {
	return w.run(w.ctlOp(target, llc.RMAFetchAdd, i, 0, 0))
}

// readTable reads target's table into v, and reports whether the target's
// generation word was still gen after it (else v is unchanged).
func (w *Win) readTable(target int, v *dynView, gen uint64) (bool, error) {
	n := w.c.size
	count, err := w.readCtl(target, ctlDynCount(n))
	if err != nil {
		return false, err
	}
	region, err := w.readCtl(target, ctlDynTable(n, w.c.rank))
	if err != nil {
		return false, err
	}
	size := int(count) * 8 * entryWords(n)
	if cap(v.raw) < size {
		v.raw = make([]byte, size)
	}
	raw := v.raw[:size]
	if size > 0 {
		op := w.partOp(llc.RMAGet, target, winPlace{region: llc.RegionID(region), limit: uint64(size)}, 0)
		op.Data = raw
		if _, err := w.run(op); err != nil {
			return false, err
		}
	}
	if after, err := w.readCtl(target, ctlDynGen(n)); err != nil || after != gen {
		return false, err
	}
	v.entries = v.entries[:0]
	for e := 0; e < size; e += 8 * entryWords(n) {
		word := func(i int) uint64 { return binary.LittleEndian.Uint64(raw[e+8*i:]) }
		if word(1) > 0 {
			v.entries = append(v.entries, dynEntry{addr: word(0), size: word(1), region: llc.RegionID(word(2 + w.c.rank))})
		}
	}
	slices.SortFunc(v.entries, func(a, b dynEntry) int { return cmp.Compare(a.addr, b.addr) })
	v.gen, v.known, v.checked = gen, true, true
	return true, nil
}
