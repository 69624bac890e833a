package priority

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// threadNices reads the niceness of every thread of the process (field 19
// of /proc/self/task/TID/stat, counted after the command name).
func threadNices(t *testing.T) map[string]int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		n, err := strconv.Atoi(fields[16])
		if err != nil {
			t.Fatal(err)
		}
		out[task.Name()] = n
	}
	return out
}

// Every thread is lowered, and so are threads started afterwards. It runs
// in a child process: the test binary itself keeps its priority.
func TestLowerReachesEveryThreadAndNewOnes(t *testing.T) {
	if os.Getenv("PRIORITY_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestLowerReachesEveryThreadAndNewOnes$", "-test.v")
		cmd.Env = append(os.Environ(), "PRIORITY_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	if err := Lower(); err != nil {
		t.Fatal(err)
	}
	before := threadNices(t)
	// Start new OS threads: goroutines locked to their thread while others
	// are blocked, so the runtime has to add threads.
	done := make(chan struct{})
	ready := make(chan struct{})
	for range 8 {
		go func() {
			runtime.LockOSThread()
			ready <- struct{}{}
			<-done
		}()
	}
	for range 8 {
		<-ready
	}
	nices := threadNices(t)
	close(done)
	started := 0
	for tid := range nices {
		if _, ok := before[tid]; !ok {
			started++
		}
	}
	if started == 0 {
		t.Fatalf("no thread was started after Lower (before %v, after %v)", before, nices)
	}
	for tid, n := range nices {
		if n != BackgroundNice {
			t.Fatalf("thread %s runs at nice %d, want %d (all: %v)", tid, n, BackgroundNice, nices)
		}
	}
	if err := Lower(); err != nil { // again: nothing to change, no error
		t.Fatal(err)
	}
}
