package datastore

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// socketPair returns the two ends of a Unix stream socket pair, as mpirun
// creates them.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("socketpair: %v", err)
	}
	var conns [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatalf("FileConn: %v", err)
		}
		conns[i] = c
	}
	return conns[0], conns[1]
}

type testJob struct {
	srv     *Server
	clients []*Client
	raw     []net.Conn // the client ends, to simulate a rank dying
	served  []chan error
}

func newTestJob(t *testing.T, n int) *testJob {
	t.Helper()
	j := &testJob{srv: NewServer(n)}
	for r := range n {
		sc, cc := socketPair(t)
		done := make(chan error, 1)
		go func() { done <- j.srv.Serve(r, sc) }()
		j.served = append(j.served, done)
		c := NewClient(cc)
		c.Timeout = 5 * time.Second
		j.clients = append(j.clients, c)
		j.raw = append(j.raw, cc)
	}
	t.Cleanup(func() {
		for _, c := range j.clients {
			c.Close()
		}
		j.srv.Close()
	})
	return j
}

func TestPutGetAcrossClients(t *testing.T) {
	j := newTestJob(t, 3)
	for r, c := range j.clients {
		if err := c.Put("card/"+strconv.Itoa(r), fmt.Sprintf("addr-%d\x00\n", r)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range j.clients {
		for r := range j.clients {
			v, err := c.Get("card/" + strconv.Itoa(r))
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("addr-%d\x00\n", r); v != want {
				t.Errorf("Get(card/%d) = %q, want %q", r, v, want)
			}
		}
	}
	// A later Put replaces the value.
	if err := j.clients[0].Put("card/0", "new"); err != nil {
		t.Fatal(err)
	}
	if v, err := j.clients[2].Get("card/0"); err != nil || v != "new" {
		t.Errorf("Get after re-Put = %q, %v; want \"new\"", v, err)
	}
	// Empty keys and values are fine.
	if err := j.clients[1].Put("", ""); err != nil {
		t.Fatal(err)
	}
	if v, err := j.clients[0].Get(""); err != nil || v != "" {
		t.Errorf("Get(\"\") = %q, %v", v, err)
	}
}

// The launcher reads what a rank put once its Put returned, also after
// the rank has gone (Server.Value).
func TestServerValue(t *testing.T) {
	j := newTestJob(t, 2)
	if v, ok := j.srv.Value("state/1"); ok {
		t.Errorf("Value of a key nobody put: %q", v)
	}
	if err := j.clients[1].Put("state/1", "2"); err != nil {
		t.Fatal(err)
	}
	j.raw[1].Close()
	if v, ok := j.srv.Value("state/1"); !ok || v != "2" {
		t.Errorf("Value after the Put returned = %q, %v; want \"2\"", v, ok)
	}
}

func TestGetBlocksUntilPut(t *testing.T) {
	j := newTestJob(t, 2)
	got := make(chan string, 1)
	go func() {
		v, err := j.clients[1].Get("late")
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	select {
	case v := <-got:
		t.Fatalf("Get returned %q before the Put", v)
	case <-time.After(100 * time.Millisecond):
	}
	if err := j.clients[0].Put("late", "value"); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-got:
		if v != "value" {
			t.Errorf("Get = %q, want \"value\"", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Get still blocked after the Put")
	}
}

func TestGetBlockedDoesNotBlockClient(t *testing.T) {
	// A Get waiting in one goroutine must not stop the same client from
	// putting the key in another.
	j := newTestJob(t, 1)
	c := j.clients[0]
	got := make(chan error, 1)
	go func() {
		_, err := c.Get("k")
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := c.Put("k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

func TestGetTimeoutNamesKey(t *testing.T) {
	j := newTestJob(t, 2)
	j.clients[0].Timeout = 50 * time.Millisecond
	_, err := j.clients[0].Get("never/put")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("Get error = %v, want ErrTimeout", err)
	}
	if want := `"never/put"`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the key %s", err, want)
	}
	// The client still works afterwards, and a late Put is harmless.
	if err := j.clients[1].Put("never/put", "x"); err != nil {
		t.Fatal(err)
	}
	if v, err := j.clients[0].Get("never/put"); err != nil || v != "x" {
		t.Errorf("Get = %q, %v", v, err)
	}
}

func TestFence(t *testing.T) {
	const n = 4
	j := newTestJob(t, n)
	for round := range 3 {
		var arrived sync.WaitGroup
		var passed [n]time.Time
		var last time.Time
		var mu sync.Mutex
		arrived.Add(n)
		for r, c := range j.clients {
			go func() {
				defer arrived.Done()
				// Stagger the arrivals; nobody may leave before the last.
				time.Sleep(time.Duration(r) * 30 * time.Millisecond)
				mu.Lock()
				last = time.Now()
				mu.Unlock()
				if err := c.Fence(); err != nil {
					t.Errorf("round %d rank %d: %v", round, r, err)
				}
				passed[r] = time.Now()
			}()
		}
		arrived.Wait()
		for r, p := range passed {
			if p.Before(last) {
				t.Errorf("round %d: rank %d left the fence before the last rank entered it", round, r)
			}
		}
	}
}

func TestFenceFailsWhenRankDies(t *testing.T) {
	const n = 4
	j := newTestJob(t, n)
	errs := make(chan error, n-1)
	for r := range n - 1 {
		go func() { errs <- j.clients[r].Fence() }()
	}
	blocked := make(chan error, 1)
	go func() {
		_, err := j.clients[0].Get("from/the/dead")
		blocked <- err
	}()
	time.Sleep(50 * time.Millisecond)
	// Rank 3 dies: its connection closes without a goodbye.
	j.raw[n-1].Close()
	for range n - 1 {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrRankLost) {
				t.Errorf("Fence error = %v, want ErrRankLost", err)
			} else if !strings.Contains(err.Error(), "rank 3") {
				t.Errorf("Fence error %q does not name rank 3", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Fence still blocked after a rank died")
		}
	}
	if err := <-blocked; !errors.Is(err, ErrRankLost) {
		t.Errorf("pending Get error = %v, want ErrRankLost", err)
	}
	if err := j.clients[1].Fence(); !errors.Is(err, ErrRankLost) {
		t.Errorf("later Fence error = %v, want ErrRankLost", err)
	}
	if err := <-j.served[n-1]; err == nil || !strings.Contains(err.Error(), "rank 3") {
		t.Errorf("Serve of the dead rank returned %v", err)
	}
	// Rank 3 broke the job; another rank dying afterwards did not.
	j.raw[1].Close()
	<-j.served[1]
	if r, ok := j.srv.LostRank(); !ok || r != n-1 {
		t.Errorf("LostRank = %d, %v; want %d", r, ok, n-1)
	}
}

func TestFenceFailsWhenRankLeft(t *testing.T) {
	j := newTestJob(t, 3)
	if err := j.clients[2].Put("k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := j.clients[2].Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-j.served[2]; err != nil {
		t.Errorf("Serve of a cleanly closed rank = %v, want nil", err)
	}
	if err := j.clients[0].Fence(); !errors.Is(err, ErrRankLost) {
		t.Errorf("Fence error = %v, want ErrRankLost", err)
	}
	// Gets still work after a clean departure.
	if v, err := j.clients[1].Get("k"); err != nil || v != "v" {
		t.Errorf("Get = %q, %v", v, err)
	}
	if err := j.clients[2].Put("k", "w"); !errors.Is(err, ErrClosed) {
		t.Errorf("Put after Close = %v, want ErrClosed", err)
	}
	if r, ok := j.srv.LostRank(); ok {
		t.Errorf("LostRank = %d after a clean departure", r)
	}
}

func TestAbortDelivered(t *testing.T) {
	srv := NewServer(2)
	aborts := make(chan AbortRequest, 1)
	srv.OnAbort = func(a AbortRequest) { aborts <- a }
	sc, cc := socketPair(t)
	go srv.Serve(1, sc)
	c := NewClient(cc)
	defer srv.Close()
	defer c.Close()
	if err := c.Abort(7, "bad input"); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-aborts:
		if want := (AbortRequest{Rank: 1, Code: 7, Msg: "bad input"}); a != want {
			t.Errorf("abort = %+v, want %+v", a, want)
		}
	default:
		t.Fatal("Abort returned before the server took note")
	}
}

func TestServerCloseFailsPending(t *testing.T) {
	j := newTestJob(t, 2)
	errs := make(chan error, 1)
	go func() { errs <- j.clients[0].Fence() }()
	time.Sleep(20 * time.Millisecond)
	j.srv.Close()
	if err := <-errs; err == nil {
		t.Fatal("Fence succeeded after the server closed")
	}
	if err := <-j.served[1]; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve = %v, want ErrServerClosed", err)
	}
}

func TestServeRejectsBadRank(t *testing.T) {
	srv := NewServer(2)
	defer srv.Close()
	for _, r := range []int{-1, 2} {
		sc, cc := socketPair(t)
		if err := srv.Serve(r, sc); err == nil {
			t.Errorf("Serve(%d) succeeded", r)
		}
		cc.Close()
	}
}

func TestLocal(t *testing.T) {
	l := NewLocal()
	l.Timeout = 50 * time.Millisecond
	if err := l.Put("a", "1"); err != nil {
		t.Fatal(err)
	}
	if v, err := l.Get("a"); err != nil || v != "1" {
		t.Errorf("Get = %q, %v", v, err)
	}
	if _, err := l.Get("missing"); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("Get(missing) = %v, want a timeout naming the key", err)
	}
	l.Timeout = 5 * time.Second
	got := make(chan string)
	go func() {
		v, _ := l.Get("later")
		got <- v
	}()
	time.Sleep(20 * time.Millisecond)
	l.Put("later", "2")
	if v := <-got; v != "2" {
		t.Errorf("blocked Get = %q", v)
	}
	if err := l.Fence(); err != nil {
		t.Fatal(err)
	}
	if err := l.Abort(3, "oops"); err != nil {
		t.Fatal(err)
	}
	if a, ok := l.Aborted(); !ok || a.Code != 3 || a.Msg != "oops" {
		t.Errorf("Aborted = %+v, %v", a, ok)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Fence(); !errors.Is(err, ErrClosed) {
		t.Errorf("Fence after Close = %v", err)
	}
}

// collectAll has every client of j enter a fence at once, by FenceCollect
// with prefix, or by Fence for the ranks in plain, and returns what each
// collected.
func collectAll(t *testing.T, j *testJob, prefix string, plain ...int) []map[string]string {
	t.Helper()
	got := make([]map[string]string, len(j.clients))
	errs := make([]error, len(j.clients))
	var wg sync.WaitGroup
	for r, c := range j.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if slices.Contains(plain, r) {
				errs[r] = c.Fence()
			} else {
				got[r], errs[r] = c.FenceCollect(prefix)
			}
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return got
}

func TestFenceCollect(t *testing.T) {
	const n = 5
	j := newTestJob(t, n)
	want := map[string]string{}
	for r, c := range j.clients {
		key, value := "card/"+strconv.Itoa(r), fmt.Sprintf("addr-%d\x00\n", r)
		if err := c.Put(key, value); err != nil {
			t.Fatal(err)
		}
		want[key] = value
		if err := c.Put("other/"+strconv.Itoa(r), "not collected"); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.clients[0].Put("card/", ""); err != nil { // the bare prefix is a key like any other
		t.Fatal(err)
	}
	want["card/"] = ""
	// Rank 3 enters the same fence without collecting.
	for r, kv := range collectAll(t, j, "card/", 3) {
		if r == 3 {
			continue
		}
		if !maps.Equal(kv, want) {
			t.Errorf("rank %d collected %q, want %q", r, kv, want)
		}
	}
	// The next fence is a new epoch, and sees the pairs put meanwhile.
	if err := j.clients[4].Put("card/4", "moved"); err != nil {
		t.Fatal(err)
	}
	want["card/4"] = "moved"
	for r, kv := range collectAll(t, j, "card/") {
		if !maps.Equal(kv, want) {
			t.Errorf("second fence: rank %d collected %q, want %q", r, kv, want)
		}
	}
	for r, kv := range collectAll(t, j, "none/") {
		if len(kv) != 0 {
			t.Errorf("rank %d collected %q under a prefix nobody put", r, kv)
		}
	}
}

func TestFenceCollectWaitsForAll(t *testing.T) {
	j := newTestJob(t, 3)
	done := make(chan map[string]string, 2)
	for r := range 2 {
		go func() {
			j.clients[r].Put("k/"+strconv.Itoa(r), "v")
			kv, err := j.clients[r].FenceCollect("k/")
			if err != nil {
				t.Error(err)
			}
			done <- kv
		}()
	}
	select {
	case kv := <-done:
		t.Fatalf("FenceCollect returned %q before rank 2 entered the fence", kv)
	case <-time.After(100 * time.Millisecond):
	}
	if err := j.clients[2].Put("k/2", "v"); err != nil {
		t.Fatal(err)
	}
	kv, err := j.clients[2].FenceCollect("k/")
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []map[string]string{kv, <-done, <-done} {
		if len(got) != 3 {
			t.Errorf("collected %q, want the pairs of all 3 ranks", got)
		}
	}
}

func TestFenceCollectFailsWhenRankDies(t *testing.T) {
	j := newTestJob(t, 3)
	errs := make(chan error, 2)
	for r := range 2 {
		go func() {
			_, err := j.clients[r].FenceCollect("")
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	j.raw[2].Close() // rank 2 dies
	for range 2 {
		if err := <-errs; !errors.Is(err, ErrRankLost) || !strings.Contains(err.Error(), "rank 2") {
			t.Errorf("FenceCollect error = %v, want ErrRankLost naming rank 2", err)
		}
	}
}

func TestFenceAfterRankLeftFails(t *testing.T) {
	// Rank 2 takes part in the first fence and then leaves: the first
	// fence completes, the second cannot.
	j := newTestJob(t, 3)
	collectAll(t, j, "")
	if err := j.clients[2].Close(); err != nil {
		t.Fatal(err)
	}
	<-j.served[2]
	for r := range 2 {
		_, err := j.clients[r].FenceCollect("")
		if !errors.Is(err, ErrRankLost) || !strings.Contains(err.Error(), "rank 2 closed") {
			t.Errorf("rank %d: FenceCollect after rank 2 left = %v, want ErrRankLost naming rank 2", r, err)
		}
	}
}

func TestFenceCollectTooLarge(t *testing.T) {
	// Two values that each fit in a frame but not together.
	j := newTestJob(t, 1)
	big := strings.Repeat("x", maxFrame/2)
	for _, k := range []string{"big/1", "big/2"} {
		if err := j.clients[0].Put(k, big); err != nil {
			t.Fatal(err)
		}
	}
	_, err := j.clients[0].FenceCollect("big/")
	if err == nil || !strings.Contains(err.Error(), "more than a frame holds") {
		t.Fatalf("FenceCollect of %d bytes = %v, want an error saying it does not fit", 2*len(big), err)
	}
	// The store goes on working.
	if kv, err := j.clients[0].FenceCollect("none/"); err != nil || len(kv) != 0 {
		t.Errorf("FenceCollect afterwards = %q, %v", kv, err)
	}
}

func TestLocalFenceCollect(t *testing.T) {
	l := NewLocal()
	l.Put("boot/0", "7")
	l.Put("other", "x")
	kv, err := l.FenceCollect("boot/")
	if err != nil || !maps.Equal(kv, map[string]string{"boot/0": "7"}) {
		t.Errorf("FenceCollect = %q, %v", kv, err)
	}
	l.Close()
	if _, err := l.FenceCollect("boot/"); !errors.Is(err, ErrClosed) {
		t.Errorf("FenceCollect after Close = %v, want ErrClosed", err)
	}
}
