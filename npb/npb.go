// Package npb holds Go ports of the NAS Parallel Benchmarks 3.4 (MPI
// version), the kernels EP, IS, CG, MG and FT and, where ported, the
// pseudo-applications BT, SP and LU, with NPB's problem generation, its
// random number generator and its official verification values, over this
// runtime's mpi package.
//
// Run them through mpirun with the npb command:
//
//	go run ./cmd/mpirun -np 2 ./npb/cmd/npb -class A cg
package npb

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rhinet-go/martini/mpi"
)

// Class is an NPB problem class: 'S', 'W', 'A', 'B' or 'C'; every
// kernel has all five.
type Class byte

// String returns the class letter.
func (c Class) String() string { return string(rune(c)) }

// ParseClass reads a class letter.
func ParseClass(s string) (Class, error) {
	if len(s) != 1 || !strings.Contains("SWABC", strings.ToUpper(s)) {
		return 0, fmt.Errorf("npb: class %q: want S, W, A, B or C", s)
	}
	return Class(strings.ToUpper(s)[0]), nil
}

// Options change how a kernel runs.
type Options struct {
	// Corrupt perturbs the kernel's result before verification, to show
	// that a wrong result is reported UNSUCCESSFUL.
	Corrupt bool
}

// Result is what a kernel reports, as NPB's print_results does.
type Result struct {
	Kernel     string
	Class      Class
	Size       string // the problem size as NPB prints it ("256x256x128")
	Iterations int
	NP         int
	Seconds    float64 // the timed part
	Mops       float64 // Mop/s in total, by NPB's operation count
	Operation  string  // what Mop/s counts ("floating point")
	Verified   bool
	// Detail is the kernel's verification output: computed and reference
	// values and the error.
	Detail string
}

// Kernel is one NPB kernel.
type Kernel struct {
	Name string
	// Run runs the kernel on every process of c; the Result is complete
	// on rank 0.
	Run func(c *mpi.Comm, class Class, o Options) (*Result, error)
	// Procs reports whether the kernel runs on np processes (NPB: powers
	// of two for IS, CG, MG and FT; squares for BT and SP; for LU a grid
	// xdim·ydim with ydim ≤ xdim ≤ 2·ydim; any number for EP).
	Procs func(np int) bool
	// ProcsRule says which process counts Procs accepts, for the error
	// of a count it refuses ("a power of two").
	ProcsRule string
	// Classes are the classes the kernel knows.
	Classes []Class
}

var kernels []Kernel

// register adds a kernel; each kernel's file registers itself.
func register(k Kernel) { kernels = append(kernels, k) }

// Kernels returns the names of the benchmarks, in NPB's order: the
// kernels, then the pseudo-applications. Every one declares its
// operations (mpi.Compute) over the process's own part, adding up at one
// process to NPB's operation count of the timed part, so that a run under
// mpirun -compute declared charges them at the job's operation rate.
func Kernels() []string {
	var names []string
	for _, n := range []string{"EP", "IS", "CG", "MG", "FT", "BT", "SP", "LU"} {
		if slices.ContainsFunc(kernels, func(k Kernel) bool { return k.Name == n }) {
			names = append(names, n)
		}
	}
	return names
}

// ErrUnsupported is wrapped by Run's error for a kernel, class or process
// count NPB does not define.
var ErrUnsupported = errors.New("npb: not supported")

// ErrProcs is wrapped by Run's and Check's error for a process count a
// kernel does not accept; it wraps ErrUnsupported and says the same.
var ErrProcs = fmt.Errorf("%w", ErrUnsupported)

// Run runs kernel name (any case) of class on every process of c.
func Run(c *mpi.Comm, name string, class Class, o Options) (*Result, error) {
	k, err := lookup(name, class, c.Size())
	if err != nil {
		return nil, err
	}
	return k.Run(c, class, o)
}

// Check reports whether kernel name (any case) runs in class on np
// processes, as Run would find before it starts: nil, or an error
// wrapping ErrUnsupported that gives NPB's rule. It returns the kernel's
// name as NPB writes it ("CG").
func Check(name string, class Class, np int) (string, error) {
	k, err := lookup(name, class, np)
	return k.Name, err
}

// ProcsRule says which process counts kernel name (any case) accepts, as
// NPB states its rule ("a power of two"); "" for an unknown kernel.
func ProcsRule(name string) string {
	i := slices.IndexFunc(kernels, func(k Kernel) bool { return strings.EqualFold(k.Name, name) })
	if i < 0 {
		return ""
	}
	return kernels[i].ProcsRule
}

// lookup finds kernel name (any case) and checks that it runs in class
// on np processes.
func lookup(name string, class Class, np int) (Kernel, error) {
	i := slices.IndexFunc(kernels, func(k Kernel) bool { return strings.EqualFold(k.Name, name) })
	if i < 0 {
		return Kernel{}, fmt.Errorf("npb: kernel %q: %w (known: %s)", name, ErrUnsupported, strings.Join(Kernels(), ", "))
	}
	k := kernels[i]
	if !slices.Contains(k.Classes, class) {
		return k, fmt.Errorf("npb: %s class %v: %w", k.Name, class, ErrUnsupported)
	}
	if !k.Procs(np) {
		return k, fmt.Errorf("npb: %s on %d processes: %w (%s needs %s)", k.Name, np, ErrProcs, k.Name, k.ProcsRule)
	}
	return k, nil
}

// PowerOfTwo reports whether n is a power of two.
func PowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// Square reports whether n is the square of a positive integer.
func Square(n int) bool {
	if n <= 0 {
		return false
	}
	r := int(math.Sqrt(float64(n)))
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	return r*r == n
}

// AnyProcs accepts every process count.
func AnyProcs(n int) bool { return n > 0 }

// Verdict is NPB's verification word.
func (r *Result) Verdict() string {
	if r.Verified {
		return "SUCCESSFUL"
	}
	return "UNSUCCESSFUL"
}

// Report returns the report NPB prints at the end of a run.
func (r *Result) Report() string {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, " %-16s= %24s\n", k, v) }
	fmt.Fprintf(&b, "\n %s Benchmark Completed.\n", r.Kernel)
	line("Class", r.Class.String())
	line("Size", r.Size)
	line("Iterations", fmt.Sprint(r.Iterations))
	line("Time in seconds", fmt.Sprintf("%.2f", r.Seconds))
	line("Total processes", fmt.Sprint(r.NP))
	line("Mop/s total", fmt.Sprintf("%.2f", r.Mops))
	line("Mop/s/process", fmt.Sprintf("%.2f", r.Mops/float64(max(r.NP, 1))))
	line("Operation type", r.Operation)
	line("Verification", r.Verdict())
	line("Version", "3.4 (Go port)")
	if r.Detail != "" {
		b.WriteString("\n" + r.Detail)
		if !strings.HasSuffix(r.Detail, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Mops returns NPB's Mop/s for ops operations in seconds (0 for no time).
func Mops(ops, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return ops / seconds / 1e6
}

// RelErr returns |got-want|/|want| (|got| when want is 0).
func RelErr(got, want float64) float64 {
	d := got - want
	if d < 0 {
		d = -d
	}
	if want == 0 {
		return d
	}
	if want < 0 {
		want = -want
	}
	return d / want
}
