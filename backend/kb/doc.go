// Package kb is the knowledge base: one SQLite file holding chunks, their
// metadata, their analysed terms and their vectors (BLOBs), shared safely
// by the desktop app, the tray scheduler and jarvis-cli. Each process ranks
// in memory (index.go: filter bitmap, inverted index scored by BM25, int8
// and float32 vector slabs), starting from an index snapshot when a
// verified one is there (snapshot.go).
//
// Writes are staged: callers build chunks in memory (Build…), then one
// Commit replaces a source's chunks inside a single transaction, so a failed
// or cancelled ingest leaves the store exactly as it was. Every commit bumps
// a generation counter; each process's in-memory index compares it
// before searching and catches up, so a second process sees new writes
// without a restart.
package kb
