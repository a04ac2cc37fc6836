package launch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rhinet-go/martini/internal/hydratest"
	"github.com/rhinet-go/martini/internal/mpirunbuild"
	"github.com/rhinet-go/martini/llc/pmi"
	"golang.org/x/sys/unix"
)

// pmiServer answers, on its end of a socket pair, the PMI-1 requests of
// one process's initialization and finalize, and reports the requests it
// received on the returned channel when the connection ends. It returns
// the descriptor of the process's end.
func pmiServer(t *testing.T) (int, <-chan []string) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := os.NewFile(uintptr(fds[1]), "pmi server")
	t.Cleanup(func() { srv.Close() })
	answers := map[string]string{
		"init":           "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
		"get_maxes":      "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024",
		"get_my_kvsname": "cmd=my_kvsname kvsname=kvs_9_0",
		"finalize":       "cmd=finalize_ack",
		"put":            "cmd=put_result rc=0",
		"barrier_in":     "cmd=barrier_out",
		"get":            "cmd=get_result rc=-1 msg=key_not_found", // every other process's key
	}
	got := make(chan []string, 1)
	go func() {
		var reqs []string
		defer func() { got <- reqs }()
		r := bufio.NewReader(srv)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			name := strings.TrimPrefix(strings.Fields(line)[0], "cmd=")
			reqs = append(reqs, name)
			fmt.Fprintln(srv, answers[name])
			if name == "finalize" {
				return
			}
		}
	}()
	return fds[0], got
}

func TestFromEnvPMI(t *testing.T) {
	fd, got := pmiServer(t)
	j, err := fromEnv(mapEnv(map[string]string{
		pmi.EnvFD: strconv.Itoa(fd), pmi.EnvRank: "0", pmi.EnvSize: "1", EnvEagerLimit: "4096",
	}))
	if err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	if j.Launcher != LauncherPMI1 || j.Rank != 0 || j.Size != 1 || j.Singleton || j.Segment != nil {
		t.Errorf("job = %+v", j)
	}
	if j.PGID == 0 || j.PGID != jobKey("kvs_9_0") {
		t.Errorf("job key %x, want the hash %x of the kvsname", j.PGID, jobKey("kvs_9_0"))
	}
	if _, ok := j.Store.(*pmi.Client); !ok {
		t.Errorf("store is a %T, want a *pmi.Client", j.Store)
	}
	if j.Settings.EagerLimit != 4096 {
		t.Errorf("settings = %+v", j.Settings)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if reqs := <-got; strings.Join(reqs, " ") != "init get_maxes get_my_kvsname finalize" {
		t.Errorf("the server got %q", reqs)
	}
}

// A process of a PMI job of several publishes its host and collects the
// others' in a fence before any network opens: one whose peers published
// none fails, naming the first.
func TestFromEnvPMIHostsExchange(t *testing.T) {
	fd, got := pmiServer(t)
	_, err := fromEnv(mapEnv(map[string]string{pmi.EnvFD: strconv.Itoa(fd), pmi.EnvRank: "1", pmi.EnvSize: "2"}))
	if err == nil || !strings.Contains(err.Error(), "rank 0 published no host") {
		t.Errorf("error %v, want one naming rank 0's missing host", err)
	}
	reqs := strings.Join(<-got, " ")
	if !strings.Contains(reqs, "put") || !strings.Contains(reqs, "barrier_in") || !strings.HasSuffix(reqs, "finalize") {
		t.Errorf("the server got %q: want a put, a fence and the finalize of the job's close", reqs)
	}
}

// A PMI job of one process is its host's only process: the network needs
// no exchange of hosts for it.
func TestFromEnvPMIOneProcess(t *testing.T) {
	fd, _ := pmiServer(t)
	j, err := fromEnv(mapEnv(map[string]string{pmi.EnvFD: strconv.Itoa(fd), pmi.EnvRank: "0", pmi.EnvSize: "1"}))
	if err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	defer j.Close()
	if j.Size != 1 || j.LocalRank != 0 || j.LocalSize != 1 || j.Host != "" || j.TCPAddr != LoopbackAddr {
		t.Errorf("job = %+v, want rank 0 of 1, local rank 0 of 1 on host \"\", TCP on %s", j, LoopbackAddr)
	}
}

// MARTINI_BIND=core binds by rank on one host: under a PMI launcher it
// is an error, before the descriptor is taken over.
func TestFromEnvPMIBind(t *testing.T) {
	fd, _ := pmiServer(t)
	defer unix.Close(fd)
	_, err := fromEnv(mapEnv(map[string]string{
		pmi.EnvFD: strconv.Itoa(fd), pmi.EnvRank: "0", pmi.EnvSize: "1", EnvBind: BindCore,
	}))
	if err == nil || !strings.Contains(err.Error(), EnvBind+"=core") {
		t.Errorf("error %v does not name %s", err, EnvBind)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		t.Errorf("the PMI descriptor was taken: %v", err)
	}
}

// A process that finds the variables of a launcher it cannot serve fails
// instead of running as a job of its own, as each of the job's processes
// would.
func TestFromEnvForeignLauncher(t *testing.T) {
	for name, want := range map[string]string{
		"PMIX_RANK": "PMIX_RANK=1: started by a PMIx launcher",
		pmi.EnvRank: "PMI_RANK=1: started by a PMI launcher, but neither PMI_FD nor PMI_PORT",
	} {
		j, err := fromEnv(mapEnv(map[string]string{name: "1"}))
		if err == nil {
			j.Close()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=1: %v, want an error containing %q", name, err, want)
		}
	}
}

func TestFromEnvPMIErrors(t *testing.T) {
	_, err := fromEnv(mapEnv(map[string]string{pmi.EnvFD: "5", pmi.EnvRank: "0"}))
	if err == nil || !strings.Contains(err.Error(), pmi.EnvSize) {
		t.Errorf("error %v does not name %s", err, pmi.EnvSize)
	}
}

// Under mpiexec.hydra, launch.FromEnv returns a job of the PMI launcher:
// every rank with the same job key, no segment.
func TestHydraJob(t *testing.T) {
	hydra := hydratest.Hydra(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "pmijob")
	var out bytes.Buffer
	if err := mpirunbuild.GoBuild(context.Background(), mpirunbuild.Spec{
		Pkg: "./testdata/pmijob", Out: bin, Work: dir, Stdout: &out, Stderr: &out,
	}); err != nil {
		t.Fatalf("%v\n%s", err, out.Bytes())
	}
	for _, v := range []string{"1", "2"} {
		stdout, stderr, err := hydratest.Run(hydra, []string{pmi.EnvVersion + "=" + v}, 3, bin)
		if err != nil {
			t.Fatalf("MARTINI_PMI=%s: %v\nstdout:\n%s\nstderr:\n%s", v, err, stdout, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 3 {
			t.Fatalf("MARTINI_PMI=%s: output:\n%s", v, stdout)
		}
		for _, line := range lines {
			var rank, size, local, localSize int
			var launcher, key, segment, tcp, shared string
			if _, err := fmt.Sscanf(line, "rank %d of %d: launcher %s key %s segment %s local %d of %d tcp %s shared %s",
				&rank, &size, &launcher, &key, &segment, &local, &localSize, &tcp, &shared); err != nil ||
				size != 3 || launcher != "pmi-"+v || segment != "false" {
				t.Errorf("MARTINI_PMI=%s: line %q (%v)", v, line, err)
			}
			// One host: every rank is local, in the order of the ranks,
			// reaches the others over loopback and maps rank 0's segment.
			if local != rank || localSize != 3 || tcp != LoopbackAddr || shared != "first-0" {
				t.Errorf("MARTINI_PMI=%s: line %q: want local %d of 3, tcp %s, shared first-0", v, line, rank, LoopbackAddr)
			}
		}
	}
}
