package pgo

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestProfile checks that the embedded profile is a gzipped pprof profile
// whose string table names the message path's functions, and that the
// copies in cmd/mpibench and libmpich (their default.pgo) are the same file.
func TestProfile(t *testing.T) {
	z, err := gzip.NewReader(bytes.NewReader(Profile()))
	if err != nil {
		t.Fatalf("mpi.pgo: %v", err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("mpi.pgo: %v", err)
	}
	for _, want := range []string{
		"github.com/rhinet-go/martini/llc.(*Endpoint).progress",
		"github.com/rhinet-go/martini/llc/martini.(*Translator).Poll",
		"github.com/rhinet-go/martini/collectives.(*Runner).run",
	} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("mpi.pgo does not name %s", want)
		}
	}
	for _, dir := range []string{"cmd/mpibench", "libmpich"} {
		copyOf, err := os.ReadFile(filepath.Join("..", "..", dir, "default.pgo"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(copyOf, Profile()) {
			t.Errorf("%s/default.pgo differs from internal/pgo/mpi.pgo: run sh internal/pgo/gen.sh", dir)
		}
	}
}

func TestWrite(t *testing.T) {
	path, err := Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, Profile()) {
		t.Fatalf("Write: %v, %d bytes, want %d", err, len(got), len(Profile()))
	}
}
