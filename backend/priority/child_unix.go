//go:build linux || darwin || freebsd || netbsd || openbsd

package priority

import "syscall"

// LowerChild sets a child process (one started for background work, such
// as OCR of an inbox scan) to BackgroundNice. On Linux a pid names one
// thread, the child's main one: what it starts after this inherits it.
func LowerChild(pid int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, pid, BackgroundNice) }
