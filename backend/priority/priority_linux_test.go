package priority

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
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
		if n < BackgroundNice { // a test runner already niced further keeps its value
			t.Fatalf("thread %s runs at nice %d, want at least %d (all: %v)", tid, n, BackgroundNice, nices)
		}
	}
	if err := Lower(); err != nil { // again: nothing to change, no error
		t.Fatal(err)
	}
}

// A process leading its own session (the tray) lowers its session's
// scheduling group and no thread; a window it starts in a new session
// keeps normal priority. Runs in a child started in a new session.
func TestLowerSessionLeavesThreadsAndNewSessionsAlone(t *testing.T) {
	if os.Getenv("PRIORITY_SESSION_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestLowerSessionLeavesThreadsAndNewSessionsAlone$", "-test.v")
		cmd.Env = append(os.Environ(), "PRIORITY_SESSION_CHILD=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	before := threadNices(t)
	done, err := LowerSession()
	if err != nil {
		t.Fatal(err)
	}
	group, err := os.ReadFile("/proc/self/autogroup")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if done {
			t.Fatal("reported lowered on a kernel without autogroups")
		}
	case err != nil:
		t.Fatal(err)
	case !done || !strings.HasSuffix(strings.TrimSpace(string(group)), "nice "+strconv.Itoa(BackgroundNice)):
		t.Fatalf("leading its session: done %v, group %q", done, group)
	}
	base := before[strconv.Itoa(os.Getpid())] // the niceness the test was started with
	for tid, n := range threadNices(t) {
		if n != base {
			t.Fatalf("thread %s runs at nice %d; the process's threads were at %d", tid, n, base)
		}
	}
	// What the tray's "Open Jarvis" does: a detached child in a new session.
	win := exec.Command("sh", "-c", "cat /proc/self/autogroup 2>/dev/null; cut -d' ' -f19 /proc/self/stat")
	win.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := win.Output()
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(out)) // ["/autogroup-N" "nice" "0"] and the thread's nice
	if fields[len(fields)-1] != strconv.Itoa(base) || len(fields) == 4 && fields[2] != "0" {
		t.Fatalf("the new session's process runs lowered: %q (started at nice %d)", out, base)
	}
}

// A child started for background work runs at BackgroundNice, and the
// caller's own niceness is untouched.
func TestLowerChild(t *testing.T) {
	before, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := LowerChild(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name: state is the first, nice the 17th.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if nice, _ := strconv.Atoi(f[16]); nice != BackgroundNice {
		t.Fatalf("child nice %s, want %d", f[16], BackgroundNice)
	}
	if after, _ := syscall.Getpriority(syscall.PRIO_PROCESS, 0); after != before {
		t.Fatalf("the caller's priority moved: %d -> %d", before, after)
	}
}
