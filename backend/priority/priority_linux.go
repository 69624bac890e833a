package priority

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// Lower sets every thread of the process to BackgroundNice (never raising
// a thread already nicer). On Linux niceness is per thread; threads started
// later inherit it from the thread that starts them, and the list is read
// twice to catch one started while the first pass ran.
func Lower() error {
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
