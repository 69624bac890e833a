// Package kb is the knowledge base: one SQLite file holding chunks, their
// metadata, their vectors (BLOBs) and an FTS5 index for BM25, shared safely
// by the desktop app, the tray scheduler and jarvis-cli.
//
// Writes are staged: callers build chunks in memory (Build…), then one
// Commit replaces a source's chunks inside a single transaction, so a failed
// or cancelled ingest leaves the store exactly as it was. Every commit bumps
// a generation counter; each process's in-memory vector index compares it
// before searching and catches up, so a second process sees new writes
// without a restart.
package kb
