// Package cpuload tells how much of one CPU's time went to programs other
// than a given set of processes: the CPU's busy time in /proc/stat less
// the processes' CPU time in /proc/PID/stat, over the wall-clock time
// between two readings. Linux only; elsewhere Take fails.
package cpuload

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// TicksPerSecond is the unit of /proc's CPU times (USER_HZ), 100 on every
// architecture Linux runs Go on.
const TicksPerSecond = 100

// AllCPUs, as Take's cpu, reads the machine's line of /proc/stat: every
// CPU's time together.
const AllCPUs = -1

// Sample is a reading of one CPU's busy time and of a set of processes'
// CPU time, in ticks.
type Sample struct {
	At   time.Time
	Busy uint64 // the CPU's user, nice, system, irq and softirq time
	Ours uint64 // the processes' user and system time, all their threads'
}

// Take reads cpu's line of /proc/stat (AllCPUs: the machine's) and
// /proc/PID/stat of each of pids.
func Take(cpu int, pids []int) (Sample, error) {
	s := Sample{At: time.Now()}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, err
	}
	if s.Busy, err = cpuBusy(stat, cpu); err != nil {
		return s, err
	}
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return s, err
		}
		t, err := processTicks(b)
		if err != nil {
			return s, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		s.Ours += t
	}
	return s, nil
}

// ForeignShare returns the share of the time of cpus CPUs from a to b
// (wall-clock time) that they spent busy with other than the processes,
// 0 to 1: cpus is 1 for a reading of one CPU, the machine's CPUs for one
// of AllCPUs.
func ForeignShare(a, b Sample, cpus int) float64 {
	window := b.At.Sub(a.At).Seconds() * TicksPerSecond * float64(cpus)
	busy, ours := b.Busy-a.Busy, b.Ours-a.Ours
	if window <= 0 || b.Busy < a.Busy || b.Ours < a.Ours || ours >= busy {
		return 0
	}
	return min(1, float64(busy-ours)/window)
}

// cpuBusy returns the busy ticks of cpu's line ("cpuN user nice system
// idle iowait irq softirq steal ...") of /proc/stat's text.
func cpuBusy(stat []byte, cpu int) (uint64, error) {
	prefix := []byte("cpu ")
	if cpu != AllCPUs {
		prefix = []byte("cpu" + strconv.Itoa(cpu) + " ")
	}
	for line := range bytes.Lines(stat) {
		if !bytes.HasPrefix(line, prefix) {
			continue
		}
		f := bytes.Fields(line[len(prefix):])
		if len(f) < 7 {
			return 0, fmt.Errorf("/proc/stat: %s: %d fields", bytes.TrimSpace(prefix), len(f))
		}
		var busy uint64
		for _, i := range []int{0, 1, 2, 5, 6} { // user nice system irq softirq
			v, err := strconv.ParseUint(string(f[i]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/stat: %s: %w", bytes.TrimSpace(prefix), err)
			}
			busy += v
		}
		return busy, nil
	}
	return 0, fmt.Errorf("/proc/stat: no line %q", bytes.TrimSpace(prefix))
}

// StatFields returns the fields of a /proc/PID/stat text that follow the
// command, the state first, then ppid, pgrp and so on; nil if the text has
// no command. The command, in parentheses, may hold spaces and
// parentheses itself: the fields begin after the last ')'.
func StatFields(stat []byte) [][]byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil
	}
	return bytes.Fields(stat[i+1:])
}

// processTicks returns utime plus stime of a /proc/PID/stat text: the
// 14th and 15th fields, the 12th and 13th after the command.
func processTicks(stat []byte) (uint64, error) {
	f := StatFields(stat)
	if f == nil {
		return 0, errors.New("no command")
	}
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command", len(f))
	}
	var t uint64
	for _, s := range f[11:13] {
		v, err := strconv.ParseUint(string(s), 10, 64)
		if err != nil {
			return 0, err
		}
		t += v
	}
	return t, nil
}
