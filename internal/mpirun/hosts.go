package mpirun

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// hostSlots is a host of -hosts or -hostfile and how many ranks it takes.
type hostSlots struct {
	name  string
	slots int
}

// placement is the ranks a host runs: first, first+1, ..., first+count-1.
type placement struct {
	host         string
	first, count int
}

// parseHostList parses the argument of -hosts: host[:slots],... with one
// slot when none is given. A host listed twice gets the slots of both,
// at the place of its first listing.
func parseHostList(s string) ([]hostSlots, error) {
	var hosts []hostSlots
	for _, item := range strings.Split(s, ",") {
		name, slots := item, 1
		if i := strings.LastIndexByte(item, ':'); i >= 0 {
			n, err := strconv.Atoi(item[i+1:])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%q: want host or host:slots, slots at least 1", item)
			}
			name, slots = item[:i], n
		}
		if err := checkHostName(name); err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		hosts = addHost(hosts, hostSlots{name, slots})
	}
	return hosts, nil
}

// readHostfile reads a hostfile in Open MPI's format.
func readHostfile(path string) ([]hostSlots, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseHostfile(f, path)
}

// parseHostfile parses a hostfile in Open MPI's format, or MPICH's
// ("host:N" a line), named name in errors: a host a line, with "slots=N"
// (one slot when not given) and
// "max_slots=N" (checked, but ignored: mpirun never oversubscribes a
// host beyond its slots); "#" starts a comment, and blank lines are
// skipped. A host listed twice gets the slots of both lines.
func parseHostfile(r io.Reader, name string) ([]hostSlots, error) {
	var hosts []hostSlots
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		h, err := parseHostLine(fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		hosts = addHost(hosts, h)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts in it", name)
	}
	return hosts, nil
}

// parseHostLine parses the fields of a line of a hostfile.
func parseHostLine(fields []string) (hostSlots, error) {
	h := hostSlots{name: fields[0], slots: 1}
	if i := strings.LastIndexByte(h.name, ':'); i > 0 && len(fields) == 1 && !isIPv6(h.name) {
		n, err := strconv.Atoi(h.name[i+1:]) // MPICH's host:slots
		if err == nil && n < 1 {
			return h, fmt.Errorf("%q: slots must be at least 1", h.name)
		} else if err == nil {
			h.name, h.slots = h.name[:i], n
		}
	}
	if err := checkHostName(h.name); err != nil {
		return h, fmt.Errorf("%q: %w", h.name, err)
	}
	maxSlots := 0
	for _, f := range fields[1:] {
		key, value, ok := strings.Cut(f, "=")
		n, err := strconv.Atoi(value)
		if !ok || err != nil || n < 1 {
			return h, fmt.Errorf("%q: want slots=N or max_slots=N, N at least 1", f)
		}
		switch key {
		case "slots":
			h.slots = n
		case "max_slots":
			maxSlots = n
		default:
			return h, fmt.Errorf("%q: unknown keyword %s (want slots or max_slots)", f, key)
		}
	}
	if maxSlots > 0 && maxSlots < h.slots {
		return h, fmt.Errorf("%s: slots=%d exceeds max_slots=%d", h.name, h.slots, maxSlots)
	}
	return h, nil
}

// checkHostName rejects what cannot be a host name, nor a launch
// command's argument: nothing, blanks and control characters, or a
// leading "-" (an option to ssh).
func checkHostName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty host name")
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("a host name may not begin with -")
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("a host name may not hold blanks or control characters")
	}
	return nil
}

// addHost adds h to hosts, or its slots to those of the host of its name.
func addHost(hosts []hostSlots, h hostSlots) []hostSlots {
	for i := range hosts {
		if hosts[i].name == h.name {
			hosts[i].slots += h.slots
			return hosts
		}
	}
	return append(hosts, h)
}

// totalSlots is the number of slots of hosts.
func totalSlots(hosts []hostSlots) int {
	n := 0
	for _, h := range hosts {
		n += h.slots
	}
	return n
}

// place assigns np ranks to the slots of hosts in order: the first host's
// slots get ranks 0, 1, ..., then the next host's. Hosts left without a
// rank are left out. np must not exceed the slots.
func place(hosts []hostSlots, np int) ([]placement, error) {
	if total := totalSlots(hosts); np > total {
		return nil, fmt.Errorf("-np %d: more ranks than the %d slots of the hosts (-oversubscribe places them)", np, total)
	}
	var ps []placement
	next := 0
	for _, h := range hosts {
		if next == np {
			break
		}
		n := min(h.slots, np-next)
		ps = append(ps, placement{host: h.name, first: next, count: n})
		next += n
	}
	return ps, nil
}

// oversubscribe returns hosts with slots for np ranks: as many as theirs
// when np does not exceed them, and otherwise more, as if the ranks went
// round the hosts again, each host taking its slots in turn. The ranks
// of a host stay consecutive (see place).
func oversubscribe(hosts []hostSlots, np int) []hostSlots {
	total := totalSlots(hosts)
	if np <= total {
		return hosts
	}
	more := make([]hostSlots, len(hosts))
	copy(more, hosts)
	for left := np - total; left > 0; {
		for i := range hosts {
			n := min(hosts[i].slots, left)
			more[i].slots += n
			left -= n
		}
	}
	return more
}

// launchCommand returns the command that starts the agent of host: the
// words of template, split at blanks, with {host} replaced by the host's
// name, followed by mpirun's own path and the agent subcommand.
func launchCommand(template, host, self string) []string {
	var argv []string
	for _, w := range strings.Fields(template) {
		argv = append(argv, strings.ReplaceAll(w, hostPlaceholder, host))
	}
	return append(argv, self, agentCommand)
}

// hostPlaceholder is what -launch replaces by a host's name.
const hostPlaceholder = "{host}"

// checkTemplate checks a -launch template.
func checkTemplate(template string) error {
	switch {
	case len(strings.Fields(template)) == 0:
		return fmt.Errorf("-launch %q: an empty command", template)
	case !strings.Contains(template, hostPlaceholder):
		return fmt.Errorf("-launch %q: no %s in it to name the host", template, hostPlaceholder)
	}
	return nil
}

// isIPv6 reports whether name is an IPv6 address, whose colons do not
// separate slots.
func isIPv6(name string) bool {
	a, err := netip.ParseAddr(name)
	return err == nil && a.Is6()
}
