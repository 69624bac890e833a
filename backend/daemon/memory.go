package daemon

import (
	"os"
	"runtime/debug"
)

// KeepHeapTight has the Go collector run when the heap has grown by a
// quarter since the last collection instead of doubling, for the processes
// that stay open with the index loaded (the window, the tray, `jarvis-cli
// sync`). Their heap is mostly the index's pointer-free blocks (int8
// vectors, row metadata), which a collection does not scan, so collecting
// often costs little, and what a search allocates (about a megabyte) is
// garbage at once. Measured with kbbench hold at 60k chunks with both
// real-size models, 200 searches: resident peak 537 MB at the default
// (GOGC 100), 483 MB at 50; after the postings moved out of the heap, 339
// MB at 50 and 313 MB at 25 (Go heap held 98 → 73 MB for 48 MB live),
// search p50 unchanged (249 → 230 ms). A GOGC the user set wins.
func KeepHeapTight() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25)
	}
}
