package pmi

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// pmi2 speaks the PMI-2 wire protocol (MPICH's PMI-2 simple client;
// servers: Hydra when the client's init asks for version 2, Slurm's
// mpi/pmi2 plugin). After a PMI-1 init asking for version 2.0, it uses:
//
//	fullinit pmirank [pmijobid] threaded -> fullinit-response rc rank size
//	job-getid                            -> job-getid-response rc jobid
//	kvs-put key value                    -> kvs-put-response rc
//	kvs-get key                          -> kvs-get-response rc found [value]
//	kvs-fence                            -> kvs-fence-response rc
//	abort isworld msg                    (no answer: the launcher ends the job)
//	finalize                             -> finalize-response rc
//
// Servers differ in kvs-fence. Slurm answers it once every process has
// sent it. Hydra (4.0) answers at once and instead holds a kvs-get of a
// missing key until every process has fenced as often as the asker. So
// barrier follows kvs-fence with a kvs-get of a key nobody puts: on
// Slurm it answers at once, on Hydra once every process has fenced.
type pmi2 struct {
	c       *conn
	timeout time.Duration
}

// The longest key and value PMI-2 servers take: MPICH's pmi2.h has
// PMI2_MAX_KEYLEN 64 and PMI2_MAX_VALLEN 1024, which Hydra's server
// stores with a terminating NUL.
const (
	keyMax2 = 63
	valMax2 = 1023
)

// barrierKey is the key of barrier's kvs-get, which nobody puts: '%'
// followed by a letter that is not a hexadecimal digit begins no wire key
// of the store (wireKey).
const barrierKey = "%barrier"

// open2 initializes a PMI-2 client on c as process rank of the job jobid
// (PMI_JOBID, empty when the launcher sets none), and returns it with the
// rank, size and job id the server reports.
func open2(c *conn, rank int, jobid string, timeout time.Duration) (p *pmi2, gotRank, size int, gotJob string, err error) {
	if err := initExchange(c, 2, 0, timeout); err != nil {
		return nil, 0, 0, "", err
	}
	c.codec = wire2{}
	req := request("fullinit", "pmirank", strconv.Itoa(rank))
	if jobid != "" {
		req.attrs = append(req.attrs, attr{"pmijobid", jobid})
	}
	req.attrs = append(req.attrs, attr{"threaded", "FALSE"})
	m, err := c.call(req, "fullinit-response", timeout)
	if err == nil {
		err = checkRC(m)
	}
	if err != nil {
		return nil, 0, 0, "", fmt.Errorf("fullinit: %w", err)
	}
	if gotRank, err = m.int("rank"); err != nil {
		return nil, 0, 0, "", fmt.Errorf("fullinit: %w", err)
	}
	if size, err = m.int("size"); err != nil {
		return nil, 0, 0, "", fmt.Errorf("fullinit: %w", err)
	}
	m, err = c.call(request("job-getid"), "job-getid-response", timeout)
	if err == nil {
		err = checkRC(m)
	}
	if err != nil {
		return nil, 0, 0, "", fmt.Errorf("job-getid: %w", err)
	}
	gotJob, _ = m.get("jobid")
	return &pmi2{c: c, timeout: timeout}, gotRank, size, gotJob, nil
}

func (p *pmi2) name() string { return "pmi-2" }

func (p *pmi2) put(key, value string) error {
	m, err := p.c.call(request("kvs-put", "key", key, "value", value), "kvs-put-response", p.timeout)
	if err != nil {
		return err
	}
	return checkRC(m)
}

// get asks for key once. Slurm answers at once; Hydra holds the answer
// for a missing key until every process has fenced as often as this one.
func (p *pmi2) get(key string, timeout time.Duration) (string, bool, error) {
	m, err := p.c.call(request("kvs-get", "key", key), "kvs-get-response", timeout)
	if err != nil {
		return "", false, err
	}
	if err := checkRC(m); err != nil {
		return "", false, err
	}
	if found, _ := m.get("found"); found != "TRUE" {
		return "", false, nil
	}
	v, ok := m.get("value")
	if !ok {
		return "", false, fmt.Errorf("%w: kvs-get-response found=TRUE without a value", errProtocol)
	}
	return v, true, nil
}

// barrier waits, for at most timeout (0: no bound), until every process
// has fenced (see pmi2 for the kvs-get that follows the kvs-fence).
func (p *pmi2) barrier(timeout time.Duration) error {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	m, err := p.c.call(request("kvs-fence"), "kvs-fence-response", timeout)
	if err == nil {
		err = checkRC(m)
	}
	if err != nil {
		return err
	}
	if timeout > 0 {
		// What is left of it, at least a moment: 0 would mean no bound.
		timeout = max(time.Until(deadline), time.Millisecond)
	}
	_, _, err = p.get(barrierKey, timeout)
	return err
}

// abort asks the server to end the whole job. PMI-2 carries a message but
// no exit code. The key is "isworld" (MPICH's PMI2_Abort); Slurm's plugin
// kills the step only when it reads isworld=TRUE. Hydra (4.0) knows no PMI-2
// abort and ends the job as failed on it (exit 255), which ends it too.
func (p *pmi2) abort(code int, msg string) error {
	return p.c.send(request("abort", "isworld", "TRUE", "msg", printable(msg)), p.timeout)
}

// printable returns msg with every byte that is not printable ASCII, and
// every ';', replaced by a space, so that it travels as one attribute.
func printable(msg string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r > '~' || r == ';' {
			return ' '
		}
		return r
	}, msg)
}

func (p *pmi2) finalize() error {
	m, err := p.c.call(request("finalize"), "finalize-response", p.timeout)
	if err != nil {
		return err
	}
	return checkRC(m)
}
