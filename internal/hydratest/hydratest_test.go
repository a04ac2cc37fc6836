package hydratest

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A Hydra job whose test gives up is ended whole: its ranks, Hydra's
// proxy and mpiexec.
func TestCancelKillsTheJob(t *testing.T) {
	hydra := Hydra(t)
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := Cmd(ctx, hydra, nil, 2, sleep, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until both ranks run: the proxy and its two sleeps.
	var tree []int
	for len(tree) < 3 {
		select {
		case err := <-done:
			t.Fatalf("Hydra ended (%v) before its ranks ran", err)
		case <-time.After(10 * time.Millisecond):
		}
		tree = Descendants(cmd.Process.Pid)
	}
	cancel()
	<-done
	// A killed process that is not this one's child dies on its own time:
	// give it a while (a guard, not a speed target).
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range append(tree, cmd.Process.Pid) {
		for Alive(p) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if Alive(p) {
			t.Errorf("process %d of the job still runs", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// Tagged finds a process by the tag in its environment.
func TestTagged(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	tag := strconv.Itoa(os.Getpid()) + "-tagged"
	cmd := exec.Command(sleep, "600")
	cmd.Env = append(os.Environ(), TagVar+"="+tag)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if got := Tagged(tag); len(got) != 1 || got[0] != cmd.Process.Pid {
		t.Errorf("Tagged(%q) = %v, want [%d]", tag, got, cmd.Process.Pid)
	}
	if got := Tagged(tag + "x"); len(got) != 0 {
		t.Errorf("Tagged(%q) = %v, want none", tag+"x", got)
	}
}
