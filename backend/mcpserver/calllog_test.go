package mcpserver_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/mcpserver"
)

// The call log rolls over at its size limit, keeping one older file: both
// stay 0600 and under the limit, Tail reads across the two oldest first,
// and what is older than that is gone. Secrets are redacted in every
// field that holds client text.
func TestTheCallLogRotatesKeepingOneOlderFile(t *testing.T) {
	dir := t.TempDir()
	l := mcpserver.NewCallLog(dir, func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[redacted]") })
	l.MaxBytes = 1000
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	const n = 40
	for i := range n {
		e := mcpserver.Entry{Time: at.Add(time.Duration(i) * time.Second), Method: "tools/call", Name: "search",
			Args: fmt.Sprintf(`{"query":"call %02d sk-secret"}`, i), Sources: []string{"garden/compost.md"}, Error: "sk-secret"}
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{l.Path, l.Path + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 || st.Size() > l.MaxBytes {
			t.Errorf("%s: mode %v, %d bytes (limit %d)", p, st.Mode().Perm(), st.Size(), l.MaxBytes)
		}
	}
	if _, err := os.Stat(l.Path + ".2"); !os.IsNotExist(err) {
		t.Errorf("a second older file was kept: %v", err)
	}
	all, err := l.Tail(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || len(all) >= n {
		t.Fatalf("kept %d of %d entries: rotation should drop the oldest and keep some", len(all), n)
	}
	for i, e := range all {
		want := fmt.Sprintf("call %02d", n-len(all)+i) // the newest, oldest first, none missing
		if !strings.Contains(e.Args, want) {
			t.Fatalf("entry %d is %q, want %q", i, e.Args, want)
		}
		if strings.Contains(e.Args+e.Error, "sk-secret") {
			t.Fatalf("a secret reached the log: %+v", e)
		}
	}
	last, err := l.Tail(3)
	if err != nil || len(last) != 3 || !strings.Contains(last[2].Args, fmt.Sprintf("call %02d", n-1)) {
		t.Errorf("Tail(3) = %+v, %v", last, err)
	}
}

// A line cut short (a crash mid-write) is skipped; the entries around it
// are read.
func TestTheCallLogSkipsALineCutShort(t *testing.T) {
	l := mcpserver.NewCallLog(t.TempDir(), nil)
	if err := l.Append(mcpserver.Entry{Method: "tools/call", Name: "search"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-12-04T09:00:00Z","method":"tools/c` + "\n")
	f.Close()
	if err := l.Append(mcpserver.Entry{Method: "resources/read", Name: "jarvis://doc/garden/compost.md"}); err != nil {
		t.Fatal(err)
	}
	got, err := l.Tail(0)
	if err != nil || len(got) != 2 || got[0].Name != "search" || got[1].Method != "resources/read" {
		t.Errorf("Tail = %+v, %v", got, err)
	}
}
