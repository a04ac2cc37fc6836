package nicemu

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Layout of the shared segment. Every region is page aligned.
//
//	[0, PageSize)                     job header (written by the launcher only)
//	[PageSize, PageSize+procTabSize)  PGIDTBL: one procEntry per process slot
//	partition p, at partBase(p)       control page, Windows, contflag page,
//	                                  SID table, sync region, bounce buffer,
//	                                  heap
//
// The sync regions of all partitions together are the job's sync area (see
// syncnet.go): the synchronisation network's barrier controllers (in
// partition 0), the barrier payload slots of member m (in partition m), and
// process p's counters and multicast slots (in partition p). Each region has
// the fixed size syncRegionSize, so the area grows with NProcs.
const (
	// PageSize is the page size of the emulated NIC and of the host.
	PageSize = 4096
	// MTU is Martini's maximum packet payload; longer transfers are split
	// into packets transparently and counted as such in Stats.
	MTU = 2048
	// NumWindows is the number of Windows reserved for each process, a
	// power of two (the NIC takes them round robin).
	NumWindows = 4
	// WindowSize is the size of one Window's request area.
	WindowSize = PageSize
	// NumSIDs is the number of SID table entries per process: enough for
	// the bootstrap area, a ring from each of 1024 processes and the
	// program's own registrations.
	NumSIDs = 2048
	// NumAOTFPages is the number of AOTF header-buffer entries per process.
	NumAOTFPages = 64

	segmentMagic   = 0x4d415254494e4931 // "MARTINI1"
	segmentVersion = 17                 // 2: sync region in every partition; 3: barrier arrival lines; 4: timing profile; 5: handoff; 6: 2048 SIDs; 7: virtual time; 8: its write count; 9: 16-byte barrier data; 10: declared computing; 11: 16 multicast slots, heap high-water mark; 12: CPU and wait state of each process; 13: a barrier ring entry per cache line, with its generation; 14: releases, keys and 40-byte data in the ring entries, last generations in a region of their own; 15: the records of the shared lines in ring regions (llc/layout) carry 16 bytes of body in a half; 16: a shared extension line, halved as the shared line is; 17: ring entries of two lines, 104-byte data words
	sidEntrySize   = 64
	procEntrySize  = 128
)

// DefaultHeapSize is the segment memory each process may register
// (rings, bootstrap areas); it bounds the job's total ring memory.
const DefaultHeapSize = 64 << 20

// DefaultBounceSize is the per-process bounce buffer used when cross-memory
// attach is not permitted.
const DefaultBounceSize = 256 << 10

// JobConfig describes the job a segment is created for.
type JobConfig struct {
	// NProcs is the number of process slots (ranks) in the segment.
	NProcs int
	// PGID is the job key stamped into every PGIDTBL entry.
	PGID uint64
	// HeapSize is the registrable segment memory per process (0: default).
	HeapSize int
	// BounceSize is the per-process bounce buffer (0: default).
	BounceSize int
	// ForeignPGID optionally gives individual slots a different PGID, which
	// models processes of another job sharing the NIC (used by tests).
	ForeignPGID map[int]uint64
	// Profile names the timing profile every process's NIC runs under
	// (see Profiles): "" or ProfileNative charges nothing.
	Profile string
	// Handoff is the emulation's own part of a hop that a timed profile
	// compensates for (see MeasureHandoff): 0 measures it when the
	// profile is timed, a negative value disables the compensation.
	// Virtual time needs none.
	Handoff time.Duration
	// Clock is ClockReal ("" too) or ClockVirtual, which needs a timed
	// profile (see Clock).
	Clock string
	// HostSpeed is the modelled host's seconds per second of this
	// machine's CPU time in virtual time (see ParseHostSpeed).
	HostSpeed float64
	// Compute is how virtual time counts computing: ComputeCPU ("" too)
	// or ComputeDeclared, which needs virtual time and an OpRate.
	Compute string
	// OpRate is the modelled host's operations per microsecond under
	// ComputeDeclared (see ParseOpRate).
	OpRate float64
}

// jobHeader is the first page of the segment.
type jobHeader struct {
	magic      uint64
	version    uint64
	nprocs     uint64
	pgid       uint64
	partSize   uint64
	heapSize   uint64
	bounceSize uint64
	size       uint64
	refused    uint64 // protection refusals, all processes (atomic)
	profile    uint64 // timing profile (profileCode)
	handoff    uint64 // handoff compensation, ns
	clock      uint64 // clock mode (clockCode)
	hostSpeed  uint64 // host speed in virtual time (float64 bits)
	vwrites    uint64 // virtual time: writes into any process's memory (atomic; see Clock.clear)
	compute    uint64 // computing mode in virtual time (computeCode)
	opRate     uint64 // operation rate of declared computing, Mop/s (float64 bits)
}

// procEntry is one PGIDTBL entry plus the process's shared run state.
type procEntry struct {
	pgid     uint64 // written by the launcher only
	pid      uint64 // written by the launcher only
	ospid    uint64 // OS process id, written at Open
	_        uint64 // free: keeps the CPU words on the second line
	bell     uint32 // doorbell futex word
	sleepers uint32 // >0 while the process may block on bell
	refused  uint64 // refusals of requests aimed at this process
	// arrivals counts the remote writes other processes' timed requests
	// made into this process's memory (see timing.arrived).
	arrivals uint64
	// heapTop is how far into its heap partition the process (or an
	// earlier user of its slot) has ever registered segment memory, in
	// bytes from the partition's base: the memory above it was never
	// handed out, and still reads zero as the segment was created.
	heapTop uint64
	// The second line (cpushare.go): the CPU the process is pinned to,
	// and what it waits for, written by the process only.
	cpu     uint64 // cpuUnpublished, cpuNone, or cpuBase + the CPU
	waitOn  uint64 // waitNone, or what waitGen's generation is awaited of
	waitGen uint64
	_       [128 - 64 - 24]byte
}

// Per-partition layout offsets (relative to the partition base).
const (
	partCtl     = 0                                 // bounce mailbox, AOTF header buffer, timing resources
	partWindows = PageSize                          // NumWindows request areas
	partCont    = partWindows + NumWindows*PageSize // contflag page
	partSIDs    = partCont + PageSize               // SID table
	partSync    = partSIDs + NumSIDs*sidEntrySize   // sync region (syncnet.go)
	partBounce  = partSync + syncRegionSize         // bounce buffer
)

// Segment is a mapping of a job's shared-memory segment.
type Segment struct {
	file *os.File
	mem  []byte
	hdr  *jobHeader
	// part0 and partSize are partition 0's offset and the partitions'
	// size, from the header (set once it is written or checked).
	part0, partSize int
}

func partitionSize(heap, bounce int) int {
	return roundUp(partBounce+bounce, PageSize) + roundUp(heap, PageSize)
}

func roundUp(n, a int) int { return (n + a - 1) / a * a }

// CreateSegment creates the shared segment of a job as an anonymous memory
// file (memfd): it has no name in /dev/shm, so nothing can leak when a
// process dies. The launcher passes File() to every rank.
func CreateSegment(cfg JobConfig) (*Segment, error) {
	codes, err := checkJobConfig(&cfg)
	if err != nil {
		return nil, err
	}
	if err := settleHandoff(&cfg, codes); err != nil {
		return nil, err
	}
	part := partitionSize(cfg.HeapSize, cfg.BounceSize)
	size := PageSize + roundUp(cfg.NProcs*procEntrySize, PageSize) + cfg.NProcs*part
	if codes.clock != 0 {
		size += cfg.NProcs * stampAreaSize(cfg.HeapSize)
	}
	s, err := newSegmentFile(size)
	if err != nil {
		return nil, err
	}
	s.writeHeader(cfg, codes, part, size)
	s.setGeometry()
	s.stampPGIDTBL(cfg)
	atomic.StoreUint64(&s.hdr.magic, segmentMagic)
	return s, nil
}

// jobCodes are a JobConfig's named modes as the segment's header records
// them: the timing profile, the clock mode and the computing mode.
type jobCodes struct {
	profile, clock, compute uint64
}

// checkJobConfig checks cfg before anything is created, filling in the
// default heap and bounce sizes, and returns the codes of its modes; the
// errors name what a launcher got wrong.
func checkJobConfig(cfg *JobConfig) (jobCodes, error) {
	if cfg.NProcs < 1 {
		return jobCodes{}, fmt.Errorf("nicemu: create segment: %d processes, need at least 1", cfg.NProcs)
	}
	if cfg.NProcs > MaxProcs {
		return jobCodes{}, fmt.Errorf("nicemu: create segment: %d processes, at most %d (the multicast destination bitmap)", cfg.NProcs, MaxProcs)
	}
	if cfg.HeapSize == 0 {
		cfg.HeapSize = DefaultHeapSize
	}
	if cfg.BounceSize == 0 {
		cfg.BounceSize = DefaultBounceSize
	}
	if cfg.BounceSize < PageSize || cfg.HeapSize < PageSize {
		return jobCodes{}, errors.New("nicemu: create segment: heap and bounce sizes must be at least one page")
	}
	profile, err := profileCode(cfg.Profile)
	if err != nil {
		return jobCodes{}, fmt.Errorf("nicemu: create segment: %w", err)
	}
	clock, err := clockCode(cfg.Clock)
	if err != nil {
		return jobCodes{}, fmt.Errorf("nicemu: create segment: %w", err)
	}
	if clock != 0 && profile == 0 {
		return jobCodes{}, fmt.Errorf("nicemu: create segment: virtual time needs a timing profile (%s)", ProfileMartini)
	}
	if cfg.HostSpeed < 0 || cfg.HostSpeed != cfg.HostSpeed {
		return jobCodes{}, fmt.Errorf("nicemu: create segment: host speed %v", cfg.HostSpeed)
	}
	compute, err := checkCompute(*cfg, clock)
	if err != nil {
		return jobCodes{}, fmt.Errorf("nicemu: create segment: %w", err)
	}
	return jobCodes{profile: profile, clock: clock, compute: compute}, nil
}

// settleHandoff sets cfg.Handoff to the compensation the job's processes
// share: none without a timed profile or in virtual time, which need
// none; otherwise the one given or, when none is, the one measured now.
func settleHandoff(cfg *JobConfig, codes jobCodes) error {
	if codes.profile == 0 || codes.clock != 0 {
		cfg.Handoff = 0
		return nil
	}
	if cfg.Handoff == 0 {
		var err error
		if cfg.Handoff, err = MeasureHandoff(cfg.Profile); err != nil {
			return fmt.Errorf("nicemu: create segment: %w", err)
		}
	}
	return nil
}

// newSegmentFile creates an anonymous memory file of size bytes and maps
// it as a segment whose header is still zero. On failure it closes the
// file, so that nothing is left open.
func newSegmentFile(size int) (*Segment, error) {
	fd, err := unix.MemfdCreate("martini-segment", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("nicemu: create segment: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "martini-segment")
	if err := f.Truncate(int64(size)); err != nil {
		f.Close()
		return nil, fmt.Errorf("nicemu: create segment: size %d: %w", size, err)
	}
	s, err := mapSegment(f, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// writeHeader records the job's geometry and modes (cfg, codes) in the
// header of a new segment of partitions of part bytes and size bytes in
// all. It leaves the magic number, which marks the header complete, to
// the caller.
func (s *Segment) writeHeader(cfg JobConfig, codes jobCodes, part, size int) {
	h := s.hdr
	h.version = segmentVersion
	h.nprocs = uint64(cfg.NProcs)
	h.pgid = cfg.PGID
	h.partSize = uint64(part)
	h.heapSize = uint64(cfg.HeapSize)
	h.bounceSize = uint64(cfg.BounceSize)
	h.size = uint64(size)
	h.profile = codes.profile
	h.handoff = uint64(max(cfg.Handoff, 0))
	h.clock = codes.clock
	h.hostSpeed = math.Float64bits(cfg.HostSpeed)
	h.compute = codes.compute
	h.opRate = math.Float64bits(cfg.OpRate)
}

// stampPGIDTBL writes every process slot's PGIDTBL entry: the job key (or
// the foreign one cfg gives the slot) and the slot's PID, which only the
// launcher writes, so that a process cannot forge them.
func (s *Segment) stampPGIDTBL(cfg JobConfig) {
	for p := 0; p < cfg.NProcs; p++ {
		e := s.proc(p)
		e.pgid = cfg.PGID
		if g, ok := cfg.ForeignPGID[p]; ok {
			e.pgid = g
		}
		e.pid = uint64(p)
	}
}

// AttachSegment maps a segment created by CreateSegment from an inherited
// file. The Segment takes ownership of f; if the file is rejected, f is
// closed.
func AttachSegment(f *os.File) (*Segment, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("nicemu: attach segment: %w", err)
	}
	if st.Size < PageSize {
		f.Close()
		return nil, fmt.Errorf("nicemu: attach segment: %d bytes is too small to be a segment", st.Size)
	}
	s, err := mapSegment(f, int(st.Size))
	if err != nil {
		f.Close()
		return nil, err
	}
	if atomic.LoadUint64(&s.hdr.magic) != segmentMagic {
		s.Close()
		return nil, errors.New("nicemu: attach segment: not a Martini segment (bad magic)")
	}
	if v := s.hdr.version; v != segmentVersion {
		s.Close()
		return nil, fmt.Errorf("nicemu: attach segment: layout version %d, this program's is %d: "+
			"the launcher and the program were built from different versions of the runtime", v, segmentVersion)
	}
	if size := s.hdr.size; size != uint64(st.Size) {
		s.Close() // unmaps the header: report the size read before
		return nil, fmt.Errorf("nicemu: attach segment: size %d, header says %d", st.Size, size)
	}
	if err := s.checkLayout(); err != nil {
		s.Close()
		return nil, err
	}
	s.setGeometry()
	return s, nil
}

// setGeometry caches the partitions' place from the header.
func (s *Segment) setGeometry() {
	s.part0 = PageSize + roundUp(int(s.hdr.nprocs)*procEntrySize, PageSize)
	s.partSize = int(s.hdr.partSize)
}

// checkLayout verifies that the header's geometry describes the mapped
// size: every partition, with its sync region, lies inside the segment.
func (s *Segment) checkLayout() error {
	h := s.hdr
	bad := func(what string) error {
		return fmt.Errorf("nicemu: attach segment: inconsistent header: %s (%d processes, heap %d, bounce %d, partition %d, size %d)",
			what, h.nprocs, h.heapSize, h.bounceSize, h.partSize, h.size)
	}
	const limit = 1 << 46 // bounds every field so the sums below cannot overflow
	if h.nprocs < 1 || h.nprocs > MaxProcs {
		return bad("process count")
	}
	if h.heapSize < PageSize || h.heapSize > limit || h.bounceSize < PageSize || h.bounceSize > limit {
		return bad("heap or bounce size")
	}
	if h.partSize != uint64(partitionSize(int(h.heapSize), int(h.bounceSize))) {
		return bad("partition size")
	}
	if h.clock > 1 || (h.clock == 1 && h.profile == 0) {
		return bad("clock mode")
	}
	want := uint64(PageSize+roundUp(int(h.nprocs)*procEntrySize, PageSize)) + h.nprocs*h.partSize
	if h.clock == 1 {
		want += h.nprocs * uint64(stampAreaSize(int(h.heapSize)))
	}
	if h.size != want {
		return bad(fmt.Sprintf("partitions end at %d", want))
	}
	return nil
}

func mapSegment(f *os.File, size int) (*Segment, error) {
	mem, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("nicemu: mmap segment (%d bytes): %w", size, err)
	}
	return &Segment{file: f, mem: mem, hdr: (*jobHeader)(unsafe.Pointer(&mem[0]))}, nil
}

// File returns the memory file backing the segment, to be inherited by ranks.
func (s *Segment) File() *os.File { return s.file }

// NProcs returns the number of process slots.
func (s *Segment) NProcs() int { return int(s.hdr.nprocs) }

// PGID returns the job key.
func (s *Segment) PGID() uint64 { return s.hdr.pgid }

// Size returns the segment size in bytes.
func (s *Segment) Size() int { return int(s.hdr.size) }

// Resident returns the bytes of memory the segment's file holds: the
// pages any process of the host has touched (a memory file allocates a
// page at its first touch), at most Size.
func (s *Segment) Resident() (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(s.file.Fd()), &st); err != nil {
		return 0, fmt.Errorf("nicemu: the segment's memory: %w", err)
	}
	return st.Blocks * 512, nil
}

// Profile returns the name of the timing profile the job runs under.
func (s *Segment) Profile() string { return profileName(s.hdr.profile) }

// Handoff returns the cross-core handoff the job's timed profile
// compensates for (0 under native, or when compensation is off).
func (s *Segment) Handoff() time.Duration { return time.Duration(s.hdr.handoff) }

// Clock returns the job's clock mode, ClockReal or ClockVirtual.
func (s *Segment) Clock() string {
	if s.hdr.clock == 1 {
		return ClockVirtual
	}
	return ClockReal
}

// HostSpeed returns the job's host speed in virtual time.
func (s *Segment) HostSpeed() float64 { return math.Float64frombits(s.hdr.hostSpeed) }

// Refused returns the number of requests the NIC refused for protection
// reasons, over all processes of the segment.
func (s *Segment) Refused() uint64 { return atomic.LoadUint64(&s.hdr.refused) }

// Close unmaps the segment and closes its file.
func (s *Segment) Close() error {
	var err error
	if s.mem != nil {
		err = unix.Munmap(s.mem)
		s.mem = nil
	}
	if s.file != nil {
		if cerr := s.file.Close(); err == nil {
			err = cerr
		}
		s.file = nil
	}
	return err
}

func (s *Segment) proc(p int) *procEntry {
	return (*procEntry)(unsafe.Pointer(&s.mem[PageSize+p*procEntrySize]))
}

func (s *Segment) partBase(p int) int { return s.part0 + p*s.partSize }

func (s *Segment) heapBase(p int) int {
	return s.partBase(p) + roundUp(partBounce+int(s.hdr.bounceSize), PageSize)
}
