package bootstrap

import (
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rhinet-go/martini/llc"
	"github.com/rhinet-go/martini/llc/datastore"
	"golang.org/x/sys/unix"
)

// countingStore counts the requests a process makes to its data store.
type countingStore struct {
	datastore.Store
	requests atomic.Int64
}

func (c *countingStore) Put(key, value string) error {
	c.requests.Add(1)
	return c.Store.Put(key, value)
}

func (c *countingStore) Get(key string) (string, error) {
	c.requests.Add(1)
	return c.Store.Get(key)
}

func (c *countingStore) Fence() error {
	c.requests.Add(1)
	return c.Store.Fence()
}

func (c *countingStore) FenceCollect(prefix string) (map[string]string, error) {
	c.requests.Add(1)
	return c.Store.FenceCollect(prefix)
}

// storeJob returns the clients of a data-store server for n ranks, as
// mpirun connects them.
func storeJob(t *testing.T, n int) []datastore.Store {
	t.Helper()
	srv := datastore.NewServer(n)
	t.Cleanup(func() { srv.Close() })
	stores := make([]datastore.Store, n)
	for r := range n {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		var conns [2]net.Conn
		for i, fd := range fds {
			f := os.NewFile(uintptr(fd), "socketpair")
			conns[i], err = net.FileConn(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		go srv.Serve(r, conns[0])
		c := datastore.NewClient(conns[1])
		t.Cleanup(func() { c.Close() })
		stores[r] = c
	}
	return stores
}

// The bootstrap exchange costs every process one data-store request
// besides its own puts, however many processes the job has: it was a Get
// per process, quadratic in the job.
func TestExchangeBootOneRequest(t *testing.T) {
	const n = 64
	stores := storeJob(t, n)
	var wg sync.WaitGroup
	for r, store := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := store.Put(regionKey(r), strconv.Itoa(100+r)); err != nil {
				t.Error(err)
				return
			}
			if r == 0 {
				if err := store.Put(worldBarrierKey, "3"); err != nil {
					t.Error(err)
					return
				}
			}
			counted := &countingStore{Store: store}
			_, boot, offload, err := collect(counted, n)
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
				return
			}
			for q, sid := range boot {
				if sid != llc.RegionID(100+q) {
					t.Errorf("rank %d: bootstrap region of rank %d = %d, want %d", r, q, sid, 100+q)
				}
			}
			if offload != 3 {
				t.Errorf("rank %d: World's barrier controller %d, want 3", r, offload)
			}
			if got := counted.requests.Load(); got != 1 {
				t.Errorf("rank %d: %d data-store requests to learn %d bootstrap regions, want 1", r, got, n)
			}
		}()
	}
	wg.Wait()
}

func TestExchangeBootMissing(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   map[string]string
		want string
	}{
		{"no region", map[string]string{regionKey(0): "1", worldBarrierKey: "-1"}, "rank 1 published no bootstrap region"},
		{"bad region", map[string]string{regionKey(0): "1", regionKey(1): "x", worldBarrierKey: "-1"}, `bootstrap region of rank 1: "x"`},
		{"no controller", map[string]string{regionKey(0): "1", regionKey(1): "2"}, "no barrier controller"},
	} {
		store := datastore.NewLocal()
		for k, v := range tc.kv {
			store.Put(k, v)
		}
		_, _, _, err := collect(store, 2)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
