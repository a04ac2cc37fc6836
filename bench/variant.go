package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rhinet-go/martini/collectives"
)

// Variant is one setting of the runtime a run compares: a job started
// with Flags (mpirun flags) measuring Only those benchmarks (all when
// nil), by this build or by another (Build).
type Variant struct {
	Name  string
	Flags []string
	Only  []string
	// Build is the directory of another build's mpibench, and of its
	// mpirun if it has one, whose workers run the variant's jobs, so that
	// two builds are measured in one run, benchmark by benchmark; "" for
	// this build.
	Build string
}

// ParseVariant reads a variant: "default"; "eager=BYTES" (the eager
// limit; k and m suffixes); "rndv=pull|push|split"; "path=botf|push|aotf"
// (the NIC's send path for small messages); "no-cma" (bounce buffers
// instead of single-copy); "no-hugepages" (the memory of single copies
// left on the pages it has); "no-shared-lines" (every small message
// through the rings); "no-offload" (collectives without the
// synchronisation network); "coll=SELECTION" (forced collective
// algorithms, "allreduce=ring,bcast=binomial"); "build=DIR" (another
// build's default, DIR holding its mpibench and perhaps its mpirun).
func ParseVariant(spec string) (Variant, error) {
	spec = strings.TrimSpace(spec)
	key, val, hasVal := strings.Cut(spec, "=")
	v := Variant{Name: spec}
	bad := func(why string) (Variant, error) {
		return Variant{}, fmt.Errorf("bench: variant %q: %s", spec, why)
	}
	switch key {
	case "default":
		if hasVal {
			return bad("takes no value")
		}
	case "no-cma", "no-hugepages", "no-shared-lines", "no-offload":
		if hasVal {
			return bad("takes no value")
		}
		v.Flags = []string{"-" + key}
	case "eager":
		n, err := parseSize(val)
		if err != nil {
			return bad(err.Error())
		}
		v.Flags = []string{"-eager-limit", fmt.Sprint(n)}
	case "rndv":
		if !slices.Contains([]string{"pull", "push", "split"}, val) {
			return bad("want rndv=pull, push or split")
		}
		v.Flags = []string{"-rndv", val}
	case "path":
		if !slices.Contains([]string{"botf", "push", "aotf"}, val) {
			return bad("want path=botf, push or aotf")
		}
		v.Flags = []string{"-send-path", val}
	case "coll":
		if _, err := collectives.ParseSelection(val); err != nil || val == "" {
			return bad(fmt.Sprintf("not a collective selection (%v)", err))
		}
		v.Flags = []string{"-coll", val}
	case "build":
		if val == "" {
			return bad("want build=DIR, the directory of another build's mpibench")
		}
		v.Build = val
	default:
		return bad("want default, eager=, rndv=, path=, no-cma, no-hugepages, no-shared-lines, no-offload, coll= or build=")
	}
	return v, nil
}

// ParseVariants reads a semicolon-separated list of variants.
func ParseVariants(list string) ([]Variant, error) {
	var out []Variant
	for _, spec := range strings.Split(list, ";") {
		if strings.TrimSpace(spec) == "" {
			continue
		}
		v, err := ParseVariant(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// CompareGroups are the names CompareGroup knows.
var CompareGroups = []string{"eager", "rndv", "path", "copy", "coll"}

// CompareGroup returns the variants that compare one aspect of the
// runtime: "eager" (eager limits 4 KiB, 32 KiB, 128 KiB), "rndv"
// (rendezvous by pull, push, split), "path" (the send path of small
// messages: PUSH, BOTF, AOTF), "copy" (single-copy against bounce
// buffers), "coll" (every algorithm of each blocking collective among
// benchmarks, each variant measuring its collective only; a variant's
// forced algorithm applies to the nonblocking form too, which these
// variants do not measure).
func CompareGroup(name string, benchmarks []string) ([]Variant, error) {
	var specs []string
	switch name {
	case "eager":
		specs = []string{"eager=4k", "eager=32k", "eager=128k"}
	case "rndv":
		specs = []string{"rndv=pull", "rndv=push", "rndv=split"}
	case "path":
		specs = []string{"path=push", "path=botf", "path=aotf"}
	case "copy":
		specs = []string{"default", "no-cma"}
	case "coll":
		var out []Variant
		for _, b := range benchmarks {
			if !slices.Contains(Collectives, b) {
				continue
			}
			coll := strings.ToLower(b)
			c, ok := collectives.ParseCollective(coll)
			if !ok {
				return nil, fmt.Errorf("bench: compare coll: no collective %q", coll)
			}
			for _, alg := range collectives.Algorithms(c) {
				v, err := ParseVariant("coll=" + coll + "=" + alg)
				if err != nil {
					return nil, err
				}
				v.Only = []string{b}
				out = append(out, v)
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("bench: compare %q: want one of %s", name, strings.Join(CompareGroups, ", "))
	}
	out := make([]Variant, len(specs))
	for i, s := range specs {
		v, err := ParseVariant(s)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
