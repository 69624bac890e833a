package tray

import (
	"fmt"
	"time"

	jsync "github.com/jarvis-kb/jarvis/backend/sync"
)

// JobLine is one status line of the menu.
type JobLine struct {
	ID    string
	Title string
}

// jobNames are the menu's words for the scheduler's job ids.
var jobNames = map[string]string{
	"vault_refresh": "Vault refresh", "pdf_scan": "PDF inbox", "digest": "Digest",
	"digest_catchup": "Digest catch-up", "draft_gc": "Draft cleanup",
	"ledger_prune": "Ledger cleanup", "zotero_sync": "Zotero",
}

// Lines renders per-job status: when it last ran and how, or why it is off.
// A job turned off by a setting reads as a setting, not a fault.
func Lines(st jsync.Status, disabled map[string]string, now time.Time) []JobLine {
	ids := []string{"vault_refresh", "pdf_scan", "zotero_sync", "digest", "digest_catchup", "draft_gc", "ledger_prune"}
	var out []JobLine
	for _, id := range ids {
		name := jobNames[id]
		if why, off := disabled[id]; off {
			out = append(out, JobLine{ID: id, Title: fmt.Sprintf("%s: off (%s)", name, why)})
			continue
		}
		js, ok := st.Jobs[id]
		switch {
		case !ok || js.LastRun.IsZero():
			title := name + ": not run yet"
			if ok && !js.NextRun.IsZero() {
				title += ", next " + when(js.NextRun, now)
			}
			out = append(out, JobLine{ID: id, Title: title})
		case js.LastError != "":
			out = append(out, JobLine{ID: id, Title: fmt.Sprintf("%s: FAILED %s — %s", name, when(js.LastRun, now), clip(js.LastError, 60))})
		default:
			out = append(out, JobLine{ID: id, Title: fmt.Sprintf("%s: ok %s, next %s", name, when(js.LastSuccess, now), when(js.NextRun, now))})
		}
	}
	return out
}

// when says a time the way a menu should: clock time today, date otherwise.
func when(t, now time.Time) string {
	if t.IsZero() {
		return "—"
	}
	t, now = t.Local(), now.Local()
	if t.Format("2006-01-02") == now.Format("2006-01-02") {
		return t.Format("15:04")
	}
	return t.Format("Mon 2 Jan 15:04")
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
