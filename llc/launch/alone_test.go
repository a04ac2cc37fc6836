package launch

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

func TestAloneWarning(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // in the warning; "" for none
	}{
		{map[string]string{}, ""},
		{map[string]string{"SLURM_STEP_NUM_TASKS": "2", "SLURM_NTASKS": "2"}, "srun --mpi=pmi2"},
		{map[string]string{"SLURM_NTASKS": "4"}, "started 4 processes"},
		{map[string]string{"SLURM_STEP_NUM_TASKS": "1", "SLURM_NTASKS": "4"}, ""},
		{map[string]string{"SLURM_STEP_NUM_TASKS": "1"}, ""},
		{map[string]string{"SLURM_NTASKS": "x"}, ""},
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "3"}, "Open MPI's mpirun started 3"},
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "1"}, ""},
	} {
		got := aloneWarning(func(k string) string { return tc.env[k] })
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%v: warning %q, want one with %q", tc.env, got, tc.want)
		}
	}
}

// A singleton of srun -n 2 (no PMI) warns once, however often FromEnv
// runs; one that nobody else started is silent.
func TestSingletonWarnsOnce(t *testing.T) {
	var out bytes.Buffer
	saved := aloneOut
	aloneOut, aloneOnce = &out, sync.Once{}
	t.Cleanup(func() { aloneOut = saved })
	for _, env := range []map[string]string{{}, {"SLURM_STEP_NUM_TASKS": "2"}, {"SLURM_STEP_NUM_TASKS": "2"}} {
		j, err := fromEnv(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		if !j.Singleton {
			t.Fatalf("job %+v, want a singleton", j)
		}
		j.Close()
	}
	if n := strings.Count(out.String(), "runs alone"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, out.String())
	}
}
