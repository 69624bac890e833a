package priority

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// LowerSession sets the scheduling group of the process's session to
// BackgroundNice when the process leads that session, and reports whether
// it did; it changes nothing else (no thread's niceness, so nothing a child
// inherits).
func LowerSession() (bool, error) {
	sid, err := getsid()
	if err != nil || sid != os.Getpid() {
		return false, err
	}
	cur, err := os.ReadFile("/proc/self/autogroup") // "/autogroup-123 nice 0"
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // a kernel without autogroups
	}
	if err != nil {
		return false, err
	}
	if f := strings.Fields(string(cur)); len(f) == 3 {
		if n, err := strconv.Atoi(f[2]); err == nil && n >= BackgroundNice {
			return true, nil
		}
	}
	if err := os.WriteFile("/proc/self/autogroup", []byte(strconv.Itoa(BackgroundNice)), 0); err != nil {
		return false, err
	}
	return true, nil
}

func getsid() (int, error) {
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(sid), nil
}

// Lower lowers the session's group when the process leads its session,
// and otherwise every thread of the process (never raising a thread already
// nicer). Threads started later inherit it from the thread that starts
// them; the list is read twice to catch one started while the first pass
// ran.
func Lower() error {
	if done, err := LowerSession(); done || err != nil {
		return err
	}
	var errList []error
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		errList = errList[:0]
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if err := lowerThread(tid); err != nil && !errors.Is(err, syscall.ESRCH) { // ESRCH: the thread ended
				errList = append(errList, err)
			}
		}
	}
	return errors.Join(errList...)
}

func lowerThread(tid int) error {
	// getpriority returns 20 - nice on Linux.
	cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return err
	}
	if 20-cur >= BackgroundNice {
		return nil
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, tid, BackgroundNice)
}
