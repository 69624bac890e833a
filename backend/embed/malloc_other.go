//go:build !linux

package embed

// releaseFreedMemory: the system allocator returns freed memory itself.
func releaseFreedMemory() {}
