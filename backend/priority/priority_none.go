//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package priority

// Lower does nothing where Jarvis has no way to lower the priority.
func Lower() error { return nil }
