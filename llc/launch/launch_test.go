package launch

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/llc/datastore"
	"github.com/rhinet-go/martini/nicemu"
	"golang.org/x/sys/unix"
)

func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func TestParseSettings(t *testing.T) {
	s, err := ParseSettings(mapEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if s != DefaultSettings() || s.EagerLimit >= 0 {
		t.Errorf("settings of an empty environment = %+v", s)
	}
	s, err = ParseSettings(mapEnv(map[string]string{
		EnvEagerLimit: "0", EnvRndv: "push", EnvNoCMA: "1", EnvStats: "true", EnvNoHugePages: "1", EnvNoSharedLines: "1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Settings{EagerLimit: 0, Rndv: RndvPush, NoCMA: true, NoHugePages: true, NoSharedLines: true, Stats: true, Spin: -1, Yield: -1, TCPSendBuffer: -1}); s != want {
		t.Errorf("settings = %+v, want %+v", s, want)
	}
	for name, value := range map[string]string{
		EnvEagerLimit:    "-1",
		EnvRndv:          "pul",
		EnvNoCMA:         "yes",
		EnvNoHugePages:   "on",
		EnvNoSharedLines: "no",
		EnvStats:         "2",
		EnvSendPath:      "dma",
		EnvEager:         "vpush",
		EnvSpin:          "-1",
		EnvYield:         "abc",
		EnvTransport:     "infiniband",
		EnvTCPTimeout:    "0s",
		EnvTCPSendBuffer: "1m",
		EnvRunAhead:      "1",
	} {
		_, err := ParseSettings(mapEnv(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name+"="+strconv.Quote(value)) {
			t.Errorf("%s=%s: error %v does not name the variable and its value", name, value, err)
		}
	}
	if _, err := ParseSettings(mapEnv(map[string]string{EnvPMRMA: "1", EnvEager: EagerVP})); err == nil || !strings.Contains(err.Error(), EnvEager+"="+EagerPM) {
		t.Errorf("%s=1 over %s: error %v does not ask for %s=%s", EnvPMRMA, EagerVP, err, EnvEager, EagerPM)
	}
	for _, env := range []map[string]string{
		{EnvVPQueue: "3000", EnvEager: EagerVP},
		{EnvVPQueue: "0", EnvEager: EagerVP},
		{EnvVPQueue: "1048576", EnvEager: EagerPM},
		{EnvPMRing: "100000", EnvEager: EagerPM},
		{EnvPMRing: "131072", EnvEager: EagerVP},
	} {
		if _, err := ParseSettings(mapEnv(env)); err == nil || !strings.Contains(err.Error(), "launch: MARTINI_") {
			t.Errorf("%v: error %v does not name the variable", env, err)
		}
	}
	if _, err := ParseSettings(mapEnv(map[string]string{EnvEagerLimit: "64k"})); err == nil {
		t.Error("eager limit 64k accepted")
	}
	s, err = ParseSettings(mapEnv(map[string]string{EnvSpin: "0", EnvYield: "2000"}))
	if err != nil || s.Spin != 0 || s.Yield != 2000 {
		t.Errorf("%s=0 %s=2000: settings %+v, %v", EnvSpin, EnvYield, s, err)
	}
}

func TestSettingsEnvRoundTrip(t *testing.T) {
	for _, s := range []Settings{
		DefaultSettings(),
		{EagerLimit: 4096, Rndv: RndvPull, NoCMA: true, Stats: true},
		{EagerLimit: -1, Spin: -1, Yield: -1, NoHugePages: true},
		{EagerLimit: -1, Spin: -1, Yield: -1, NoSharedLines: true},
		{EagerLimit: 0, Rndv: RndvPush},
		{EagerLimit: -1, SendPath: SendAOTF, Coll: "allreduce=ring", NoOffload: true, NoCollCheck: true},
		{EagerLimit: -1, Eager: EagerPM},
		{EagerLimit: -1, Eager: EagerPM, PMRMA: true},
		{EagerLimit: 1024, Eager: EagerVP},
		{EagerLimit: -1, Spin: -1, Yield: -1, Eager: EagerVP, VPQueue: 1 << 20},
		{EagerLimit: -1, Spin: -1, Yield: -1, Eager: EagerPM, PMRing: 128 << 10},
		{EagerLimit: -1, Eager: EagerRings, Spin: -1, Yield: -1},
		{EagerLimit: -1, Spin: 0, Yield: 0},
		{EagerLimit: -1, Spin: 4000, Yield: -1},
		{EagerLimit: -1, Spin: -1, Yield: -1, Transport: TransportTCP},
		{EagerLimit: -1, Spin: -1, Yield: -1, TCPTimeout: 3 * time.Second},
		{EagerLimit: -1, Spin: -1, Yield: -1, TCPSendBuffer: 0},
		{EagerLimit: -1, Spin: -1, Yield: -1, TCPSendBuffer: 256 << 10},
		{EagerLimit: -1, Spin: -1, Yield: -1, Transport: TransportAuto},
		{EagerLimit: -1, Spin: -1, Yield: -1, Tune: "amd:4"},
		{EagerLimit: -1, Spin: -1, Yield: -1, RunAhead: RunAheadOn},
		{EagerLimit: -1, Spin: -1, Yield: -1, RunAhead: RunAheadOff},
	} {
		env := map[string]string{}
		for _, kv := range s.Env() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		got, err := ParseSettings(mapEnv(env))
		if err != nil || got != s {
			t.Errorf("round trip of %+v: %+v, %v", s, got, err)
		}
	}
}

// launched prepares what mpirun would pass to rank: a segment for size
// ranks, a data-store socket served by srv, and the environment naming them.
// The returned descriptors are dups, owned by the caller of fromEnv.
func launched(t *testing.T, rank, size int) (map[string]string, *datastore.Server) {
	t.Helper()
	pgid := RandomPGID()
	seg, err := nicemu.CreateSegment(nicemu.JobConfig{NProcs: size, PGID: pgid})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { seg.Close() })
	segFD, err := unix.Dup(int(seg.File().Fd()))
	if err != nil {
		t.Fatal(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[0]), "server end")
	conn, err := net.FileConn(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv := datastore.NewServer(size)
	go srv.Serve(rank, conn)
	t.Cleanup(func() { srv.Close() })
	return map[string]string{
		EnvRank:      strconv.Itoa(rank),
		EnvSize:      strconv.Itoa(size),
		EnvPGID:      FormatPGID(pgid),
		EnvSegmentFD: strconv.Itoa(segFD),
		EnvStoreFD:   strconv.Itoa(fds[1]),
	}, srv
}

// fdIdentity records which open files the descriptors named by env refer
// to, so that a test can close them afterwards without closing a reused
// descriptor number.
func fdIdentity(env map[string]string) map[int]unix.Stat_t {
	ids := map[int]unix.Stat_t{}
	for _, k := range []string{EnvSegmentFD, EnvStoreFD} {
		if fd, err := strconv.Atoi(env[k]); err == nil && fd > 2 {
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil {
				ids[fd] = st
			}
		}
	}
	return ids
}

// closeFDs closes the descriptors of ids that still refer to the same files,
// for cases where fromEnv failed before taking them over.
func closeFDs(ids map[int]unix.Stat_t) {
	for fd, want := range ids {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino {
			unix.Close(fd)
		}
	}
}

func TestFromEnvLaunched(t *testing.T) {
	env, _ := launched(t, 1, 3)
	env[EnvEagerLimit] = "8192"
	j, err := fromEnv(mapEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Rank != 1 || j.Size != 3 || j.Singleton || j.Launcher != LauncherMpirun || j.Segment == nil {
		t.Errorf("job = %+v", j)
	}
	seg, err := nicemu.AttachSegment(j.Segment)
	if err != nil {
		t.Fatal(err)
	}
	j.Segment = nil
	if seg.NProcs() != 3 || j.PGID != seg.PGID() {
		t.Errorf("segment of %d processes, job key %x; want 3, %x", seg.NProcs(), seg.PGID(), j.PGID)
	}
	if j.Settings.EagerLimit != 8192 {
		t.Errorf("settings = %+v", j.Settings)
	}
	if _, ok := j.Store.(*datastore.Client); !ok {
		t.Fatalf("store is a %T, want a *datastore.Client", j.Store)
	}
	if err := j.Store.Put("k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, err := j.Store.Get("k"); err != nil || v != "v" {
		t.Errorf("Get = %q, %v", v, err)
	}
	// The segment descriptor is no longer inherited by programs we start.
	fd, _ := strconv.Atoi(env[EnvSegmentFD])
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("segment descriptor flags = %#x, %v; want close-on-exec", flags, err)
	}
	seg.Close()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// The inherited descriptors are gone: the store socket was dup'ed and
	// closed, the segment closed by the Segment.
	for _, k := range []string{EnvSegmentFD, EnvStoreFD} {
		fd, _ := strconv.Atoi(env[k])
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			t.Errorf("%s=%d still open after Close", k, fd)
		}
	}
}

// A rank of a job that opens no NIC (mpirun -transport tcp) inherits no
// segment: only the data-store socket.
func TestFromEnvNoSegment(t *testing.T) {
	env, _ := launched(t, 0, 2)
	segFD, _ := strconv.Atoi(env[EnvSegmentFD])
	defer unix.Close(segFD)
	delete(env, EnvSegmentFD)
	j, err := fromEnv(mapEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Segment != nil || j.Store == nil || j.MakesSegment() {
		t.Errorf("job = %+v, want no segment, a store, and none to make", j)
	}
	if flags, err := unix.FcntlInt(uintptr(segFD), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC != 0 {
		t.Errorf("descriptor %d, not named by %s, was taken over (flags %#x, %v)", segFD, EnvSegmentFD, flags, err)
	}
}

func TestFromEnvErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(env map[string]string)
		want   string // a substring of the error
	}{
		{"size missing", func(e map[string]string) { delete(e, EnvSize) }, EnvSize},
		{"size zero", func(e map[string]string) { e[EnvSize] = "0" }, EnvSize},
		{"size junk", func(e map[string]string) { e[EnvSize] = "two" }, EnvSize},
		{"rank junk", func(e map[string]string) { e[EnvRank] = "x" }, EnvRank},
		{"rank negative", func(e map[string]string) { e[EnvRank] = "-1" }, EnvRank},
		{"rank too big", func(e map[string]string) { e[EnvRank] = "2" }, EnvRank},
		{"pgid missing", func(e map[string]string) { delete(e, EnvPGID) }, EnvPGID},
		{"pgid not hex", func(e map[string]string) { e[EnvPGID] = "xyz" }, EnvPGID},
		{"segment fd stdio", func(e map[string]string) { e[EnvSegmentFD] = "1" }, EnvSegmentFD},
		{"segment fd closed", func(e map[string]string) { e[EnvSegmentFD] = "9999" }, EnvSegmentFD},
		{"store fd missing", func(e map[string]string) { delete(e, EnvStoreFD) }, EnvStoreFD},
		{"store fd closed", func(e map[string]string) { e[EnvStoreFD] = "9999" }, EnvStoreFD},
		{"store fd same", func(e map[string]string) { e[EnvStoreFD] = e[EnvSegmentFD] }, EnvStoreFD},
		{"store fd not a socket", func(e map[string]string) { e[EnvStoreFD] = e[EnvSegmentFD] + "x" }, EnvStoreFD},
		{"bad setting", func(e map[string]string) { e[EnvRndv] = "fast" }, EnvRndv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := launched(t, 1, 2)
			orig := fdIdentity(env)
			tt.change(env)
			changed := fdIdentity(env)
			j, err := fromEnv(mapEnv(env))
			if err == nil {
				j.Close()
				t.Fatalf("fromEnv succeeded with %v", env)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %s", err, tt.want)
			}
			closeFDs(orig)
			closeFDs(changed)
		})
	}
}

func TestStoreFDNotASocket(t *testing.T) {
	env, _ := launched(t, 0, 1)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	orig := fdIdentity(env)
	fd, _ := unix.Dup(int(r.Fd()))
	env[EnvStoreFD] = strconv.Itoa(fd)
	_, err = fromEnv(mapEnv(env))
	if err == nil || !strings.Contains(err.Error(), EnvStoreFD) {
		t.Errorf("error %v does not name %s", err, EnvStoreFD)
	}
	closeFDs(orig)
}

func TestSingleton(t *testing.T) {
	j, err := fromEnv(mapEnv(map[string]string{EnvStats: "1"}))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if !j.Singleton || j.Launcher != LauncherSingleton || j.Rank != 0 || j.Size != 1 || j.PGID == 0 {
		t.Errorf("singleton job = %+v", j)
	}
	if j.Segment != nil {
		t.Error("a singleton inherited a segment")
	}
	if _, ok := j.Store.(*datastore.Local); !ok {
		t.Errorf("singleton store is a %T, want *datastore.Local", j.Store)
	}
	if !j.Settings.Stats {
		t.Errorf("singleton settings = %+v, want Stats", j.Settings)
	}
	if err := j.Store.Fence(); err != nil {
		t.Error(err)
	}
	if err := j.Close(); err != nil {
		t.Error(err)
	}
	if err := j.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestFromEnvProcess(t *testing.T) {
	// Singleton through the real environment.
	t.Setenv(EnvRank, "")
	j, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if !j.Singleton {
		t.Error("FromEnv without MARTINI_RANK is not a singleton")
	}
	j.Close()

	// Launched through the real environment: only the first call may take
	// the inherited descriptors.
	inherited.Store(false) // as in a new process (-count > 1)
	env, _ := launched(t, 0, 1)
	for k, v := range env {
		t.Setenv(k, v)
	}
	j, err = FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Singleton || j.Size != 1 {
		t.Errorf("job = %+v", j)
	}
	if _, err := FromEnv(); err == nil {
		t.Error("second FromEnv succeeded")
	}
}

// keepAffinity returns the CPUs the test process may run on, and has
// every thread back on them, and the process unbound, when the test ends.
func keepAffinity(t *testing.T) *unix.CPUSet {
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		setThreadsAffinity(&before)
		boundCPU.Store(-1)
	})
	return &before
}

// TestBindToCore pins the test process's threads to its first allowed
// CPU (rank 0) and restores the affinity.
func TestBindToCore(t *testing.T) {
	before := keepAffinity(t)
	if before.Count() > 1 && PinnedCPU() != -1 {
		t.Errorf("PinnedCPU() = %d on %d CPUs, want -1", PinnedCPU(), before.Count())
	}
	if err := bindToCore(0, nil); err != nil {
		t.Fatal(err)
	}
	var after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if after.Count() != 1 {
		t.Errorf("bound to %d CPUs, want 1", after.Count())
	}
	if cpu := PinnedCPU(); cpu < 0 || !after.IsSet(cpu) {
		t.Errorf("PinnedCPU() = %d, want the CPU bound to", cpu)
	}
	if _, err := ParseSettings(func(k string) string {
		if k == EnvBind {
			return "socket"
		}
		return ""
	}); err == nil {
		t.Error("MARTINI_BIND=socket: no error")
	}
}

// TestUnpin pins the test process as TestBindToCore does and unpins it:
// every thread may run on the CPUs it had before, once only; a job whose
// process was pinned by default and whose host's ranks outnumber those
// CPUs may unpin when crowded, one pinned by -bind-to core or with a CPU
// a rank may not.
func TestUnpin(t *testing.T) {
	before := keepAffinity(t)
	job := func(bind string, local int) *Job {
		j := &Job{Launcher: LauncherMpirun, LocalSize: local}
		j.Settings.Bind = bind
		return j
	}
	if job("", before.Count()+1).UnpinsWhenCrowded() {
		t.Error("not pinned: UnpinsWhenCrowded true")
	}
	if Unpin() {
		t.Error("not pinned: Unpin true")
	}
	if err := bindToCore(0, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bind  string
		local int
		want  bool
	}{
		{"", before.Count() + 1, true},
		{"", before.Count(), false},
		{BindCore, before.Count() + 1, false},
	} {
		if got := job(c.bind, c.local).UnpinsWhenCrowded(); got != c.want {
			t.Errorf("pinned, bind %q, %d ranks on %d CPUs: UnpinsWhenCrowded %v, want %v", c.bind, c.local, before.Count(), got, c.want)
		}
	}
	if !Unpin() {
		t.Fatal("pinned: Unpin false")
	}
	var after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if after != *before {
		t.Errorf("after Unpin: %d CPUs allowed, want the %d before", after.Count(), before.Count())
	}
	if before.Count() > 1 && PinnedCPU() != -1 {
		t.Errorf("after Unpin: PinnedCPU() = %d, want -1", PinnedCPU())
	}
	if Unpin() {
		t.Error("second Unpin true")
	}
}

// TestBindToCoreWhileThreadsStart pins the test process while goroutines
// start and end threads of their own, as a rank's runtime starts threads
// while Init pins it: every thread must end up on the rank's CPU, or the
// rank runs partly unpinned and may publish no CPU for the collectives'
// placement. It looks after settleAffinity, the later walk that Init
// makes (Job.SettleBinding).
func TestBindToCoreWhileThreadsStart(t *testing.T) {
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Skip(err)
	}
	cpus := cpuList(&before)
	stop := make(chan struct{})
	var churn sync.WaitGroup
	for range 4 {
		churn.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				done := make(chan struct{})
				// A goroutine that ends locked to its thread ends the thread.
				go func() { runtime.LockOSThread(); close(done) }()
				<-done
			}
		})
	}
	var missed []string
	for rank := range 200 {
		if err := setThreadsAffinity(&before); err != nil {
			t.Fatal(err)
		}
		if err := bindToCore(rank, nil); err != nil {
			t.Error(err)
			break
		}
		if err := settleAffinity(); err != nil {
			t.Fatal(err)
		}
		cpu := cpus[rank%len(cpus)]
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			var set unix.CPUSet
			if err != nil || unix.SchedGetaffinity(tid, &set) != nil {
				continue // ended meanwhile
			}
			if set.Count() != 1 || !set.IsSet(cpu) {
				missed = append(missed, fmt.Sprintf("rank %d: thread %d on %d CPUs", rank, tid, set.Count()))
			}
		}
	}
	close(stop)
	churn.Wait()
	boundCPU.Store(-1)
	if err := setThreadsAffinity(&before); err != nil {
		t.Fatal(err)
	}
	if len(missed) > 0 {
		t.Errorf("%d threads not on the rank's CPU after bindToCore, first %s", len(missed), missed[0])
	}
}

// An mpirun job's ranks pin themselves when asked, and by default only
// when their host runs two ranks or more that fill half the CPUs they may
// use or more (with fewer, the scheduler still stacked two on one CPU at
// times); a singleton and a PMI launcher's ranks never (the launcher
// binds).
func TestBindsToCore(t *testing.T) {
	for _, c := range []struct {
		launcher, bind string
		local, cpus    int
		want           bool
	}{
		{LauncherMpirun, "", 4, 2, true},
		{LauncherMpirun, "", 2, 2, true},
		{LauncherMpirun, "", 16, 16, true},
		{LauncherMpirun, "", 1, 2, false},
		{LauncherMpirun, "", 15, 16, true},
		{LauncherMpirun, "", 8, 16, true},
		{LauncherMpirun, "", 7, 16, false},
		{LauncherMpirun, "", 2, 4, true},
		{LauncherMpirun, "", 4, 0, false}, // CPUs unknown
		{LauncherMpirun, BindNone, 4, 2, false},
		{LauncherMpirun, BindCore, 2, 2, true},
		{LauncherMpirun, BindCore, 1, 8, true},
		{LauncherPMI1, "", 4, 2, false},
		{LauncherPMI2, "", 8, 2, false},
		{LauncherSingleton, BindCore, 1, 2, false},
	} {
		j := &Job{Launcher: c.launcher, LocalSize: c.local, Singleton: c.launcher == LauncherSingleton}
		j.Settings.Bind = c.bind
		if got := j.bindsToCore(c.cpus); got != c.want {
			t.Errorf("%s, bind %q, %d ranks on the host, %d CPUs: binds %v, want %v", c.launcher, c.bind, c.local, c.cpus, got, c.want)
		}
	}
}

// TestRanksLinkNoCgo: the packages a rank's program needs do not import
// net (which brings cgo): a static program starts in about half the time
// of a cgo one, and a job starts a process per rank.
func TestRanksLinkNoCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	gocmd, err := mpirunbuild.GoTool()
	if err != nil {
		t.Skip(err)
	}
	out, err := exec.Command(gocmd, "list", "-deps", "github.com/rhinet-go/martini/mpi").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "net" || dep == "runtime/cgo" {
			t.Errorf("package mpi depends on %s", dep)
		}
	}
}

// TestProcessorShare: a rank's share of its host's CPUs is at least one.
func TestProcessorShare(t *testing.T) {
	for _, tc := range []struct{ cpus, local, want int }{
		{2, 2, 1}, {2, 8, 1}, {16, 2, 8}, {16, 3, 5}, {4, 1, 4}, {0, 2, 0}, {2, 0, 0},
	} {
		if got := processorShare(tc.cpus, tc.local); got != tc.want {
			t.Errorf("processorShare(%d CPUs, %d ranks) = %d, want %d", tc.cpus, tc.local, got, tc.want)
		}
	}
}

// TestShareProcessors: GOMAXPROCS drops to the rank's share of the CPUs
// the process may run on, never rises, and a GOMAXPROCS variable wins.
func TestShareProcessors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cpus := allowedCPUs()
	if cpus < 2 {
		t.Skipf("%d CPUs allowed", cpus)
	}
	runtime.GOMAXPROCS(cpus)
	set := func(k string) string {
		if k == "GOMAXPROCS" {
			return "7"
		}
		return ""
	}
	shareProcessors(cpus, set)
	if got := runtime.GOMAXPROCS(0); got != cpus {
		t.Errorf("with GOMAXPROCS set: GOMAXPROCS %d, want %d (untouched)", got, cpus)
	}
	unset := func(string) string { return "" }
	shareProcessors(cpus, unset)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("%d ranks on %d CPUs: GOMAXPROCS %d, want 1", cpus, cpus, got)
	}
	shareProcessors(1, unset)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS rose to %d, want it left at 1", got)
	}
}
