package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// blankScan is a scan of n small blank pages (the fake engine says what
// is on them), copied to name in a fresh directory.
func blankScan(t *testing.T, n int, name string) string {
	t.Helper()
	data, err := os.ReadFile(pdftest.Scan(t, pdftest.BlankPages(n, 60, 60, 144, 144)...))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// opEvents collects the events of operation id until it ends (or, with
// until, until until says stop), failing after a generous guard.
func opEvents(t *testing.T, events chan any, id string, until func(ops.Op) bool) []ops.Op {
	t.Helper()
	var got []ops.Op
	timeout := time.After(60 * time.Second)
	for {
		select {
		case e := <-events:
			o := e.(ops.Op)
			if o.ID != id {
				continue
			}
			got = append(got, o)
			if o.State != ops.Running || until != nil && until(o) {
				return got
			}
		case <-timeout:
			t.Fatalf("operation did not get there; events so far %+v", got)
		}
	}
}

// pageStages are the OCR page stages among evs, as "stage done/total".
func pageStages(evs []ops.Op) []string {
	var out []string
	for _, o := range evs {
		if strings.Contains(o.Stage, "(OCR)") {
			out = append(out, fmt.Sprintf("%s %d/%d", o.Stage, o.Done, o.Total))
		}
	}
	return out
}

// The Library's Add of a scan tells the window each page as it is
// recognised: "recognising page k of n (OCR)" with k of n as the
// operation's progress, in page order, then the result says how many
// pages OCR read and the scan's words are found.
func TestLibraryAddOfAScanReportsEachPage(t *testing.T) {
	events := make(chan any, 256)
	s, _ := services(t)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	fake := ocrtest.NewFake(t, ocrtest.Answer("microfiche", "ledger"))
	id, err := s.Library.Add(blankScan(t, 4, "ledger.pdf"), true, false, "")
	if err != nil {
		t.Fatal(err)
	}
	evs := opEvents(t, events, id, nil)
	final := evs[len(evs)-1]
	if final.State != ops.Done || !strings.Contains(final.Result, "4 scanned page(s) read by OCR") {
		t.Fatalf("%+v", final)
	}
	var want []string
	for k := 1; k <= 4; k++ {
		want = append(want, fmt.Sprintf("recognising page %d of 4 (OCR) %d/4", k, k))
	}
	if got := pageStages(evs); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("page progress %q, want %q", got, want)
	}
	if fake.Runs() != 4 {
		t.Fatalf("%d recognitions", fake.Runs())
	}
	res, err := s.Library.Search("microfiche ledger", 5)
	if err != nil || len(res.Hits) == 0 || !strings.HasPrefix(res.Hits[0].OCR, "recognised by OCR") {
		t.Fatalf("%v %+v", err, res)
	}
}

// Cancelled from the window while its third page is being recognised, a
// scan's operation has shown the two pages done, ends cancelled, and
// leaves nothing of the scan in the Library.
func TestCancellingAScanInTheWindowStopsItAtItsPage(t *testing.T) {
	events := make(chan any, 256)
	s, _ := services(t)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	fake := ocrtest.NewFake(t, `if [ "$(grep -c run "$FAKE_DIR/runs")" -ge 3 ]; then `+ocrtest.Stall+"; fi\n"+ocrtest.Answer("microfiche", "ledger"))
	id, err := s.Library.Add(blankScan(t, 6, "ledger.pdf"), true, false, "")
	if err != nil {
		t.Fatal(err)
	}
	evs := opEvents(t, events, id, func(o ops.Op) bool { return o.Stage == "recognising page 2 of 6 (OCR)" })
	for range 3 {
		select {
		case <-fake.Started:
		case <-time.After(60 * time.Second):
			t.Fatal("the third page's recognition did not start")
		}
	}
	if !s.Library.CancelOp(id) {
		t.Fatal("the running add could not be cancelled")
	}
	evs = append(evs, opEvents(t, events, id, nil)...)
	if final := evs[len(evs)-1]; final.State != ops.Cancelled {
		t.Fatalf("%+v", final)
	}
	if got := strings.Join(pageStages(evs), "|"); got != "recognising page 1 of 6 (OCR) 1/6|recognising page 2 of 6 (OCR) 2/6" {
		t.Fatalf("page progress %q", got)
	}
	if fake.Runs() != 3 {
		t.Fatalf("%d recognitions", fake.Runs())
	}
	if res, err := s.Library.Search("microfiche ledger", 5); err != nil || len(res.Hits) != 0 {
		t.Fatalf("the cancelled scan left hits: %v %+v", err, res.Hits)
	}
	if docs, err := s.Library.Documents("papers", ""); err != nil || len(docs) != 0 {
		t.Fatalf("the cancelled scan left a document: %v %+v", err, docs)
	}
}
