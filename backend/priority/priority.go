// Package priority lowers the CPU priority of processes that do bulk
// background work (the tray, `jarvis-cli sync`, a long embedding run), so
// the window's searches, which share the CPU with them, stay fast. On an
// otherwise idle machine the work still runs at full speed.
//
// Linux desktops schedule each session as one group (autogroup) and weigh
// a thread's niceness only against threads of its own group. So a process
// that leads its own session — the tray, which the window starts detached —
// lowers its session's group (LowerSession): that weighs against the
// window, and a window the tray opens, in a session of its own, keeps its
// priority. A process inside somebody's session (jarvis-cli in a terminal)
// can only lower its own threads (Lower), which weighs against that
// session's other work; its children inherit it, so it must not start the
// window.
package priority

// BackgroundNice is the niceness background work runs at. Measured on two
// cores, 30k chunks, an embedding backfill with the bge-small-shaped graph
// in another process of the same scheduling group: hybrid search p50 6-10
// ms idle, 19-22 ms beside the backfill at nice 0, 11-12 ms at nice 10, 8
// ms at nice 19. 10 keeps search within 2x of idle without starving the
// backfill on a busy machine. Two CPU-bound loops in separate sessions,
// one session group at nice 10: 49 vs 272 ticks.
const BackgroundNice = 10
