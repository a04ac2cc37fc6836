package bench

import (
	"slices"
	"strings"
	"testing"
)

func TestParseVariants(t *testing.T) {
	vs, err := ParseVariants("default; eager=4k;rndv=push;path=aotf;no-cma;no-offload;coll=allreduce=ring,bcast=binomial;no-hugepages;no-shared-lines")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{nil, {"-eager-limit", "4096"}, {"-rndv", "push"}, {"-send-path", "aotf"}, {"-no-cma"}, {"-no-offload"},
		{"-coll", "allreduce=ring,bcast=binomial"}, {"-no-hugepages"}, {"-no-shared-lines"}}
	if len(vs) != len(want) {
		t.Fatalf("%d variants, want %d", len(vs), len(want))
	}
	for i, v := range vs {
		if !slices.Equal(v.Flags, want[i]) || v.Only != nil {
			t.Errorf("variant %q: flags %q, want %q", v.Name, v.Flags, want[i])
		}
	}
	if v, err := ParseVariant("build=/tmp/old"); err != nil || v.Build != "/tmp/old" || v.Flags != nil || v.Name != "build=/tmp/old" {
		t.Errorf("ParseVariant(build=/tmp/old) = %+v, %v", v, err)
	}
	for _, bad := range []string{"fast", "build=", "eager=", "eager=-1", "rndv=get", "path=dma", "no-cma=1", "no-hugepages=0", "no-shared-lines=1", "coll=", "coll=allreduce=bogus", "default=x"} {
		if _, err := ParseVariant(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseVariant(%q): %v, want an error naming it", bad, err)
		}
	}
}

func TestCompareGroup(t *testing.T) {
	for _, g := range CompareGroups {
		vs, err := CompareGroup(g, []string{"PingPong", "Allreduce", "Barrier"})
		if err != nil || len(vs) < 2 {
			t.Errorf("group %s: %d variants, %v", g, len(vs), err)
		}
	}
	// A nonblocking collective is no collective of its own among the
	// forced selections: its variants are its blocking form's.
	vs, err := CompareGroup("coll", []string{"PingPong", "Allreduce", "Iallreduce"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if !strings.HasPrefix(v.Name, "coll=allreduce=") || !slices.Equal(v.Only, []string{"Allreduce"}) {
			t.Errorf("coll variant %+v: want an allreduce algorithm measuring Allreduce only", v)
		}
	}
	if _, err := CompareGroup("speed", nil); err == nil {
		t.Error("unknown group accepted")
	}
}
