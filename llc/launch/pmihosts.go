package launch

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rhinet-go/martini/internal/netif"
)

// The hosts of a PMI job.
//
// A PMI launcher passes no segment and says nothing a process can rely on
// of where the others run, so the processes of a job of several tell each
// other through the data store, in one fence before any network opens:
// each publishes its host's identity (its boot, network namespace and
// process namespace: the processes that share them share memory and
// reach each other over loopback), its host's name, its pid and its
// host's addresses. The processes of one host, in the order of their
// ranks, are its LocalRank 0, 1, ...; the first makes the host's segment
// and the others open it (ShareSegment). A job on several hosts listens
// for TCP on the address by which its host reaches the first other host.

// hostPrefix begins the data-store keys of the hosts' exchange.
const hostPrefix = "martini-host/"

// segmentPrefix begins the data-store keys by which the first process of
// each host tells where its segment is (ShareSegment).
const segmentPrefix = "martini-segment/"

// hostCard is what a process of a PMI job publishes of where it runs.
type hostCard struct {
	id    string   // the host's identity (hostIdentity)
	name  string   // the host's name
	pid   int      // the process's pid
	addrs []string // the host's addresses, as CIDRs
}

func (c hostCard) String() string {
	return strings.Join([]string{c.id, c.name, strconv.Itoa(c.pid), strings.Join(c.addrs, ",")}, "\t")
}

// network returns the identity of the card's network stack, the part of
// its host's identity before the process namespace.
func (c hostCard) network() string {
	if i := strings.LastIndexByte(c.id, ' '); i >= 0 {
		return c.id[:i]
	}
	return c.id
}

func parseHostCard(s string) (hostCard, error) {
	f := strings.Split(s, "\t")
	if len(f) != 4 {
		return hostCard{}, fmt.Errorf("%q: not a host's card", s)
	}
	pid, err := strconv.Atoi(f[2])
	if err != nil || pid <= 0 {
		return hostCard{}, fmt.Errorf("%q: bad pid", s)
	}
	c := hostCard{id: f[0], name: f[1], pid: pid}
	if f[3] != "" {
		c.addrs = strings.Split(f[3], ",")
	}
	return c, nil
}

// hostIdentity names what the processes that share memory share: the
// network stack (netif.Identity) and the process namespace, in which
// their pids name them.
func hostIdentity() (string, error) {
	net, err := netif.Identity()
	if err != nil {
		return "", err
	}
	pid, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return "", fmt.Errorf("host identity: %w", err)
	}
	return net + " " + pid, nil
}

// ownCard returns this process's card.
func ownCard() (hostCard, []netif.Addr, error) {
	id, err := hostIdentity()
	if err != nil {
		return hostCard{}, nil, err
	}
	name, err := os.Hostname()
	if err != nil {
		return hostCard{}, nil, fmt.Errorf("the host's name: %w", err)
	}
	addrs, err := netif.Addrs()
	if err != nil {
		return hostCard{}, nil, err
	}
	c := hostCard{id: id, name: name, pid: os.Getpid()}
	for _, a := range addrs {
		if !a.Prefix.Addr().IsLoopback() {
			c.addrs = append(c.addrs, a.Prefix.String())
		}
	}
	return c, addrs, nil
}

// placeOnHosts learns, for a PMI job of several processes, which of them
// share this process's host, and sets the job's Host, LocalRank,
// LocalSize and TCPAddr accordingly.
func (j *Job) placeOnHosts() error {
	own, addrs, err := ownCard()
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	if err := j.Store.Put(hostPrefix+strconv.Itoa(j.Rank), own.String()); err != nil {
		return fmt.Errorf("launch: publish the host: %w", err)
	}
	kv, err := j.Store.FenceCollect(hostPrefix)
	if err != nil {
		return fmt.Errorf("launch: the hosts' exchange: %w", err)
	}
	cards := make([]hostCard, j.Size)
	for r := range cards {
		v, ok := kv[hostPrefix+strconv.Itoa(r)]
		if !ok {
			return fmt.Errorf("launch: rank %d published no host", r)
		}
		if cards[r], err = parseHostCard(v); err != nil {
			return fmt.Errorf("launch: the host of rank %d: %w", r, err)
		}
	}
	return j.place(cards, addrs, netif.RouteSource)
}

// place sets the job's placement from every process's card (by rank)
// and this host's addresses; route is netif.RouteSource, or a stand-in
// in tests.
func (j *Job) place(cards []hostCard, own []netif.Addr, route func(netip.Addr) (netip.Addr, error)) error {
	me := cards[j.Rank]
	j.LocalSize, j.hostProcs = 0, nil
	first := map[string]int{} // the first rank of each host, by identity
	names := map[string]int{} // how many hosts have each name
	for r, c := range cards {
		if _, seen := first[c.id]; !seen {
			first[c.id] = r
			names[c.name]++
		}
		if c.id == me.id {
			if r == j.Rank {
				j.LocalRank = j.LocalSize
			}
			j.LocalSize++
			j.hostProcs = append(j.hostProcs, hostProc{rank: r, pid: c.pid})
		}
	}
	j.hostFirst = first[me.id]
	j.TCPAddr = LoopbackAddr
	if len(first) == 1 {
		return nil
	}
	j.Host = me.name
	if names[me.name] > 1 { // hosts that share a name, such as network namespaces
		j.Host += "#" + strconv.Itoa(j.hostFirst)
	}
	// The first rank of another network stack: hosts that share this
	// one's (containers of one network, say) reach each other over
	// loopback.
	r := slices.IndexFunc(cards, func(c hostCard) bool { return c.network() != me.network() })
	if r < 0 {
		return nil
	}
	c := cards[r]
	src, ok := netif.Reaching(c.addrs, own, route)
	if !ok {
		return fmt.Errorf("launch: host %s of rank %d: this host (%s) has no route to any of its addresses (%s) from an address of its own (%s)",
			c.name, r, me.name, strings.Join(c.addrs, ", "), netif.List(own))
	}
	j.TCPAddr = src.String()
	return nil
}

// MakesSegment reports whether the processes of the job make their
// hosts' segments themselves (ShareSegment): those of a PMI job of
// several processes, whose launcher passes none.
func (j *Job) MakesSegment() bool { return j.hostProcs != nil && j.Segment == nil }

// ShareSegment gives every process of a job that MakesSegment its host's
// segment (Segment): the host's first process makes it with create, for
// LocalSize processes, and with it the host's rank states (hostState),
// and publishes their descriptors; after a fence of the whole job, which
// every process calls, the others open them through the first's /proc
// entries. A memory file has no name, so nothing is left once the host's
// processes have exited, however they end. A failure of the first
// process's create fails the others' ShareSegment too. The first process
// keeps Segment open at least until the job's next fence (the bootstrap
// exchange's), by which every other has opened it.
//
// Each process then watches the others of its host (watchHost): one that
// ends before SetState(RankFinalized) ends the job.
func (j *Job) ShareSegment(create func() (*os.File, error)) error {
	if !j.MakesSegment() {
		return errors.New("launch: ShareSegment: the launcher passes the segment, or the job has one process")
	}
	key := segmentPrefix + strconv.Itoa(j.hostFirst)
	var made error
	if j.LocalRank == 0 {
		made = j.makeSegment(key, create)
	}
	kv, err := j.Store.FenceCollect(segmentPrefix)
	switch {
	case made != nil:
		return made
	case err != nil:
		return fmt.Errorf("launch: the segments' exchange: %w", err)
	case j.LocalRank != 0:
		if err := j.openSegment(kv[key]); err != nil {
			return err
		}
	}
	return j.watchHost()
}

// makeSegment makes the host's rank states and its segment with create,
// and publishes under key their descriptors, or "!" and why there are
// none.
func (j *Job) makeSegment(key string, create func() (*os.File, error)) error {
	states, err := newHostState(j.LocalSize)
	var seg *os.File
	if err == nil {
		if seg, err = create(); err != nil {
			states.close()
		}
	}
	v := ""
	if err != nil {
		v = "!" + strings.ReplaceAll(err.Error(), "\n", " ")
	} else {
		j.Segment, j.states = seg, states
		v = strconv.Itoa(int(seg.Fd())) + " " + strconv.Itoa(int(states.file.Fd()))
	}
	if perr := j.Store.Put(key, v); err == nil && perr != nil {
		err = fmt.Errorf("launch: publish the host's segment: %w", perr)
	}
	return err
}

// openSegment opens the segment and rank states that the host's first
// process published as v: their descriptors, or "!" and why it has none.
func (j *Job) openSegment(v string) error {
	if why, failed := strings.CutPrefix(v, "!"); failed {
		return fmt.Errorf("launch: rank %d, the first of host %s, made no segment: %s", j.hostFirst, j.hostLabel(), why)
	}
	segFD, stateFD, _ := strings.Cut(v, " ")
	seg, err := j.openFirsts(segFD, "segment")
	if err != nil {
		return err
	}
	f, err := j.openFirsts(stateFD, "rank states")
	if err == nil {
		j.states, err = mapHostState(f, j.LocalSize)
	}
	if err != nil {
		seg.Close()
		return err
	}
	j.Segment = seg
	return nil
}

// openFirsts opens descriptor fd (what) of the host's first process.
func (j *Job) openFirsts(fd, what string) (*os.File, error) {
	if _, err := strconv.Atoi(fd); err != nil {
		return nil, fmt.Errorf("launch: rank %d published the %s %q, not a descriptor", j.hostFirst, what, fd)
	}
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%s", j.hostProcs[0].pid, fd), os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("launch: the %s of rank %d, the first of host %s: %w", what, j.hostFirst, j.hostLabel(), err)
	}
	return f, nil
}

// hostLabel names the process's host in messages.
func (j *Job) hostLabel() string {
	if h, err := j.HostName(); err == nil {
		return h
	}
	return "?"
}
