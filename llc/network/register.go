package network

import (
	"fmt"
	"strings"
	"sync"
)

// Import is the package that registers every network of the module: a
// program that uses MPI imports it blank.
const Import = "github.com/rhinet-go/martini/networks"

var (
	driversMu sync.RWMutex
	// drivers are the registered drivers in the order of registration,
	// which the default choice of a reach follows.
	drivers []registered
)

type registered struct {
	name string
	d    Driver
}

// Register makes a network available by name (launch's -transport
// values). A network's package calls it from its init function; it
// panics if name is registered twice or d is nil, as database/sql's
// Register does.
func Register(name string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if d == nil {
		panic("network: Register driver is nil")
	}
	for _, r := range drivers {
		if r.name == name {
			panic(fmt.Sprintf("network: Register called twice for %q", name))
		}
	}
	drivers = append(drivers, registered{name, d})
}

// lookup returns the driver registered as name.
func lookup(name string) (Driver, error) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	for _, r := range drivers {
		if r.name == name {
			return r.d, nil
		}
	}
	if len(drivers) == 0 {
		return nil, errNone()
	}
	return nil, fmt.Errorf("network %q is not registered (the program imports none by that name; import _ %q registers every network)", name, Import)
}

// byReach returns the first registered driver that reaches reach, and its
// name.
func byReach(reach Reach) (string, Driver, error) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	for _, r := range drivers {
		if r.d.Reach() == reach {
			return r.name, r.d, nil
		}
	}
	if len(drivers) == 0 {
		return "", nil, errNone()
	}
	what := "the processes of a host"
	if reach == Job {
		what = "the processes of other hosts"
	}
	names := make([]string, len(drivers))
	for i, r := range drivers {
		names[i] = r.name
	}
	return "", nil, fmt.Errorf("no registered network reaches %s (registered: %s; import _ %q registers every network)", what, strings.Join(names, ", "), Import)
}

func errNone() error {
	return fmt.Errorf("no network is registered: a program that uses MPI imports one, usually with import _ %q", Import)
}
