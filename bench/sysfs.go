package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sysfsCaches are the sizes in bytes of the level 1 data cache and the
// level 2 and 3 caches as Linux describes them for one CPU; 0 for a
// cache it does not describe.
type sysfsCaches struct{ l1d, l2, l3 int }

// readSysfsCaches reads the caches described under dir (a CPU's
// .../cache directory, whose index*/ directories each hold a cache's
// level, type and size). What is missing or unreadable stays 0.
func readSysfsCaches(dir string) sysfsCaches {
	var c sysfsCaches
	indexes, _ := filepath.Glob(filepath.Join(dir, "index*"))
	for _, ix := range indexes {
		level, typ, size := sysfsValue(ix, "level"), sysfsValue(ix, "type"), sysfsSize(sysfsValue(ix, "size"))
		switch {
		case size == 0 || typ == "Instruction":
		case level == "1" && typ == "Data":
			c.l1d = size
		case level == "2":
			c.l2 = size
		case level == "3":
			c.l3 = size
		}
	}
	return c
}

// sysfsValue returns the contents of the file dir/name without the
// trailing newline, or "" when it cannot be read.
func sysfsValue(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// sysfsSize reads a cache size as Linux writes it ("48K", "32768K",
// "1M"), in bytes; 0 when it is not one.
func sysfsSize(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n * mult
}
