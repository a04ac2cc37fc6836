package pmi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
)

// servers are the fake servers every behaviour is checked against.
var servers = []struct {
	name    string
	version int
	slurm   bool
}{
	{"pmi-1", 1, false},
	{"pmi-2 hydra", 2, false},
	{"pmi-2 slurm", 2, true},
}

func fakeFor(t *testing.T, version int, slurm bool, n int) *fakeServer {
	s := newFake(t, version, n)
	s.slurm = slurm
	return s
}

// each runs f for every client at once and fails t with their errors.
func each(t *testing.T, cs []*Client, f func(r int, c *Client) error) {
	t.Helper()
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for r, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(r, c)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// awaitRequest waits until the server has received want ("rank request",
// as fakeServer.requests writes it) and then drains the server's further
// notifications. It fails t if early yields first: a call that should be
// waiting at the server returned.
func awaitRequest(t *testing.T, s *fakeServer, want string, early <-chan error) {
	t.Helper()
	for {
		select {
		case ev := <-s.notify:
			if ev != want {
				continue
			}
			go func() {
				for range s.notify {
				}
			}()
			return
		case err := <-early:
			t.Fatalf("returned (%v) before the server received %q", err, want)
		}
	}
}

// awkward is a value of rank r that needs escaping.
func awkward(r int) string {
	return fmt.Sprintf("r%d a b=c;d,e\\f%%g\n\x00\xff PMI_", r)
}

func TestPutFenceCollectGet(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			const n = 3
			s := fakeFor(t, srv.version, srv.slurm, n)
			cs := s.clients(0)
			each(t, cs, func(r int, c *Client) error {
				me := strconv.Itoa(r)
				for k, v := range map[string]string{"p/" + me: awkward(r), "p/empty/" + me: "", "q/" + me: "q" + me} {
					if err := c.Put(k, v); err != nil {
						return err
					}
				}
				if v, err := c.Get("p/" + me); err != nil || v != awkward(r) {
					return fmt.Errorf("own key before the fence: %q, %v", v, err)
				}
				kv, err := c.FenceCollect("p/")
				if err != nil {
					return err
				}
				if len(kv) != 2*n {
					return fmt.Errorf("collected %q, want %d pairs", kv, 2*n)
				}
				for o := range n {
					if v := kv["p/"+strconv.Itoa(o)]; v != awkward(o) {
						return fmt.Errorf("collected p/%d = %q", o, v)
					}
					if v, ok := kv["p/empty/"+strconv.Itoa(o)]; !ok || v != "" {
						return fmt.Errorf("collected p/empty/%d = %q, %v", o, v, ok)
					}
					if v, err := c.Get("q/" + strconv.Itoa(o)); err != nil || v != "q"+strconv.Itoa(o) {
						return fmt.Errorf("get q/%d = %q, %v", o, v, err)
					}
				}
				// Keys put after the collect show in the next one, after
				// a plain Fence in between.
				if err := c.Put("later/"+me, "l"+me); err != nil {
					return err
				}
				if err := c.Fence(); err != nil {
					return err
				}
				if kv, err = c.FenceCollect("later/"); err != nil || len(kv) != n || kv["later/0"] != "l0" {
					return fmt.Errorf("second collect: %q, %v", kv, err)
				}
				if kv, err = c.FenceCollect("q/"); err != nil || len(kv) != n || kv["q/2"] != "q2" {
					return fmt.Errorf("collect of keys read by Get: %q, %v", kv, err)
				}
				return c.Close()
			})
		})
	}
}

// The escaped forms travel: what the server stores is the escaped value,
// under the escaped key, reserved prefix included.
func TestWireForms(t *testing.T) {
	s := fakeFor(t, 1, false, 1)
	c := s.clients(0)[0]
	if err := c.Put("PMI_x y", "a b"); err != nil {
		t.Fatal(err)
	}
	if err := c.Fence(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"init pmi_subversion=1 pmi_version=1",
		"get_maxes",
		"get_my_kvsname",
		"put key=%50MI_x%20y kvsname=kvs_42_0 value=a%20b",
		"put key=%i0.0 kvsname=kvs_42_0 value=%50MI_x%20y",
		"barrier_in",
	}
	if got := s.requests(0); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.JobID() != "kvs_42_0" || c.Version() != 1 || c.Rank() != 0 || c.Size() != 1 {
		t.Errorf("job %q, version %d, rank %d of %d", c.JobID(), c.Version(), c.Rank(), c.Size())
	}
}

// FenceCollect's exchanges are those its documentation counts.
func TestCollectRoundTrips(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			const n = 4
			s := fakeFor(t, srv.version, srv.slurm, n)
			cs := s.clients(0)
			each(t, cs, func(r int, c *Client) error {
				if err := c.Put("boot/"+strconv.Itoa(r), "v"); err != nil {
					return err
				}
				if err := c.Put("other/"+strconv.Itoa(r), "v"); err != nil {
					return err
				}
				_, err := c.FenceCollect("boot/")
				return err
			})
			put, get, fence := "put ", "get ", "barrier_in"
			barrier := 1
			if srv.version == 2 {
				put, get, fence = "kvs-put ", "kvs-get ", "kvs-fence"
				barrier = 2 // kvs-fence and the kvs-get of barrierKey
			}
			for r := range n {
				puts, gets := s.count(r, put), s.count(r, get)
				fences := s.count(r, fence) + s.count(r, get+"key="+barrierKey)
				// Two keys and one index key; n-1 index keys read and n-1
				// gets that find no more; n-1 values.
				if puts != 3 || fences != barrier || gets-(fences-1) != 3*(n-1) {
					t.Errorf("rank %d: %d puts, %d barrier exchanges, %d gets: %q", r, puts, fences, gets, s.requests(r))
				}
			}
		})
	}
}

// Many keys need several index keys.
func TestIndexOverSeveralKeys(t *testing.T) {
	s := newFake(t, 1, 2)
	s.maxes = "kvsname_max=256 keylen_max=16 vallen_max=20"
	cs := s.clients(0)
	each(t, cs, func(r int, c *Client) error {
		for i := range 10 {
			if err := c.Put(fmt.Sprintf("k/%d/%d", r, i), strconv.Itoa(i)); err != nil {
				return err
			}
		}
		kv, err := c.FenceCollect("k/")
		if err != nil {
			return err
		}
		if len(kv) != 20 || kv["k/1/9"] != "9" || kv["k/0/3"] != "3" {
			return fmt.Errorf("collected %q", kv)
		}
		return nil
	})
	if n := s.count(0, "put key=%i0."); n < 4 {
		t.Errorf("10 keys of 5 bytes in values of 19 bytes: %d index keys", n)
	}
}

func TestTooLong(t *testing.T) {
	s := newFake(t, 1, 1)
	s.maxes = "kvsname_max=256 keylen_max=16 vallen_max=32"
	c := s.clients(0)[0]
	for _, kv := range [][2]string{
		{"k", strings.Repeat("v", 32)},   // 32 > 31
		{"k", strings.Repeat(" ", 11)},   // 33 escaped
		{strings.Repeat("k", 16), "v"},   // 16 > 15
		{"k=k=k=k=k", "v"},               // 17 escaped
		{"", "v"},                        // empty
		{"PMI_abcdefghijk", "v"},         // 17 with its escaped P
		{"k", strings.Repeat("é", 6)},    // 12 bytes, 36 escaped
		{"key", strings.Repeat("v", 31)}, // fits: checked below
	} {
		err := c.Put(kv[0], kv[1])
		if kv[0] == "key" {
			if err != nil {
				t.Errorf("put of a value of 31 bytes: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(kv[0])) ||
			(kv[0] != "" && !errors.Is(err, ErrTooLong)) {
			t.Errorf("put %q (%d bytes) = %v, want an error naming it, ErrTooLong", kv[0], len(kv[1]), err)
		}
	}
	if _, err := c.Get(strings.Repeat("k", 16)); !errors.Is(err, ErrTooLong) {
		t.Errorf("get of a key too long: %v", err)
	}
	if n := s.count(0, "put "); n != 1 {
		t.Errorf("%d puts reached the server, want the one that fits", n)
	}
}

func TestPutTwice(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			s := fakeFor(t, srv.version, srv.slurm, 1)
			c := s.clients(0)[0]
			if err := c.Put("k", "v"); err != nil {
				t.Fatal(err)
			}
			if err := c.Put("k", "v"); err != nil {
				t.Errorf("same value again: %v", err)
			}
			if err := c.Put("k", "w"); !errors.Is(err, ErrPutTwice) || !strings.Contains(err.Error(), `"k"`) {
				t.Errorf("another value: %v, want ErrPutTwice naming the key", err)
			}
			if v, err := c.Get("k"); v != "v" || err != nil {
				t.Errorf("get = %q, %v", v, err)
			}
			put := map[int]string{1: "put ", 2: "kvs-put "}[srv.version]
			if n := s.count(0, put); n != 1 {
				t.Errorf("%d puts reached the server", n)
			}
		})
	}
}

// A Get waits for a key that another process puts later (Hydra's PMI-2
// makes puts visible at once), and gives up after the Timeout.
func TestGetWaits(t *testing.T) {
	s := newFake(t, 2, 2)
	s.notify = make(chan string, 100)
	cs := s.clients(0)
	got := make(chan error, 1)
	go func() {
		v, err := cs[1].Get("late")
		if err == nil && v != "here" {
			err = fmt.Errorf("value %q", v)
		}
		got <- err
	}()
	// Rank 1 asks, and is told there is no such key.
	awaitRequest(t, s, "1 kvs-get key=late", got)
	if err := cs[0].Put("late", "here"); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Errorf("get of a key put later: %v", err)
	}

	s2 := newFake(t, 1, 1)
	c := s2.clients(200 * time.Millisecond)[0]
	_, err := c.Get("never")
	if !errors.Is(err, datastore.ErrTimeout) || !strings.Contains(err.Error(), `"never"`) {
		t.Errorf("get of a key nobody puts: %v, want ErrTimeout naming the key", err)
	}
	if err := c.Put("after", "ok"); err != nil {
		t.Errorf("put after a Get timed out: %v", err)
	}
}

// A Get that times out against a server slow to say "not yet" leaves the
// connection usable: its last question waits for its answer.
func TestGetSlowServerTimesOut(t *testing.T) {
	const timeout, delay = 100 * time.Millisecond, 30 * time.Millisecond
	s := newFake(t, 2, 1)
	s.notify = make(chan string) // each request waits to be taken
	go func() {
		for {
			time.Sleep(delay)
			select {
			case <-s.notify:
			case <-s.finished:
				return
			}
		}
	}()
	c := s.clients(timeout)[0]
	_, err := c.Get("never")
	if !errors.Is(err, datastore.ErrTimeout) || !strings.Contains(err.Error(), "did not have it") {
		t.Errorf("get of a key nobody puts: %v, want the server not having it", err)
	}
	if err := c.Put("after", "ok"); err != nil {
		t.Errorf("put after a Get timed out: %v", err)
	}
}

// On Hydra, PMI-2's kvs-fence does not wait: the client's Fence must not
// return before every process has fenced.
func TestFenceIsABarrier(t *testing.T) {
	s := newFake(t, 2, 2)
	s.notify = make(chan string, 100)
	cs := s.clients(0)
	done := make(chan error, 1)
	go func() { done <- cs[0].Fence() }()
	awaitRequest(t, s, "0 kvs-get key="+barrierKey, done)
	// The server records a request before it handles it: wait for it to
	// hold the get.
	for deadline := time.Now().Add(5 * time.Second); len(s.heldGets()) != 1; {
		if time.Now().After(deadline) {
			t.Fatalf("server holds %q, want rank 0's barrier get", s.heldGets())
		}
		time.Sleep(time.Millisecond)
	}
	if err := cs[1].Fence(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A fence fails, instead of hanging, when the server goes away.
func TestServerGoneDuringFence(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			s := fakeFor(t, srv.version, srv.slurm, 2)
			s.notify = make(chan string, 100)
			cs := s.clients(0)
			done := make(chan error, 1)
			go func() {
				_, err := cs[0].FenceCollect("x")
				done <- err
			}()
			fence := map[int]string{1: "0 barrier_in", 2: "0 kvs-fence"}[srv.version]
			awaitRequest(t, s, fence, done)
			s.closeAll()
			err := <-done
			if !errors.Is(err, ErrServerLost) || !strings.Contains(err.Error(), "collect") {
				t.Errorf("fence when the server went away: %v, want ErrServerLost", err)
			}
			if err := cs[0].Put("k", "v"); !errors.Is(err, ErrServerLost) {
				t.Errorf("put after the loss: %v", err)
			}
			if err := cs[0].Close(); err != nil {
				t.Errorf("close after the loss: %v", err)
			}
		})
	}
}

func TestAbort(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			s := fakeFor(t, srv.version, srv.slurm, 2)
			s.notify = make(chan string, 100)
			cs := s.clients(0)
			// Rank 0 waits in a fence; rank 1 aborts meanwhile.
			fenced := make(chan error, 1)
			go func() { fenced <- cs[0].Fence() }()
			fence := map[int]string{1: "0 barrier_in", 2: "0 kvs-get key=" + barrierKey}[srv.version]
			if srv.slurm {
				fence = "0 kvs-fence"
			}
			awaitRequest(t, s, fence, fenced)
			if err := cs[1].Abort(7, "bad;input\nhere"); err != nil {
				t.Fatal(err)
			}
			// The server ends the whole job, rank 0's connection too.
			select {
			case err := <-fenced:
				if !errors.Is(err, ErrServerLost) {
					t.Errorf("fence after the abort: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("rank 0 still in its fence 10 s after rank 1's abort: the server did not end the job (requests %q)", s.requests(1))
			}
			want := map[int]string{
				1: "abort exitcode=7",
				2: "abort isworld=TRUE msg=bad input here",
			}[srv.version]
			if reqs := s.requests(1); reqs[len(reqs)-1] != want {
				t.Errorf("server got %q, want %q last", reqs, want)
			}
		})
	}
}

func TestClose(t *testing.T) {
	for _, srv := range servers[:2] {
		t.Run(srv.name, func(t *testing.T) {
			s := fakeFor(t, srv.version, srv.slurm, 1)
			c := s.clients(0)[0]
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			fin := map[int]string{1: "finalize", 2: "finalize"}[srv.version]
			if reqs := s.requests(0); reqs[len(reqs)-1] != fin {
				t.Errorf("last request %q, want finalize", reqs[len(reqs)-1])
			}
			for name, err := range map[string]error{
				"put":   c.Put("k", "v"),
				"fence": c.Fence(),
				"abort": c.Abort(1, ""),
			} {
				if !errors.Is(err, datastore.ErrClosed) {
					t.Errorf("%s after Close: %v", name, err)
				}
			}
			if _, err := c.Get("k"); !errors.Is(err, datastore.ErrClosed) {
				t.Errorf("get after Close: %v", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}

			// A server that closes instead of acknowledging.
			s2 := fakeFor(t, srv.version, srv.slurm, 1)
			s2.noAck = true
			if err := s2.clients(0)[0].Close(); !errors.Is(err, ErrServerLost) {
				t.Errorf("close without an acknowledgement: %v, want ErrServerLost", err)
			}
		})
	}
}

// Close does not wait for a fence that waits for others: the fence fails
// with ErrClosed.
func TestCloseDuringFence(t *testing.T) {
	s := newFake(t, 1, 2)
	s.notify = make(chan string, 100)
	cs := s.clients(0)
	done := make(chan error, 1)
	go func() { done <- cs[0].Fence() }()
	awaitRequest(t, s, "0 barrier_in", done)
	if err := cs[0].Close(); err != nil {
		t.Errorf("close during a fence: %v", err)
	}
	if err := <-done; !errors.Is(err, datastore.ErrClosed) {
		t.Errorf("fence closed under: %v, want ErrClosed", err)
	}
}

func TestOpenErrors(t *testing.T) {
	for name, c := range map[string]struct {
		opts Options
		want string
	}{
		"version": {Options{Version: 3, Size: 1}, "no PMI version 3"},
		"rank":    {Options{Version: 1, Rank: 2, Size: 2}, "rank 2 of 2"},
		"size":    {Options{Version: 2, Rank: 0, Size: 3}, "the server says rank 0 of 1"},
	} {
		s := newFake(t, c.opts.Version, 1)
		end := s.start()[0]
		if _, err := Open(end, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
}

// The first fence waits for the other processes for at most the
// InitTimeout, and says so; the later ones wait without a bound.
func TestFirstFenceBounded(t *testing.T) {
	const bound = 200 * time.Millisecond
	open := func(t *testing.T, version int, slurm bool) []*Client {
		s := fakeFor(t, version, slurm, 2)
		var cs []*Client
		for r, end := range s.start() {
			c, err := Open(end, Options{Version: version, Rank: r, Size: 2, Timeout: 10 * time.Second, InitTimeout: bound})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			cs = append(cs, c)
		}
		return cs
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			cs := open(t, srv.version, srv.slurm)
			start := time.Now()
			_, err := cs[0].FenceCollect("x")
			if !errors.Is(err, datastore.ErrTimeout) || !strings.Contains(err.Error(), "rank 0 of 2: the job's other processes did not all come") ||
				!strings.Contains(err.Error(), EnvInitTimeout) {
				t.Errorf("first fence without rank 1: %v, want a timeout naming %s", err, EnvInitTimeout)
			}
			if took := time.Since(start); took < bound || took > bound+5*time.Second {
				t.Errorf("first fence failed after %v, want about %v", took, bound)
			}

			cs = open(t, srv.version, srv.slurm)
			each(t, cs, func(r int, c *Client) error { return c.Fence() })
			done := make(chan error, 1)
			go func() { done <- cs[0].Fence() }()
			select {
			case err := <-done:
				t.Fatalf("second fence without rank 1 returned (%v)", err)
			case <-time.After(3 * bound):
			}
			if err := cs[1].Fence(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}
