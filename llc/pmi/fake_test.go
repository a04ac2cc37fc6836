package pmi

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeServer is an in-process PMI server for the tests, with its own
// parsing of the wires (not the package's). Its PMI-1 behaves like
// Hydra's: puts become visible at the barrier, gets are answered at once
// (rc=-1 for a missing key). Its PMI-2 behaves like Hydra's (kvs-put
// visible at once, kvs-fence answered at once, a kvs-get of a missing key
// held until every process has fenced as often as the asker) or, with
// slurm set, like Slurm's (kvs-puts visible and kvs-fence answered when
// every process has fenced).
type fakeServer struct {
	t       *testing.T
	version int
	slurm   bool
	n       int
	maxes   string // PMI-1 get_maxes answer attributes
	noAck   bool   // close the connection instead of acknowledging finalize

	mu       sync.Mutex
	conns    []*fakeConn
	visible  map[string]string
	unseen   map[string]string // put, visible at the next barrier
	arrived  []int             // ranks in the current barrier
	epoch    []int             // PMI-2 fences per rank
	held     []heldGet
	log      [][]string    // requests by rank, as received
	notify   chan string   // "rank request" of every request, if not nil
	finished chan struct{} // closed when every connection has ended
}

type heldGet struct {
	rank int
	key  string
}

type fakeConn struct {
	rank int
	f    *os.File
	wmu  sync.Mutex
}

// socketPair returns the two ends of a stream socket pair, non-blocking
// as FromEnv makes an inherited PMI_FD.
func socketPair(t *testing.T) (client, server *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if err := unix.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
	}
	return os.NewFile(uintptr(fds[0]), "client"), os.NewFile(uintptr(fds[1]), "server")
}

func newFake(t *testing.T, version, n int) *fakeServer {
	return &fakeServer{
		t: t, version: version, n: n, maxes: "kvsname_max=256 keylen_max=64 vallen_max=1024",
		visible: map[string]string{}, unseen: map[string]string{},
		epoch: make([]int, n), log: make([][]string, n), finished: make(chan struct{}),
	}
}

// start serves n connections and returns their client ends.
func (s *fakeServer) start() []*os.File {
	var ends, srvs []*os.File
	for range s.n {
		c, srv := socketPair(s.t)
		ends, srvs = append(ends, c), append(srvs, srv)
	}
	s.attach(srvs)
	return ends
}

// attach serves the server ends of the n connections, one per rank.
func (s *fakeServer) attach(srvs []*os.File) {
	var wg sync.WaitGroup
	for r, srv := range srvs {
		fc := &fakeConn{rank: r, f: srv}
		s.conns = append(s.conns, fc)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serve(fc)
		}()
	}
	go func() {
		wg.Wait()
		close(s.finished)
	}()
	s.t.Cleanup(func() {
		s.closeAll()
		<-s.finished
	})
}

// clients starts the server and opens a client on every connection.
func (s *fakeServer) clients(timeout time.Duration) []*Client {
	s.t.Helper()
	ends := s.start()
	cs := make([]*Client, s.n)
	for r, end := range ends {
		c, err := Open(end, Options{Version: s.version, Rank: r, Size: s.n, JobID: "job-7", Timeout: timeout})
		if err != nil {
			s.t.Fatal(err)
		}
		cs[r] = c
	}
	return cs
}

func (s *fakeServer) closeAll() {
	for _, c := range s.conns {
		c.f.Close()
	}
}

func (s *fakeServer) serve(c *fakeConn) {
	r := bufio.NewReader(c.f)
	v2 := false
	for {
		cmd, attrs, err := readRequest(r, v2)
		if err != nil {
			if err != io.EOF && !strings.Contains(err.Error(), "closed") {
				s.t.Errorf("fake server, rank %d: %v", c.rank, err)
			}
			return
		}
		s.record(c.rank, cmd, attrs)
		if !s.handle(c, cmd, attrs) {
			c.f.Close()
			return
		}
		if cmd == "init" && attrs["pmi_version"] == "2" {
			v2 = true
		}
	}
}

// readRequest reads a request on the PMI-1 wire, or the PMI-2 wire if v2.
func readRequest(r *bufio.Reader, v2 bool) (string, map[string]string, error) {
	attrs := map[string]string{}
	var fields []string
	if v2 {
		var hdr [6]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return "", nil, err
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(hdr[:])))
		if err != nil {
			return "", nil, fmt.Errorf("length %q: %v", hdr, err)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return "", nil, err
		}
		if !strings.HasSuffix(string(body), ";") {
			return "", nil, fmt.Errorf("frame %q does not end with ';'", body)
		}
		fields = strings.Split(strings.TrimSuffix(string(body), ";"), ";")
	} else {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", nil, err
		}
		fields = strings.Split(strings.TrimSuffix(line, "\n"), " ")
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return "", nil, fmt.Errorf("attribute %q without '='", f)
		}
		attrs[k] = v
	}
	cmd := attrs["cmd"]
	delete(attrs, "cmd")
	return cmd, attrs, nil
}

func (s *fakeServer) record(rank int, cmd string, attrs map[string]string) {
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	entry := cmd
	for _, k := range names {
		entry += " " + k + "=" + attrs[k]
	}
	s.mu.Lock()
	s.log[rank] = append(s.log[rank], entry)
	notify := s.notify
	s.mu.Unlock()
	if notify != nil {
		notify <- fmt.Sprintf("%d %s", rank, entry)
	}
}

// requests returns the requests rank made, each as its command and its
// attributes sorted by name: "get key=k kvsname=kvs_42_0".
func (s *fakeServer) requests(rank int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log[rank]...)
}

// count returns how many of rank's requests begin with prefix.
func (s *fakeServer) count(rank int, prefix string) int {
	n := 0
	for _, e := range s.requests(rank) {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

// send writes a response to c on the wire of the protocol.
func (s *fakeServer) send(c *fakeConn, v2 bool, msg string) {
	if v2 {
		msg = fmt.Sprintf("%6d%s", len(msg), msg)
	} else {
		msg += "\n"
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.f.Write([]byte(msg))
}

// handle answers a request; false ends the connection.
func (s *fakeServer) handle(c *fakeConn, cmd string, a map[string]string) bool {
	if s.version == 2 && cmd != "init" {
		return s.handle2(c, cmd, a)
	}
	switch cmd {
	case "init":
		s.send(c, false, fmt.Sprintf("cmd=response_to_init pmi_version=%s pmi_subversion=%s rc=0", a["pmi_version"], a["pmi_subversion"]))
	case "initack":
		// Hydra's answer on a connection to its port, the PMI id being
		// the rank.
		if a["pmiid"] != strconv.Itoa(c.rank) {
			s.t.Errorf("fake server: initack pmiid=%s on the connection of rank %d", a["pmiid"], c.rank)
		}
		s.send(c, false, fmt.Sprintf("cmd=initack\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=0", s.n, c.rank))
	case "get_maxes":
		s.send(c, false, "cmd=maxes "+s.maxes)
	case "get_my_kvsname":
		s.send(c, false, "cmd=my_kvsname kvsname=kvs_42_0")
	case "put":
		s.mu.Lock()
		if _, dup := s.unseen[a["key"]]; !dup {
			s.unseen[a["key"]] = a["value"]
		}
		s.mu.Unlock()
		s.send(c, false, "cmd=put_result rc=0 msg=success")
	case "get":
		s.mu.Lock()
		v, ok := s.visible[a["key"]]
		s.mu.Unlock()
		if ok {
			s.send(c, false, "cmd=get_result rc=0 msg=success value="+v)
		} else {
			s.send(c, false, "cmd=get_result rc=-1 msg=key_"+a["key"]+"_not_found value=unknown")
		}
	case "barrier_in":
		s.barrier(c, false, "cmd=barrier_out")
	case "abort":
		// Hydra ends the whole job on any abort.
		s.closeAll()
		return false
	case "finalize":
		if s.noAck {
			return false
		}
		s.send(c, false, "cmd=finalize_ack")
		return false
	default:
		s.t.Errorf("fake server: PMI-1 command %q", cmd)
		return false
	}
	return true
}

// barrier enters c into the barrier and answers everyone with reply once
// all have entered, making the puts visible.
func (s *fakeServer) barrier(c *fakeConn, v2 bool, reply string) {
	s.mu.Lock()
	s.arrived = append(s.arrived, c.rank)
	if len(s.arrived) < s.n {
		s.mu.Unlock()
		return
	}
	s.arrived = nil
	s.publish()
	s.mu.Unlock()
	for _, other := range s.conns {
		s.send(other, v2, reply)
	}
}

// publish makes the puts visible; s.mu is held.
func (s *fakeServer) publish() {
	for k, v := range s.unseen {
		if _, dup := s.visible[k]; !dup {
			s.visible[k] = v
		}
	}
	s.unseen = map[string]string{}
}

func (s *fakeServer) handle2(c *fakeConn, cmd string, a map[string]string) bool {
	switch cmd {
	case "fullinit":
		s.send(c, true, fmt.Sprintf("cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=%s;size=%d;appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;", a["pmirank"], s.n))
	case "job-getid":
		s.send(c, true, "cmd=job-getid-response;jobid=kvs_42_0;rc=0;")
	case "kvs-put":
		s.mu.Lock()
		s.unseen[a["key"]] = a["value"]
		if !s.slurm {
			s.publish()
		}
		s.mu.Unlock()
		s.send(c, true, "cmd=kvs-put-response;rc=0;")
		s.release()
	case "kvs-get":
		s.mu.Lock()
		s.held = append(s.held, heldGet{c.rank, a["key"]})
		s.mu.Unlock()
		s.release()
	case "kvs-fence":
		if s.slurm {
			s.barrier(c, true, "cmd=kvs-fence-response;rc=0;")
			return true
		}
		s.mu.Lock()
		s.epoch[c.rank]++
		s.mu.Unlock()
		s.send(c, true, "cmd=kvs-fence-response;rc=0;")
		s.release()
	case "abort":
		return s.abort2(a)
	case "finalize":
		if s.noAck {
			return false
		}
		s.send(c, true, "cmd=finalize-response;rc=0;")
		return false
	default:
		s.t.Errorf("fake server: PMI-2 command %q", cmd)
		return false
	}
	return true
}

// abort2 answers a PMI-2 abort as the servers do: Hydra ends the whole
// job on any abort (4.0 as on a command it does not know); Slurm's mpi/pmi2 plugin kills the step only when the
// request carries isworld=TRUE (its _handle_abort reads the boolean key
// "isworld", as MPICH's PMI2_Abort writes it), and otherwise leaves the
// job running without an answer. It reports whether to keep serving.
func (s *fakeServer) abort2(a map[string]string) bool {
	if s.slurm && !strings.EqualFold(a["isworld"], "TRUE") {
		return true
	}
	s.closeAll()
	return false
}

// release answers the held kvs-gets that can be answered: the key is
// there, or (Hydra) every process has fenced as often as the asker.
func (s *fakeServer) release() {
	s.mu.Lock()
	var answers []string
	var to []*fakeConn
	kept := s.held[:0]
	for _, g := range s.held {
		v, ok := s.visible[g.key]
		behind := false
		for _, e := range s.epoch {
			behind = behind || (!s.slurm && e < s.epoch[g.rank])
		}
		switch {
		case ok:
			answers = append(answers, "cmd=kvs-get-response;found=TRUE;value="+v+";rc=0;")
		case !behind:
			answers = append(answers, "cmd=kvs-get-response;found=FALSE;rc=0;")
		default:
			kept = append(kept, g)
			continue
		}
		to = append(to, s.conns[g.rank])
	}
	s.held = kept
	s.mu.Unlock()
	for i, a := range answers {
		s.send(to[i], true, a)
	}
}

// heldGets returns the kvs-gets the server holds, as "rank key".
func (s *fakeServer) heldGets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var h []string
	for _, g := range s.held {
		h = append(h, fmt.Sprintf("%d %s", g.rank, g.key))
	}
	return h
}
