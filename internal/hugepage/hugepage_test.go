package hugepage

import (
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestParsePolicy(t *testing.T) {
	for s, want := range map[string]Policy{
		"always [madvise] never\n": Madvise,
		"[always] madvise never\n": Always,
		"always madvise [never]\n": Never,
		"":                         Unknown,
	} {
		if got := parsePolicy(s); got != want || !strings.Contains(s, "["+got.String()+"]") && got != Unknown {
			t.Errorf("parsePolicy(%q) = %v, want %v", s, got, want)
		}
	}
}

// mapAnon returns a private anonymous mapping of n bytes of the test's
// own, unmapped when the test ends.
func mapAnon(t *testing.T, n int) []byte {
	t.Helper()
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(b) })
	return b
}

// TestWhole checks Whole against blocks starting and ending on either
// side of huge-page boundaries.
func TestWhole(t *testing.T) {
	b := mapAnon(t, 5*Size)
	p := uintptr(unsafe.Pointer(&b[0]))
	first := int((p+2*Size-1)&^(Size-1) - p) // a boundary at least a huge page into b
	cases := []struct {
		from, to   int
		start, len int // the result's offset in b and length; len 0: nil
	}{
		{first, first + 2*Size, first, 2 * Size},
		{first - 1, first + 2*Size + 1, first, 2 * Size},
		{first + 1, first + 2*Size, first + Size, Size},
		{first + 1, first + 2*Size - 1, 0, 0},
		{first, first + Size - 8, 0, 0},
		{first, first, 0, 0},
	}
	for _, c := range cases {
		got := Whole(b[c.from:c.to])
		if c.len == 0 {
			if got != nil {
				t.Errorf("Whole(b[%d:%d]) has %d bytes, want none", c.from, c.to, len(got))
			}
			continue
		}
		if len(got) != c.len || cap(got) != c.len || &got[0] != &b[c.start] {
			t.Errorf("Whole(b[%d:%d]) = %d bytes at %p, want %d at %p", c.from, c.to, len(got), &got[0], c.len, &b[c.start])
		}
	}
}

// TestSmapsField checks the fields of a mapping of this test's own.
func TestSmapsField(t *testing.T) {
	b := mapAnon(t, 2*Size)
	a := uintptr(unsafe.Pointer(&b[0]))
	if err := unix.Madvise(b, unix.MADV_NOHUGEPAGE); err != nil {
		t.Fatal(err)
	}
	flags, err := SmapsField(a, "VmFlags")
	if err != nil {
		t.Skipf("no smaps to read: %v", err)
	}
	if !strings.Contains(" "+flags+" ", " nh ") {
		t.Errorf("VmFlags %q of a mapping advised MADV_NOHUGEPAGE has no nh", flags)
	}
	if kb, err := AnonHugeKB(a); err != nil || kb != 0 {
		t.Errorf("AnonHugeKB of a mapping no huge page may back = %d, %v; want 0", kb, err)
	}
	if _, err := SmapsField(0, "VmFlags"); err == nil {
		t.Error("SmapsField(0) found a mapping")
	}
}
