package bench

import (
	"fmt"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/rhinet-go/martini/internal/spinwait"
	"github.com/rhinet-go/martini/llc/layout"
)

// BenchmarkLineExt measures what a shared line's record of more than 16
// bytes of body costs over the cross-core floor, and what llc/shm's
// reading of the extension beside the signal saves. Two threads, pinned
// to the floor's two CPUs, take turns writing a record of 64 bytes of
// body into their halves of a shared line laid out as a ring region's
// (llc/layout: 16 bytes in the half, 48 in the writer's own extension
// line, the signal last), and reading the other's. read=after reads the
// extension once the signal has come; read=ahead loads a word of it in
// every poll, before the signal, so that the two lines travel at once.
// Each side polls with PAUSE and runs work multiply-adds between a
// record's arrival and its answer. It reports the half round trip:
//
//	go test -run XXX -bench LineExt ./bench
//
// It is a measurement of the machine, not of this runtime: it needs two
// CPUs and skips with fewer.
func BenchmarkLineExt(b *testing.B) {
	cpus := lineCPUs(b)
	for _, ahead := range []bool{false, true} {
		read := map[bool]string{false: "after", true: "ahead"}[ahead]
		for _, work := range []int{0, 64} {
			b.Run(fmt.Sprintf("read=%s/work=%d", read, work), func(b *testing.B) {
				half, err := lineExt(cpus, ahead, work, b.N)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(half, "ns/half")
			})
		}
	}
}

// extRegion is the start of a ring region, mapped as the segment's
// memory is (outside Go's heap, page-aligned): its shared line and the
// extension lines.
type extRegion struct{ mem []byte }

// newExtRegion maps a page for an extRegion; the caller unmaps it.
func newExtRegion() (*extRegion, error) {
	mem, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("bench: map the line's region: %w", err)
	}
	return &extRegion{mem: mem}, nil
}

// word returns the word at off of the region.
func (r *extRegion) word(off uint64) *uint64 { return layout.Word(r.mem, off) }

// lineExt runs n round trips of BenchmarkLineExt's records between two
// threads pinned to cpus and returns the half round trip in nanoseconds.
func lineExt(cpus [2]int, ahead bool, work, n int) (float64, error) {
	reg, err := newExtRegion()
	if err != nil {
		return 0, err
	}
	defer unix.Munmap(reg.mem)
	stop := func() {
		for _, half := range []uint64{layout.RingLine, layout.RingLine + layout.LineHalf} {
			atomic.StoreUint64(reg.word(half+layout.LineSig), ^uint64(0))
		}
	}
	return pinnedPair(cpus, n, stop, func(me int) {
		mine, theirs := layout.LineHalves(me, 1-me)
		_, myExt := layout.LineExt(reg.mem, mine)
		_, theirExt := layout.LineExt(reg.mem, theirs)
		var sum uint64
		for v := uint64(me); v < 2*uint64(n); v += 2 {
			if v > 0 && !awaitRecord(reg, theirs, theirExt, v, ahead) {
				return
			}
			for i := range uint64(3) {
				sum += *reg.word(theirs + 8*i)
			}
			for i := range uint64(extWords) {
				sum += *layout.Word(theirExt, 8*i)
			}
			sum = spinWork(sum, work)
			for i := range uint64(extWords) {
				*layout.Word(myExt, 8*i) = sum + i
			}
			for i := range uint64(3) {
				*reg.word(mine + 8*i) = sum
			}
			atomic.StoreUint64(reg.word(mine+layout.LineSig), v+1)
		}
		workSink.Add(sum)
	})
}

// extWords is the words a record of BenchmarkLineExt, a 64-byte
// message's, has in its writer's extension line: its body beyond what
// the half holds.
const extWords = (64 - layout.LineHalfBody) / 8

// awaitRecord polls the half at theirs for the signal v, loading the
// first word of the extension line ext before each look if ahead; false:
// the other side stopped.
func awaitRecord(reg *extRegion, theirs uint64, ext []byte, v uint64, ahead bool) bool {
	for {
		if ahead {
			atomic.LoadUint64(layout.Word(ext, 0))
		}
		switch atomic.LoadUint64(reg.word(theirs + layout.LineSig)) {
		case v:
			return true
		case ^uint64(0):
			return false
		}
		spinwait.Pause()
	}
}
