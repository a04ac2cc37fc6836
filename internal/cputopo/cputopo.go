// Package cputopo reads which CPUs of a Linux host are hardware threads
// of one core, as sysfs describes them.
package cputopo

import (
	"os"
	"strconv"
	"strings"
)

// sysfs is the directory of the host's CPUs.
const sysfs = "/sys/devices/system/cpu"

// Core names the core of cpu as Linux describes it ("0/3": package 0,
// core 3), so that two CPUs with the same name are hardware threads of
// one core; "" when sysfs does not say.
func Core(cpu int) string {
	return core(sysfs, cpu)
}

// core is Core with the sysfs directory given.
func core(root string, cpu int) string {
	dir := root + "/cpu" + strconv.Itoa(cpu) + "/topology/"
	pkg, id := value(dir+"physical_package_id"), value(dir+"core_id")
	if pkg == "" || id == "" {
		return ""
	}
	return pkg + "/" + id
}

// Cores returns Core of each of cpus.
func Cores(cpus []int) map[int]string {
	m := make(map[int]string, len(cpus))
	for _, c := range cpus {
		m[c] = Core(c)
	}
	return m
}

// value returns the contents of the file at path without surrounding
// space, or "" when it cannot be read.
func value(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
