// Package priority lowers the CPU priority of processes that do bulk
// background work (the tray, `jarvis-cli sync`, a long embedding run), so
// the window's searches, which share the CPU with them, stay fast. On an
// otherwise idle machine the work still runs at full speed.
package priority

// BackgroundNice is the niceness background work runs at. Measured on two
// cores, 30k chunks, an embedding backfill with the bge-small-shaped graph
// in another process: hybrid search p50 6-10 ms idle, 19-22 ms beside the
// backfill at nice 0, 11-12 ms at nice 10, 8 ms at nice 19. 10 keeps search
// within 2x of idle without starving the backfill on a busy machine.
const BackgroundNice = 10
