package ingest

// BowStore lets the external tests (package ingest_test, which may import
// kbtools) open the same store and embedder as the internal ones.
var BowStore = bowStore
