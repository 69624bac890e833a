package digest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// failingLLM fails its first calls, then answers.
type failingLLM struct {
	fails int
	calls int
	reply string
}

func (f *failingLLM) CompleteText(context.Context, string, int, int) (string, error) {
	f.calls++
	if f.calls <= f.fails {
		return "", errs.New(errs.LLM, "ollama", "model overloaded")
	}
	return f.reply, nil
}

// Scoring retries a failed call with exponential backoff (each wait about
// twice the last, within 25% jitter) and reads the slop and vetted flags.
func TestScoreBacksOffAndReadsSlopAndVetted(t *testing.T) {
	fastScoreRetry(t)
	papers := []Paper{{Title: "Hype", Link: "https://arxiv.org/abs/2611.00001"}, {Title: "Solid", Link: "https://arxiv.org/abs/2611.00002", JournalRef: "Nature 2026"}}
	llm := &failingLLM{fails: 2, reply: `[{"id":0,"score":8,"slop":true,"vetted":false},{"id":1,"score":9,"slop":"no","vetted":"yes"}]`}
	var waits []time.Duration
	got, err := Score(context.Background(), llm, "R", papers, 5, 3, func(_ error, d time.Duration) { waits = append(waits, d) })
	if err != nil {
		t.Fatal(err)
	}
	first := scoreRetry.first
	if len(waits) != 2 || waits[0] < first*3/4 || waits[0] > first*5/4 || waits[1] < first*3/2 || waits[1] > first*5/2 {
		t.Fatalf("waits %v: want about %v, then about twice that", waits, first)
	}
	if got[0].Paper.Title != "Solid" || !got[0].Vetted || got[0].Slop || !got[1].Slop || got[1].Vetted {
		t.Fatalf("flags: %+v", got)
	}
	// The digest file says so, and add-digest reads it back.
	md := Format(time.Now(), time.Now(), got, "m")
	if !strings.Contains(md, "**Assessment:** vetted") || !strings.Contains(md, "**Assessment:** likely slop") {
		t.Fatalf("digest:\n%s", md)
	}
	_, back := Parse(md)
	if len(back) != 2 || !back[0].Vetted || back[0].Slop || !back[1].Slop || back[1].Summary != "" {
		t.Fatalf("parsed back: %+v", back)
	}
	// Out of attempts: the model's error, as an LLM error; a stop ends the
	// waiting at once.
	if _, err := Score(context.Background(), &failingLLM{fails: 9}, "R", papers, 5, 2, nil); !errs.Is(err, errs.LLM) || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("spent: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Score(ctx, &failingLLM{fails: 9}, "R", papers, 5, 3, nil); !errs.Is(err, errs.Cancelled) && !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
