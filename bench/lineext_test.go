package bench

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/rhinet-go/martini/internal/spinwait"
	"github.com/rhinet-go/martini/llc/layout"
)

// BenchmarkLineExt measures what a shared line's record of more than 8
// bytes of body costs over the cross-core floor, and what llc/shm's
// reading of the extension line beside the signal saves. Two threads,
// pinned to the floor's two CPUs, take turns writing a record of 64 bytes
// of body into their halves of a shared line laid out as a ring region's
// (llc/layout: 8 bytes in the half, 56 in the writer's extension line,
// the signal last), and reading the other's. read=after reads the
// extension line once the signal has come; read=ahead loads a word of it
// in every poll, before the signal, so that the two lines travel at once.
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

// extRegion is the start of a ring region, 4 KiB-aligned within its
// buffer as a region of the segment is: its shared line and the
// extension lines.
type extRegion struct {
	buf  []byte
	base unsafe.Pointer
}

func newExtRegion() *extRegion {
	buf := make([]byte, 2*4096)
	off := (4096 - uintptr(unsafe.Pointer(&buf[0]))%4096) % 4096
	return &extRegion{buf: buf, base: unsafe.Pointer(&buf[off])}
}

// word returns the word at off of the region.
func (r *extRegion) word(off uint64) *uint64 {
	return (*uint64)(unsafe.Add(r.base, off))
}

// lineExt runs n round trips of BenchmarkLineExt's records between two
// threads pinned to cpus and returns the half round trip in nanoseconds.
func lineExt(cpus [2]int, ahead bool, work, n int) (float64, error) {
	const extWords = (layout.LineBody - layout.LineWord) / 8
	var (
		reg   = newExtRegion()
		wg    sync.WaitGroup
		errs  [2]error
		start time.Time
		took  time.Duration
	)
	side := func(me int) {
		defer wg.Done()
		runtime.LockOSThread() // pinned: the thread ends with the goroutine
		mine, theirs := layout.LineHalves(me, 1-me)
		myExt, theirExt := layout.LineExt(mine), layout.LineExt(theirs)
		if errs[me] = pinThread(cpus[me]); errs[me] != nil {
			atomic.StoreUint64(reg.word(mine+layout.LineSig), ^uint64(0)) // the other stops
			return
		}
		var sum uint64
		if me == 0 {
			start = time.Now()
		}
		for v := uint64(me); v < 2*uint64(n); v += 2 {
			for v > 0 {
				if ahead {
					atomic.LoadUint64(reg.word(theirExt))
				}
				sig := atomic.LoadUint64(reg.word(theirs + layout.LineSig))
				if sig == v {
					break
				}
				if sig == ^uint64(0) {
					return
				}
				spinwait.Pause()
			}
			for i := range uint64(3) {
				sum += *reg.word(theirs + 8*i)
			}
			for i := range uint64(extWords) {
				sum += *reg.word(theirExt + 8*i)
			}
			sum = spinWork(sum, work)
			for i := range uint64(extWords) {
				*reg.word(myExt + 8*i) = sum + i
			}
			for i := range uint64(3) {
				*reg.word(mine + 8*i) = sum
			}
			atomic.StoreUint64(reg.word(mine+layout.LineSig), v+1)
		}
		if me == 1 {
			took = time.Since(start)
		}
		workSink.Add(sum)
	}
	wg.Add(2)
	go side(0)
	go side(1)
	wg.Wait()
	runtime.KeepAlive(reg.buf)
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return 0, err
	}
	return float64(took.Nanoseconds()) / float64(2*n), nil
}
