package mpirunbuild

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// endGroup kills what is left of process group pgid and waits, for at most
// groupGrace, until none of its processes runs any more. Zombies, which
// neither write files nor hold them open, do not count: the orphans among
// them are their new parent's to reap.
func endGroup(pgid int) error {
	if err := unix.Kill(-pgid, unix.SIGKILL); errors.Is(err, unix.ESRCH) {
		return nil
	} else if err != nil {
		return fmt.Errorf("kill process group %d: %w", pgid, err)
	}
	deadline := time.Now().Add(groupGrace)
	for groupRunning(pgid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("process group %d still runs %v after SIGKILL", pgid, groupGrace)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// groupRunning reports whether a process of group pgid is running (or
// otherwise not yet a zombie).
func groupRunning(pgid int) bool {
	if err := unix.Kill(-pgid, 0); errors.Is(err, unix.ESRCH) {
		return false
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		state, pg, ok := parseStat(data)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseStat returns the state and process group of a /proc/PID/stat line:
// "pid (comm) state ppid pgrp ...", where comm may contain anything.
func parseStat(data []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	return f[0][0], pgrp, err == nil
}
