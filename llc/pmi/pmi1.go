package pmi

import (
	"fmt"
	"strconv"
	"time"
)

// pmi1 speaks the PMI-1 simple wire protocol (Flux RFC 13; MPICH's
// Hydra is its reference server). The commands it uses:
//
//	init pmi_version=1 pmi_subversion=1   -> response_to_init rc pmi_version
//	get_maxes                             -> maxes keylen_max vallen_max
//	get_my_kvsname                        -> my_kvsname kvsname
//	put kvsname key value                 -> put_result rc
//	get kvsname key                       -> get_result rc value (rc != 0: not found)
//	barrier_in                            -> barrier_out
//	abort exitcode                        (no answer: the launcher ends the job)
//	finalize                              -> finalize_ack
type pmi1 struct {
	c       *conn
	timeout time.Duration
	kvsname string
}

// Limits RFC 13 recommends as the least a server takes (with the
// terminating NUL), used when get_maxes leaves one out.
const (
	minKeyLen = 32
	minValLen = 64
)

// open1 initializes a PMI-1 client on c and returns it with the longest
// key and value the server takes.
func open1(c *conn, timeout time.Duration) (p *pmi1, keyMax, valMax int, err error) {
	if err := initExchange(c, 1, 1, timeout); err != nil {
		return nil, 0, 0, err
	}
	m, err := c.call(request("get_maxes"), "maxes", timeout)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("get_maxes: %w", err)
	}
	keyLen, err := optionalInt(m, "keylen_max", minKeyLen)
	if err != nil {
		return nil, 0, 0, err
	}
	valLen, err := optionalInt(m, "vallen_max", minValLen)
	if err != nil {
		return nil, 0, 0, err
	}
	if keyLen < 2 || valLen < 2 {
		return nil, 0, 0, fmt.Errorf("%w: maxes keylen_max=%d vallen_max=%d leave no room", errProtocol, keyLen, valLen)
	}
	m, err = c.call(request("get_my_kvsname"), "my_kvsname", timeout)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("get_my_kvsname: %w", err)
	}
	name, ok := m.get("kvsname")
	if !ok || name == "" {
		return nil, 0, 0, fmt.Errorf("%w: my_kvsname without a kvsname", errProtocol)
	}
	// The maxima count the terminating NUL of the C API.
	return &pmi1{c: c, timeout: timeout, kvsname: name}, keyLen - 1, valLen - 1, nil
}

// initack introduces the process, on a connection made to the server's
// port, by its PMI id (PMI_ID), and returns the rank and size the server
// answers with: MPICH's simple PMI-1 client and Hydra exchange
//
//	initack pmiid   -> initack, then set size, set rank, set debug
//
// (one attribute a set) before the init.
func initack(c *conn, id int, timeout time.Duration) (rank, size int, err error) {
	ms, err := c.callMulti(request("initack", "pmiid", strconv.Itoa(id)), []string{"initack", "set", "set", "set"}, timeout)
	if err != nil {
		return 0, 0, fmt.Errorf("initack pmiid=%d: %w", id, err)
	}
	if err := checkRC(ms[0]); err != nil {
		return 0, 0, fmt.Errorf("initack pmiid=%d: %w", id, err)
	}
	rank, size = -1, -1
	for _, m := range ms[1:] {
		if _, ok := m.get("size"); ok {
			size, err = m.int("size")
		} else if _, ok := m.get("rank"); ok {
			rank, err = m.int("rank")
		}
		if err != nil {
			return 0, 0, fmt.Errorf("initack pmiid=%d: %w", id, err)
		}
	}
	if rank < 0 || size < 0 {
		return 0, 0, fmt.Errorf("initack pmiid=%d: %w: the server set no rank or no size", id, errProtocol)
	}
	return rank, size, nil
}

// initExchange sends the init request both protocols begin with, on the
// PMI-1 wire, and checks that the server takes the version asked for.
func initExchange(c *conn, version, subversion int, timeout time.Duration) error {
	m, err := c.call(request("init", "pmi_version", strconv.Itoa(version), "pmi_subversion", strconv.Itoa(subversion)),
		"response_to_init", timeout)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if err := checkRC(m); err != nil {
		return fmt.Errorf("init: PMI version %d.%d: %w", version, subversion, err)
	}
	if v, ok := m.get("pmi_version"); ok && v != strconv.Itoa(version) {
		return fmt.Errorf("init: asked for PMI version %d, the server answers version %s", version, v)
	}
	return nil
}

func optionalInt(m message, key string, def int) (int, error) {
	if _, ok := m.get(key); !ok {
		return def, nil
	}
	return m.int(key)
}

// checkRC returns the failure a response reports, if any.
func checkRC(m message) error {
	rc, err := m.rc()
	if err != nil {
		return err
	}
	if rc != 0 {
		return m.failure(rc)
	}
	return nil
}

func (p *pmi1) name() string { return "pmi-1" }

func (p *pmi1) put(key, value string) error {
	m, err := p.c.call(request("put", "kvsname", p.kvsname, "key", key, "value", value), "put_result", p.timeout)
	if err != nil {
		return err
	}
	return checkRC(m)
}

// get asks for key once. PMI-1 servers answer at once; a key not (yet)
// visible has a non-zero rc (Hydra: rc=-1 msg=key_K_not_found).
func (p *pmi1) get(key string, timeout time.Duration) (string, bool, error) {
	m, err := p.c.call(request("get", "kvsname", p.kvsname, "key", key), "get_result", timeout)
	if err != nil {
		return "", false, err
	}
	if rc, err := m.rc(); err != nil || rc != 0 {
		return "", false, err
	}
	v, ok := m.get("value")
	if !ok {
		return "", false, fmt.Errorf("%w: get_result rc=0 without a value", errProtocol)
	}
	return v, true, nil
}

// barrier waits, for at most timeout (0: no bound), until every process
// has entered it. The server makes the puts before it visible to all.
func (p *pmi1) barrier(timeout time.Duration) error {
	m, err := p.c.call(request("barrier_in"), "barrier_out", timeout)
	if err != nil {
		return err
	}
	return checkRC(m)
}

// abort asks the server to end the job with exit code code. The PMI-1
// wire (RFC 13, Hydra) carries no message.
func (p *pmi1) abort(code int, msg string) error {
	return p.c.send(request("abort", "exitcode", strconv.Itoa(code)), p.timeout)
}

func (p *pmi1) finalize() error {
	m, err := p.c.call(request("finalize"), "finalize_ack", p.timeout)
	if err != nil {
		return err
	}
	return checkRC(m)
}
