package mpi_test

// The examples run as real jobs: go test's own run of an example would be a
// job of one process. The test process (testMain) runs each example that
// -run selects as a job of its own, mpirun -np N <this binary>
// -test.run=^NAME$, with MPI_TEST_EXAMPLE=NAME; in the job, rank 0 runs
// the example through the testing package, which checks its output, and
// the other ranks call the example's function. The test process's own
// m.Run skips the examples.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// envExample names the example a rank of an example's job runs.
const envExample = "MPI_TEST_EXAMPLE"

// exampleJob is an example function and the size of the job it runs in.
type exampleJob struct {
	name string
	f    func()
	np   int
}

// exampleJobs are the examples of the package, in the order they run.
var exampleJobs = []exampleJob{
	{"Example", Example, 4},
	{"ExampleSend", ExampleSend, 2},
	{"ExampleRecv", ExampleRecv, 3},
	{"ExampleIsend", ExampleIsend, 3},
	{"ExampleRequest_Release", ExampleRequest_Release, 3},
	{"ExampleWaitall", ExampleWaitall, 4},
	{"ExampleAllreduce", ExampleAllreduce, 4},
	{"ExampleIallreduce", ExampleIallreduce, 3},
	{"ExamplePersistentCollective", ExamplePersistentCollective, 4},
	{"ExampleBcast", ExampleBcast, 3},
	{"ExampleGather", ExampleGather, 4},
	{"ExampleScan", ExampleScan, 4},
	{"ExampleBarrier", ExampleBarrier, 3},
	{"ExampleComm_Split", ExampleComm_Split, 4},
	{"ExampleComm_Idup", ExampleComm_Idup, 2},
	{"ExampleComm_CartCreate", ExampleComm_CartCreate, 4},
	{"ExampleWin", ExampleWin, 3},
	{"ExampleFetchAndOp", ExampleFetchAndOp, 4},
	{"ExampleVector", ExampleVector, 2},
}

// exampleRank runs one rank of the job of example name: rank 0 through
// m.Run (its command line selects the example), the others by calling it.
func exampleRank(m *testing.M, name string) int {
	if os.Getenv("MARTINI_RANK") == "0" {
		return m.Run()
	}
	i := slices.IndexFunc(exampleJobs, func(j exampleJob) bool { return j.name == name })
	if i < 0 {
		fmt.Fprintf(os.Stderr, "%s=%s: no such example\n", envExample, name)
		return 1
	}
	exampleJobs[i].f()
	return 0
}

// runExamples runs the examples that -test.run and -test.skip select, each
// as a job, and sets -test.skip so that m.Run skips them all. It prints a
// job's output when it fails or under -v, and returns 1 if one failed.
func runExamples() int {
	run, skip := flag.Lookup("test.run").Value.String(), flag.Lookup("test.skip").Value.String()
	code := 0
	for _, j := range exampleJobs {
		if !selects(run, j.name, true) || selects(skip, j.name, false) {
			continue
		}
		out, err := runExampleJob(j)
		if err != nil {
			fmt.Printf("--- FAIL: %s (a job of %d processes): %v\n%s", j.name, j.np, err, out)
			code = 1
		} else if testing.Verbose() {
			fmt.Printf("%s(a job of %d processes)\n", out, j.np)
		}
	}
	newSkip := "^Example"
	if skip != "" {
		newSkip = "^Example|" + skip
	}
	if err := flag.Set("test.skip", newSkip); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}

// selects reports whether the pattern of -test.run or -test.skip names
// the top-level test name; an empty pattern selects what empty says.
func selects(pattern, name string, empty bool) bool {
	if pattern == "" {
		return empty
	}
	first, _, _ := strings.Cut(pattern, "/") // the part for top-level names
	ok, err := regexp.MatchString(first, name)
	return err == nil && ok
}

// runExampleJob runs example j as a job and returns rank 0's test output,
// with an error unless the job succeeded and rank 0 reported the example
// passed.
func runExampleJob(j exampleJob) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirunBin, "-np", strconv.Itoa(j.np), "-timeout", jobTimeout.String(),
		self, "-test.run=^"+j.name+"$", "-test.v=true")
	cmd.Env = append(os.Environ(), envExample+"="+j.name)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("mpirun: %w", err)
	}
	if !strings.Contains(out.String(), "--- PASS: "+j.name+" ") {
		return out.String(), errors.New("rank 0 did not report the example passed")
	}
	return out.String(), nil
}

// TestExampleJobsComplete checks that exampleJobs lists every example of
// the package's test files, so that each one runs.
func TestExampleJobsComplete(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Example") {
				found = append(found, fn.Name.Name)
			}
		}
	}
	var listed []string
	for _, j := range exampleJobs {
		listed = append(listed, j.name)
	}
	slices.Sort(found)
	slices.Sort(listed)
	if !slices.Equal(found, listed) {
		t.Errorf("examples in the test files %v, in exampleJobs %v", found, listed)
	}
	if len(listed) < 10 {
		t.Errorf("%d examples, want at least 10", len(listed))
	}
}
