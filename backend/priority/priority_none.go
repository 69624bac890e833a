//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package priority

// LowerSession does nothing where Jarvis has no way to lower the priority.
func LowerSession() (bool, error) { return false, nil }

// Lower does nothing where Jarvis has no way to lower the priority.
func Lower() error { return nil }

// LowerChild does nothing where Jarvis has no way to lower the priority.
func LowerChild(pid int) error { return nil }
