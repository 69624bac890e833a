// Package kbtest holds test helpers for code that handles store files.
package kbtest

import (
	"encoding/binary"
	"os"
)

// Damage corrupts a SQLite file the way a bad disk or a torn copy would:
// it scribbles over the header of every b-tree page after the first (the
// file header stays, so the file still looks like a database). SQLite's
// integrity check reports it whatever the pages hold, which scribbling over
// an arbitrary byte range (possibly inside a blob) would not guarantee.
func Damage(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	pageSize := int(binary.BigEndian.Uint16(b[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	for off := pageSize; off+16 <= len(b); off += pageSize {
		for i := off; i < off+16; i++ {
			b[i] ^= 0x5a
		}
	}
	return os.WriteFile(path, b, 0o600)
}
