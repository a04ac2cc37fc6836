package tcp

import (
	"bytes"
	"errors"
	"testing"
	"unsafe"

	"github.com/rhinet-go/martini/llc"
)

// testFamily is the combiners' family of this package's tests: code 1
// adds the operand's bytes to the target's.
const testFamily = 0xfd

func init() {
	llc.RegisterCombiner(testFamily, func(code uint32, cur, operand []byte) error {
		if code&0xffffff != 1 || len(operand) != len(cur) {
			return errors.New("not a test code")
		}
		for i := range cur {
			cur[i] += operand[i]
		}
		return nil
	})
}

// combineCmd returns a combination of the test family at (r, off) under
// the lock word at offset 8 of region lock.
func combineCmd(r, lock llc.RegionID, off uint64, data, result []byte, token uint64) llc.Command {
	return llc.Command{Kind: llc.CmdCombine, Peer: 1, Region: r, Off: off, Data: data, Result: result,
		New: testFamily<<24 | 1, Size: int(lock), Old: 8, Token: token}
}

// combineFabric returns two processes and, registered at process 1, 64
// bytes to combine into (mem, region r) and two words whose second is
// the lock's (words, region lock).
func combineFabric(t *testing.T) (x *fabric, mem []byte, words []uint64, r, lock llc.RegionID) {
	x = newFabric(t, 2, Options{})
	mem, words = make([]byte, 64), make([]uint64, 2)
	return x, mem, words, x.region(1, mem), x.region(1, unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 16))
}

// Combinations are applied by the target under the lock, with the bytes
// before sent back when they are wanted, and fail with the target's
// error for a code nobody registered or a lock outside the memory.
func TestCombineServed(t *testing.T) {
	x, mem, words, r, lock := combineFabric(t)
	copy(mem[4:], []byte{1, 2, 3, 4})
	before := make([]byte, 4)
	if ev := x.do(0, combineCmd(r, lock, 4, []byte{10, 10, 10, 10}, before, 1)); ev.Kind != llc.EvDone {
		t.Fatalf("combination: %+v", ev)
	}
	if !bytes.Equal(before, []byte{1, 2, 3, 4}) || !bytes.Equal(mem[4:8], []byte{11, 12, 13, 14}) {
		t.Fatalf("fetched %v, memory %v; want [1 2 3 4], [11 12 13 14]", before, mem[4:8])
	}
	if ev := x.do(0, combineCmd(r, lock, 4, []byte{1, 1, 1, 1}, nil, 2)); ev.Kind != llc.EvDone || !bytes.Equal(mem[4:8], []byte{12, 13, 14, 15}) {
		t.Fatalf("combination without the bytes before: %+v, memory %v", ev, mem[4:8])
	}
	if w := words[1]; w != 2*llc.TicketDraw+2 {
		t.Fatalf("lock word %#x after two combinations, want %#x", w, 2*llc.TicketDraw+2)
	}
	// Word by word, without the lock (its region 0).
	copy(mem[8:], []byte{7})
	before = make([]byte, 16)
	if ev := x.do(0, combineCmd(r, 0, 8, bytes.Repeat([]byte{1}, 16), before, 5)); ev.Kind != llc.EvDone {
		t.Fatalf("combination word by word: %+v", ev)
	}
	if before[0] != 7 || !bytes.Equal(mem[8:24], append([]byte{8}, bytes.Repeat([]byte{1}, 15)...)) || words[1] != 2*llc.TicketDraw+2 {
		t.Fatalf("word by word: fetched %v, memory %v, lock word %#x", before, mem[8:24], words[1])
	}
	wantErr(t, "word by word, unaligned", x.do(0, combineCmd(r, 0, 4, []byte{1, 1, 1, 1}, nil, 6)), 6, "word by word")
	// Word by word in memory the target allocated, which only it has.
	ev := llc.Outcome(x.trs[1].Execute(&llc.Command{Kind: llc.CmdAlloc, Size: 64, Token: 1}))
	own, ownMem := llc.RegionID(ev.Value), ev.Mem
	ownMem[8] = 3
	if ev := x.do(0, combineCmd(own, 0, 8, bytes.Repeat([]byte{2}, 16), before, 7)); ev.Kind != llc.EvDone {
		t.Fatalf("combination word by word in the target's own memory: %+v", ev)
	}
	if before[0] != 3 || !bytes.Equal(ownMem[8:24], append([]byte{5}, bytes.Repeat([]byte{2}, 15)...)) {
		t.Fatalf("word by word in the target's own memory: fetched %v, memory %v", before, ownMem[8:24])
	}
	bad := combineCmd(r, lock, 0, []byte{1}, nil, 3)
	bad.New = testFamily<<24 | 2
	wantErr(t, "unknown code", x.do(0, bad), 3, "not a test code", "process 1")
	bad = combineCmd(r, lock, 0, []byte{1}, nil, 4)
	bad.Old = 16
	wantErr(t, "lock outside its region", x.do(0, bad), 4, "out of range")
	if mem[0] != 0 || stat(t, x.trs[1], "combinations served") != 7 {
		t.Fatalf("after the failures: byte %d, %d served", mem[0], stat(t, x.trs[1], "combinations served"))
	}
}

// A combination whose lock another holds (a process that maps the
// memory) waits without blocking the target: its connection's later
// frames wait behind it, the target's Poll reports work meanwhile, and
// once the holder releases the lock it is applied, then the rest.
func TestCombineWaitsForLock(t *testing.T) {
	x, mem, words, r, lock := combineFabric(t)
	held := llc.DrawTicket(&words[1])
	x.exec(0, combineCmd(r, lock, 0, []byte{5}, nil, 1))
	read := make([]byte, 1)
	x.exec(0, llc.Command{Kind: llc.CmdRead, Peer: 1, Region: r, Data: read, Token: 2})
	x.until("the stall", func() bool { return stat(t, x.trs[1], "combinations stalled") > 2 })
	if !x.trs[1].Poll(x.sinks[1]) {
		t.Fatal("the target's Poll reports no work while a combination waits for its lock")
	}
	if _, ok := x.sinks[0].find(llc.EvDone, 2); ok || mem[0] != 0 {
		t.Fatalf("while the lock is held: the read behind the combination done %v, byte %d", ok, mem[0])
	}
	llc.ReleaseTicket(&words[1], held)
	x.until("the read", func() bool { _, ok := x.sinks[0].find(llc.EvDone, 2); return ok })
	if _, ok := x.sinks[0].find(llc.EvDone, 1); !ok || read[0] != 5 || mem[0] != 5 {
		t.Fatalf("after the release: combination done %v, read %d, byte %d; want the read to see 5", ok, read[0], mem[0])
	}
	if w := words[1]; uint32(w) != uint32(w>>32) {
		t.Fatalf("lock word %#x held after everything", w)
	}
}

// A connection lost while its combination waits for the lock leaves the
// ticket it drew, which the target releases once it is served, so that
// the holders after it are not stuck.
func TestCombineOrphanReleased(t *testing.T) {
	x, mem, words, r, lock := combineFabric(t)
	held := llc.DrawTicket(&words[1])
	x.exec(0, combineCmd(r, lock, 0, []byte{5}, nil, 1))
	x.until("the stall", func() bool { return stat(t, x.trs[1], "combinations stalled") > 0 })
	x.trs[1].lose(&x.trs[1].peers[0], errors.New("lost for the test"))
	llc.ReleaseTicket(&words[1], held)
	x.trs[1].Poll(x.sinks[1])
	if w := words[1]; uint32(w) != uint32(w>>32) || len(x.trs[1].orphans) != 0 || mem[0] != 0 {
		t.Fatalf("lock word %#x, %d orphans, byte %d: want the lost ticket released, nothing applied", w, len(x.trs[1].orphans), mem[0])
	}
}
