package synccmd_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildCLI builds the real jarvis-cli binary for tests that need real
// processes.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "jarvis-cli")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/jarvis-kb/jarvis/cmd/jarvis-cli").CombinedOutput()
	if err != nil {
		t.Fatalf("go build jarvis-cli: %v\n%s", err, out)
	}
	return bin
}

// Two `jarvis-cli sync` on one data dir: the second says who runs the
// scheduler and exits non-zero, the first keeps running.
func TestTwoSyncProcessesLeaveExactlyOneRunning(t *testing.T) {
	bin := buildCLI(t)
	home := t.TempDir()
	vault := t.TempDir()
	env := append(os.Environ(), "JARVIS_HOME="+home, "VAULT_PATH="+vault, "OLLAMA_HOST=http://127.0.0.1:1")

	first := exec.Command(bin, "sync")
	first.Env = env
	stderr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		first.Process.Kill() // our own child, by pid; a no-op once it has exited
		first.Wait()
	})
	// The scheduler echoes its log to stderr; "sync starting" means it holds
	// the lock and runs.
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "sync starting") {
	}
	go func() { // keep draining so the first never blocks on a full pipe
		for lines.Scan() {
		}
	}()

	// Bounded: a second scheduler that does not refuse would run forever.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	second := exec.CommandContext(ctx, bin, "sync")
	second.Env = env
	out, err := second.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 4 {
		t.Fatalf("the second sync must exit 4 (conflict): %v\n%s", err, out)
	}
	want := fmt.Sprintf("the scheduler is already running for this data dir (pid %d", first.Process.Pid)
	if !strings.Contains(string(out), want) {
		t.Fatalf("the second sync must say who runs the scheduler (%q):\n%s", want, out)
	}
	if err := first.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the first sync must still run: %v", err)
	}
	// jarvis-cli keeps its own failures in jarvis.log.
	log, err := os.ReadFile(filepath.Join(home, "logs", "jarvis.log"))
	if err != nil || !strings.Contains(string(log), "command failed") || !strings.Contains(string(log), "already running") {
		t.Fatalf("jarvis.log must record the refused command: %v\n%s", err, log)
	}

	if err := first.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first sync must stop cleanly on SIGTERM: %v", err)
	}
	// With the first gone, the lock is free again.
	again := exec.Command(bin, "sync", "status")
	again.Env = env
	if out, err := again.CombinedOutput(); err != nil || !strings.Contains(string(out), "NOT running") {
		t.Fatalf("status after the stop: %v\n%s", err, out)
	}
}
