package launch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"time"

	"github.com/rhinet-go/martini/llc/datastore"
	"golang.org/x/sys/unix"
)

// Names of the environment variables that mpirun's per-host agent sets for
// the ranks of a job across hosts (mpirun -hosts or -hostfile), besides
// those of a job on one host.
const (
	// EnvStoreAddr is the data store's address, "ip:port", which a rank
	// dials instead of inheriting a socket (MARTINI_STORE_FD).
	EnvStoreAddr = "MARTINI_STORE_ADDR"
	// EnvJobKey is the job's secret key, in hexadecimal, which a rank
	// proves to the data store before it is served.
	EnvJobKey = "MARTINI_JOB_KEY"
	// EnvLocalRank is the rank's index in its host's segment.
	EnvLocalRank = "MARTINI_LOCAL_RANK"
	// EnvLocalSize is the number of ranks on the rank's host.
	EnvLocalSize = "MARTINI_LOCAL_SIZE"
	// EnvHost is the name of the rank's host as mpirun was given it.
	EnvHost = "MARTINI_HOST"
	// EnvTCPAddr is the IP address on which the rank's TCP network
	// listens: its host's address on the network the job uses.
	EnvTCPAddr = "MARTINI_TCP_ADDR"
)

// LoopbackAddr is Job.TCPAddr of a job on one host.
const LoopbackAddr = "127.0.0.1"

// StoreDialTimeout bounds DialStore: the connection and the handshake.
const StoreDialTimeout = 20 * time.Second

// jobKeyLen is the size of the keys NewJobKey makes.
const jobKeyLen = 32

// NewJobKey returns a new random secret key for a job.
func NewJobKey() ([]byte, error) {
	key := make([]byte, jobKeyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("launch: job key: %w", err)
	}
	return key, nil
}

// FormatJobKey formats a job key as the agent passes it in MARTINI_JOB_KEY.
func FormatJobKey(key []byte) string { return hex.EncodeToString(key) }

// ParseJobKey parses a job key formatted by FormatJobKey.
func ParseJobKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("launch: %s: want a non-empty hexadecimal key", EnvJobKey)
	}
	return key, nil
}

// placement is where a rank runs: the fields Host, LocalRank, LocalSize
// and TCPAddr of Job.
type placement struct {
	host             string
	localRank, local int
	tcpAddr          string
}

// placementVars reads the rank's placement from the environment: without
// MARTINI_LOCAL_RANK the job runs on one host, where the rank's index is
// its rank and every rank is local.
func placementVars(getenv func(string) string, rank, size int) (placement, error) {
	p := placement{host: getenv(EnvHost), localRank: rank, local: size, tcpAddr: LoopbackAddr}
	if getenv(EnvLocalRank) != "" || getenv(EnvLocalSize) != "" {
		var err error
		if p.localRank, err = intVar(getenv, EnvLocalRank); err != nil {
			return p, err
		}
		if p.local, err = intVar(getenv, EnvLocalSize); err != nil {
			return p, err
		}
		if p.local < 1 || p.local > size {
			return p, fmt.Errorf("launch: %s=%d: out of range for %s=%d", EnvLocalSize, p.local, EnvSize, size)
		}
		if p.localRank < 0 || p.localRank >= p.local {
			return p, fmt.Errorf("launch: %s=%d: out of range for %s=%d", EnvLocalRank, p.localRank, EnvLocalSize, p.local)
		}
	}
	if s := getenv(EnvTCPAddr); s != "" {
		ip, err := netip.ParseAddr(s)
		if err != nil || ip.Zone() != "" {
			return p, fmt.Errorf("launch: %s=%q: not an IP address", EnvTCPAddr, s)
		}
		p.tcpAddr = ip.String()
	}
	return p, nil
}

// dialStoreEnv connects rank to the data store named by MARTINI_STORE_ADDR
// with the key of MARTINI_JOB_KEY.
func dialStoreEnv(getenv func(string) string, rank int) (*os.File, error) {
	s := getenv(EnvJobKey)
	if s == "" {
		return nil, fmt.Errorf("launch: %s is not set although %s is", EnvJobKey, EnvStoreAddr)
	}
	key, err := ParseJobKey(s)
	if err != nil {
		return nil, err
	}
	f, err := DialStore(getenv(EnvStoreAddr), key, rank)
	if err != nil {
		return nil, fmt.Errorf("launch: %s: %w", EnvStoreAddr, err)
	}
	return f, nil
}

// DialStore connects to the data store at addr ("ip:port", a literal
// address) as rank, proving that it knows the job's key, and returns the
// connection for datastore.NewClient. It uses the socket calls directly
// rather than package net, so that a rank's program links no cgo. The
// error wraps datastore.ErrRefused when the store refused the rank (a
// wrong key, or a rank already connected). Connection and handshake are
// bounded by StoreDialTimeout.
func DialStore(addr string, key []byte, rank int) (*os.File, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, fmt.Errorf("data store address %q: want ip:port: %w", addr, err)
	}
	deadline := time.Now().Add(StoreDialTimeout)
	f, err := connectTCP(ap, deadline)
	if err != nil {
		return nil, fmt.Errorf("data store at %s: %w", addr, err)
	}
	f.SetDeadline(deadline)
	if err := datastore.Prove(f, key, rank); err != nil {
		f.Close()
		return nil, fmt.Errorf("data store at %s, rank %d: %w", addr, rank, err)
	}
	f.SetDeadline(time.Time{})
	return f, nil
}

// connectTCP connects a non-blocking TCP socket, served by the runtime's
// poller, to ap by deadline.
func connectTCP(ap netip.AddrPort, deadline time.Time) (*os.File, error) {
	family, sa := unix.AF_INET, unix.Sockaddr(&unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().Unmap().As4()})
	if !ap.Addr().Unmap().Is4() {
		family, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	// The store's requests are small and answered one by one.
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("TCP_NODELAY: %w", err)
	}
	if err := unix.Connect(fd, sa); err != nil && !errors.Is(err, unix.EINPROGRESS) {
		unix.Close(fd)
		return nil, fmt.Errorf("connect: %w", err)
	}
	f := os.NewFile(uintptr(fd), "martini-store")
	if err := awaitConnect(f, deadline); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// awaitConnect waits until the connection of f, begun by a non-blocking
// connect, is made or has failed, or deadline passes.
func awaitConnect(f *os.File, deadline time.Time) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	f.SetWriteDeadline(deadline)
	var cerr error
	werr := rc.Write(func(fd uintptr) bool {
		// The first call comes before any wait: a connection still in
		// progress has no error and no peer yet.
		if v, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR); err != nil || v != 0 {
			cerr = err
			if v != 0 {
				cerr = unix.Errno(v)
			}
			return true
		}
		_, err := unix.Getpeername(int(fd))
		cerr = err
		return !errors.Is(err, unix.ENOTCONN)
	})
	f.SetWriteDeadline(time.Time{})
	if werr != nil {
		return fmt.Errorf("connect: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("connect: %w", cerr)
	}
	return nil
}
