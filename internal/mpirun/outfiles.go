package mpirun

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// rankFiles are the files of -output-filename: as Open MPI names them,
// DIR/1/rank.N/stdout and DIR/1/rank.N/stderr for rank N ("1" stands for
// the job), each created when its rank first writes to it. Written under
// output.mu.
type rankFiles struct {
	dir    string // DIR/1
	noCopy bool   // ":nocopy": the lines go to the files only
	files  map[fileKey]*os.File
	failed bool // a file could not be made: said once, then the terminal only
}

type fileKey struct {
	rank int
	s    stream
}

// parseOutputFilename parses the argument of -output-filename: DIR, with
// Open MPI's optional ":nocopy" directive.
func parseOutputFilename(arg string) (*rankFiles, error) {
	dir, directive, _ := strings.Cut(arg, ":")
	switch strings.ToLower(directive) {
	case "", "nocopy":
	default:
		return nil, fmt.Errorf("%q: unknown directive %s (want DIR or DIR:nocopy)", arg, directive)
	}
	if dir == "" {
		return nil, fmt.Errorf("%q: no directory", arg)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &rankFiles{dir: filepath.Join(abs, "1"), noCopy: directive != "", files: map[fileKey]*os.File{}}, nil
}

// write appends line to the file of stream s of rank, and reports
// whether the line is to go to the terminal too.
func (f *rankFiles) write(o *output, rank int, s stream, line []byte) (terminal bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if f.failed {
		return true
	}
	k := fileKey{rank, s}
	file := f.files[k]
	if file == nil {
		var err error
		if file, err = f.create(k); err != nil {
			f.failed = true
			fmt.Fprintf(o.stderr, "mpirun: -output-filename: %v; output goes to the terminal only\n", err)
			return true
		}
		f.files[k] = file
	}
	file.Write(line)
	return !f.noCopy
}

func (f *rankFiles) create(k fileKey) (*os.File, error) {
	dir := filepath.Join(f.dir, "rank."+strconv.Itoa(k.rank))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := "stdout"
	if k.s == streamStderr {
		name = "stderr"
	}
	return os.Create(filepath.Join(dir, name))
}

// close closes the files.
func (f *rankFiles) close(o *output) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, file := range f.files {
		file.Close()
	}
}
