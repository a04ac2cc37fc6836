package pmi

import (
	"fmt"
	"strconv"
	"strings"
)

// PMI servers cannot list their keys: PMI-1's getbyidx iteration is
// optional (RFC 13) and Hydra's servers (PMI-1 and PMI-2) have no such
// command. So every process publishes which keys it put, in index keys of
// its own:
//
//	%i<rank>.<n>   the n-th index key of process rank (n = 0, 1, ...):
//	               wire keys it put, separated by commas
//
// At each fence, before the barrier, a process puts one index key for the
// keys it put since its previous fence (more if they do not fit in one
// value), none if it put none. After a FenceCollect's barrier, a process
// reads the index keys of every other process that it has not read yet,
// in order, until the server does not have the next one, and then gets
// the values of the keys that begin with the prefix and that it has not
// read before. Index keys begin with '%' and a letter that is not a
// hexadecimal digit, so no key of the store (wireKey) is one of them.

// index is what a client knows of the keys of the store.
type index struct {
	rank, size int
	own        map[string]string // key -> value, put by this process
	pending    []string          // wire keys put since the last fence
	published  int               // index keys this process has put
	next       []int             // by rank: the next index key to read
	known      map[string]string // wire key -> key, from the others' index keys
	values     map[string]string // wire key -> value, read from the server
}

func newIndex(rank, size int) index {
	return index{
		rank: rank, size: size, own: make(map[string]string), next: make([]int, size),
		known: make(map[string]string), values: make(map[string]string),
	}
}

func indexKey(rank, n int) string {
	return "%i" + strconv.Itoa(rank) + "." + strconv.Itoa(n)
}

// publish puts the index keys of the keys put since the last fence.
func (c *Client) publish() error {
	for len(c.pending) > 0 {
		key := indexKey(c.rank, c.published)
		if len(key) > c.keyMax {
			return fmt.Errorf("index key %s: %w (%d)", key, ErrTooLong, c.keyMax)
		}
		value, n := joinUpTo(c.pending, c.valMax)
		if n == 0 {
			return fmt.Errorf("index key %s: wire key %s %w (%d)", key, c.pending[0], ErrTooLong, c.valMax)
		}
		if err := c.proto.put(key, value); err != nil {
			return fmt.Errorf("put index key %s: %w", key, err)
		}
		c.published++
		c.pending = c.pending[n:]
	}
	c.pending = nil
	return nil
}

// joinUpTo joins the first keys of keys with commas, as many as fit in
// max bytes, and returns how many it joined.
func joinUpTo(keys []string, max int) (string, int) {
	size, n := 0, 0
	for _, k := range keys {
		add := len(k)
		if n > 0 {
			add++
		}
		if size+add > max {
			break
		}
		size += add
		n++
	}
	return strings.Join(keys[:n], ","), n
}

// FenceCollect is a Fence that then returns every pair of the store whose
// key begins with prefix: what this process put, and what the others put
// before they entered this fence (possibly more, if they have put since).
// Like Fence, it is not bounded by the Timeout.
//
// Its cost in exchanges with the server (each a round trip), for a job
// of n processes:
//   - one put per index key of the keys this process put since its
//     previous fence: none if it put none, else one, more when their
//     wire keys and commas pass the longest value (1023 bytes on Hydra);
//   - the barrier: one exchange on PMI-1, two on PMI-2;
//   - for every other process, one get per index key it published since
//     this process last read its index keys, and one get that finds no
//     more;
//   - one get per key with the prefix that this process has not read yet.
//
// So a job whose processes each put k keys (that fit one index key) and
// then collect them costs every process 2 + (n-1)·(2+k) exchanges on
// PMI-1, one more on PMI-2: O(n) per process for a bounded k, O(n²) for
// the job. On Hydra's PMI-1, the barrier hands every key to the proxies,
// and a proxy answers the gets of keys that exist itself; the get that
// finds no more goes on to mpiexec.
func (c *Client) FenceCollect(prefix string) (map[string]string, error) {
	what := fmt.Sprintf("collect %q", prefix)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.begin(true); err != nil {
		return nil, c.errorf(what, err)
	}
	defer c.endFence()
	if err := c.fence(); err != nil {
		return nil, c.errorf(what, err)
	}
	if err := c.readIndexes(); err != nil {
		return nil, c.errorf(what, err)
	}
	kv := make(map[string]string)
	for wkey, key := range c.known {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		v, ok := c.values[wkey]
		if !ok {
			var found bool
			var err error
			if v, found, err = c.fetch(wkey, c.timeout); err != nil || !found {
				if err == nil {
					err = fmt.Errorf("%w: an index key lists %s, which the server does not have", errProtocol, wkey)
				}
				return nil, c.errorf(what, err)
			}
		}
		kv[key] = v
	}
	for key, v := range c.own {
		if strings.HasPrefix(key, prefix) {
			kv[key] = v
		}
	}
	return kv, nil
}

// readIndexes reads the index keys of the other processes that this one
// has not read yet.
func (c *Client) readIndexes() error {
	for r := range c.size {
		if r == c.rank {
			continue
		}
		for {
			key := indexKey(r, c.next[r])
			v, found, err := c.proto.get(key, c.timeout)
			if err != nil {
				return fmt.Errorf("get index key %s: %w", key, err)
			}
			if !found {
				break
			}
			for _, w := range strings.Split(v, ",") {
				k, err := unescape(w)
				if err != nil || w == "" {
					return fmt.Errorf("%w: index key %s lists %q", errProtocol, key, w)
				}
				c.known[w] = k
			}
			c.next[r]++
		}
	}
	return nil
}
