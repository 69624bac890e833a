package pdf

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

func TestLocateFindsAStoredPassageOnItsPage(t *testing.T) {
	// The passage as the knowledge base stores it: Markdown, joined lines.
	chunk := "## 1 Introduction\n\nTransformers compare every token with every other token, which is costly. We show that sparse attention keeps accuracy while cutting memory use."
	got, err := Locate("testdata/paper.pdf", 1, chunk, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Width < 100 || got.Height < 100 || len(got.Boxes) == 0 {
		t.Fatalf("nothing located: %+v", got)
	}
	var title Rect // the paper's title line must stay unmarked
	doc := read(t, "paper.pdf", Options{})
	for _, l := range doc.Pages[0].lines() {
		if l.text == "Sparse Attention for Long Documents" {
			title = l.box
		}
	}
	for _, b := range got.Boxes {
		if b.X1 <= b.X0 || b.Y1 <= b.Y0 || b.X1 > got.Width || b.Y1 > got.Height {
			t.Fatalf("box outside the page: %+v", b)
		}
		if b.Y0 < title.Y1 {
			t.Fatalf("the title above the passage was marked: %+v (title %+v)", b, title)
		}
	}
	// The passage's last sentence on the page ("Our method selects ...") is
	// not in the chunk: the boxes stop before it.
	all, _ := Locate("testdata/paper.pdf", 1, chunk+" Our method selects a few global tokens and a sliding local window.", nil)
	if len(all.Boxes) <= len(got.Boxes) && bottom(all.Boxes) <= bottom(got.Boxes) {
		t.Fatalf("a longer passage must cover more: %v vs %v", all.Boxes, got.Boxes)
	}
	if other, _ := Locate("testdata/paper.pdf", 2, chunk, nil); len(other.Boxes) != 0 {
		t.Fatalf("the passage is not on page 2: %+v", other.Boxes)
	}
	if _, err := Locate("testdata/paper.pdf", 9, chunk, nil); !errs.Is(err, errs.Invalid) {
		t.Fatalf("page out of range: %v", err)
	}
}

func bottom(rs []Rect) float64 {
	y := 0.0
	for _, r := range rs {
		y = max(y, r.Y1)
	}
	return y
}

// A cited scanned page is recognised to be boxed; leaving the viewer
// stops that recognition where it is: the tesseract process is killed and
// Locate returns Cancelled, wrapping context.Canceled.
func TestLocateOnAScanStopsWhenCancelled(t *testing.T) {
	fake := ocrtest.NewFake(t, ocrtest.Stall)
	// Far beyond the test's run, so only the cancellation can stop it
	// (were it ignored, the page would fail at this limit, not Cancelled).
	fake.Limits.Timeout = 30 * time.Second
	scan := pdftest.BlankScan(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := LocateContext(ctx, scan, 1, "any passage at all", fake.Engine)
		done <- err
	}()
	select {
	case <-fake.Started: // tesseract is at work on the page
	case err := <-done:
		t.Fatalf("Locate returned before recognising the page: %v", err)
	}
	cancel()
	err := <-done
	if !errs.Is(err, errs.Cancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if n := fake.Runs(); n != 1 {
		t.Fatalf("%d recognitions", n)
	}
	// A context cancelled before the call stops it before any work.
	if _, err := LocateContext(ctx, scan, 1, "any passage", fake.Engine); !errors.Is(err, context.Canceled) || fake.Runs() != 1 {
		t.Fatalf("cancelled before: %v, %d recognitions", err, fake.Runs())
	}
}
