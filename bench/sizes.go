package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxSize is the largest message size the suite accepts.
const MaxSize = 1 << 30

// ParseSizes reads a list of message sizes: comma-separated items, each a
// size or a range of powers of two "a-b" (a and b included; a range from
// 0 starts 0, 1, 2, 4, ...). Sizes take an optional suffix k or K (KiB) or
// m or M (MiB). The result is sorted, without repeats: "0-4M" is IMB's
// default list, 0 B to 4 MiB.
func ParseSizes(spec string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := parseSize(lo)
		if err != nil {
			return nil, fmt.Errorf("bench: sizes %q: %w", item, err)
		}
		if !isRange {
			out = append(out, a)
			continue
		}
		b, err := parseSize(hi)
		if err != nil {
			return nil, fmt.Errorf("bench: sizes %q: %w", item, err)
		}
		if a > b {
			return nil, fmt.Errorf("bench: sizes %q: the range runs backwards", item)
		}
		if a == 0 {
			out = append(out, 0)
			a = 1
		}
		for s := a; s <= b; s *= 2 {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no size in %q", spec)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// parseSize reads one size with an optional k/K or m/M suffix.
func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "m"), strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size in bytes", s)
	}
	if n > MaxSize/mult {
		return 0, fmt.Errorf("%d×%d bytes is more than %d", n, mult, MaxSize)
	}
	return n * mult, nil
}

// FormatSizes writes sizes in the form ParseSizes reads back.
func FormatSizes(sizes []int) string {
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, ",")
}
