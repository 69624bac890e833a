package digest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// Completer is the one LLM call scoring needs (llm.Provider satisfies it
// through a small adapter in the pipeline's wiring).
type Completer interface {
	CompleteText(ctx context.Context, prompt string, maxTokens, contextLength int) (string, error)
}

// Scored is one paper with the model's verdict. Slop flags a paper that
// reads as low-substance (hype, vague claims, no clear method or evidence);
// Vetted one whose claims were checked beyond its authors (published at a
// venue, code and data released, results reproduced).
type Scored struct {
	Paper   Paper  `json:"paper"`
	Score   int    `json:"score"`
	Track   string `json:"track"`
	Reason  string `json:"reason"`
	Summary string `json:"summary"`
	Slop    bool   `json:"slop"`
	Vetted  bool   `json:"vetted"`
}

type verdict struct {
	ID      any    `json:"id"`
	Score   any    `json:"score"`
	Reason  string `json:"reason"`
	Track   string `json:"track"`
	Summary string `json:"summary"`
	Slop    any    `json:"slop"`
	Vetted  any    `json:"vetted"`
}

// BuildScoringPrompt appends the papers, numbered, to the user's scoring
// prompt, as retrieved data.
func BuildScoringPrompt(instructions string, papers []Paper) string {
	var b strings.Builder
	b.WriteString(instructions)
	b.WriteString("\n\nBEGIN RETRIEVED DATA\n")
	for i, p := range papers {
		fmt.Fprintf(&b, "\n[id %d] %s\nAuthors: %s\nSource: %s\n", i, p.Title, strings.Join(p.Authors, "; "), p.Source)
		if len(p.Categories) > 1 {
			fmt.Fprintf(&b, "Categories: %s\n", strings.Join(p.Categories, ", "))
		}
		fmt.Fprintf(&b, "Abstract: %s\n", p.Abstract)
	}
	b.WriteString("\nEND RETRIEVED DATA\n")
	return b.String()
}

// ParseScores reads the model's JSON list, tolerating prose or code fences
// around it. Unknown ids and out-of-range scores are dropped.
func ParseScores(reply string, papers []Paper) ([]Scored, error) {
	start, end := strings.Index(reply, "["), strings.LastIndex(reply, "]")
	if start < 0 || end <= start {
		return nil, errs.New(errs.LLM, "digest.score", "the reply holds no JSON list")
	}
	var vs []verdict
	if err := json.Unmarshal([]byte(reply[start:end+1]), &vs); err != nil {
		return nil, errs.Wrapf(errs.LLM, "digest.score", err, "the reply's JSON does not parse")
	}
	seen := map[int]bool{}
	var out []Scored
	for _, v := range vs {
		id, ok1 := asInt(v.ID)
		score, ok2 := asInt(v.Score)
		if !ok1 || !ok2 || id < 0 || id >= len(papers) || score < 0 || score > 10 || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, Scored{Paper: papers[id], Score: score, Track: strings.TrimSpace(v.Track), Reason: strings.TrimSpace(v.Reason), Summary: strings.TrimSpace(v.Summary),
			Slop: asBool(v.Slop), Vetted: asBool(v.Vetted)})
	}
	if len(out) == 0 && len(papers) > 0 {
		return nil, errs.New(errs.LLM, "digest.score", "the reply scored none of the papers")
	}
	return out, nil
}

// asBool reads a model's yes/no: true, "true", "yes", 1.
func asBool(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "y", "1":
			return true
		}
	}
	return false
}

func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		return int(x), x == float64(int(x))
	case string:
		var n int
		_, err := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(x, "id ")), "%d", &n)
		return n, err == nil
	}
	return 0, false
}

// scoreRetry is the wait before the second scoring attempt; each further
// one waits twice as long (up to maxWait), give or take 25% jitter, so a
// struggling model is not asked again in lockstep. Tests shorten it.
var scoreRetry = struct{ first, maxWait time.Duration }{first: 5 * time.Second, maxWait: time.Minute}

// Score sends every abstract in one prompt and returns the top max papers by
// score. A failed call or a reply that does not parse is retried (attempts
// times in all) with exponential backoff; notify, when set, is told of
// each retry and its wait.
func Score(ctx context.Context, llm Completer, instructions string, papers []Paper, max, attempts int, notify func(err error, wait time.Duration)) ([]Scored, error) {
	if len(papers) == 0 {
		return nil, nil
	}
	prompt := BuildScoringPrompt(instructions, papers)
	// The abstracts are the servers' public text, not the knowledge base's:
	// the record names the purpose and no document.
	ctx = ledger.WithAbout(ctx, ledger.About{Purpose: ledger.PurposeDigest})
	// Roughly four characters a token, plus room for the answer.
	contextLength := len(prompt)/3 + 4096
	policy := &backoff.ExponentialBackOff{InitialInterval: scoreRetry.first, RandomizationFactor: 0.25, Multiplier: 2, MaxInterval: scoreRetry.maxWait}
	opts := []backoff.RetryOption{backoff.WithBackOff(policy), backoff.WithMaxTries(uint(max1(attempts))), backoff.WithMaxElapsedTime(0)}
	if notify != nil {
		opts = append(opts, backoff.WithNotify(notify))
	}
	scored, err := backoff.Retry(ctx, func() ([]Scored, error) {
		reply, err := llm.CompleteText(ctx, prompt, 8192, contextLength)
		if errs.Is(err, errs.Cancelled) {
			return nil, backoff.Permanent(err)
		}
		if err != nil {
			return nil, err
		}
		return ParseScores(reply, papers)
	}, opts...)
	switch {
	case errs.Is(err, errs.Cancelled):
		return nil, err
	case ctx.Err() != nil:
		return nil, errs.Wrap(errs.Cancelled, "digest.Score", ctx.Err())
	case err != nil:
		return nil, errs.Wrapf(errs.LLM, "digest.Score", err, "scoring failed after %d attempts", max1(attempts))
	}
	sortScored(scored)
	if len(scored) > max {
		scored = scored[:max]
	}
	return scored, nil
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// sortScored orders by score, keeping the fetch order on ties.
func sortScored(s []Scored) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].Score > s[j].Score })
}
