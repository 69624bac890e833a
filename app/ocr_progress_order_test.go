package app

import (
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/ops"
)

// The progress of a scan being added never runs back: 0 of 3 stages, then
// page k of n, then the stages after the pages without a count (before,
// "embedding" came back as 2 of 3 after the pages had filled the bar).
func TestAScansProgressNeverRunsBack(t *testing.T) {
	events := make(chan any, 256)
	s, _ := services(t)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	ocrtest.NewFake(t, ocrtest.Answer("microfiche", "ledger"))
	id, err := s.Library.Add(blankScan(t, 4, "ledger.pdf"), true, false, "")
	if err != nil {
		t.Fatal(err)
	}
	evs := opEvents(t, events, id, nil)
	if final := evs[len(evs)-1]; final.State != ops.Done {
		t.Fatalf("%+v", final)
	}
	last, pages, after := 0.0, 0, 0
	for _, o := range evs {
		if o.State != ops.Running {
			continue
		}
		switch {
		case strings.Contains(o.Stage, "(OCR)"):
			pages++
		case pages > 0:
			if o.Total != 0 {
				t.Fatalf("a stage after the pages is counted %d/%d: %+v", o.Done, o.Total, o)
			}
			after++
		}
		if o.Total == 0 {
			continue
		}
		f := float64(o.Done) / float64(o.Total)
		if f < last {
			t.Fatalf("progress ran back to %d/%d (%q) after %.2f: %+v", o.Done, o.Total, o.Stage, last, evs)
		}
		last = f
	}
	if pages == 0 || after == 0 {
		t.Fatalf("want page counts, then stages without a count: %+v", evs)
	}
}
