//go:build darwin || freebsd || netbsd || openbsd

package priority

import "syscall"

// LowerSession: no session scheduling groups here.
func LowerSession() (bool, error) { return false, nil }

// Lower sets the process to BackgroundNice (niceness is per process here).
func Lower() error {
	cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil || cur >= BackgroundNice {
		return err
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, 0, BackgroundNice)
}
