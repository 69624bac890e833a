package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// Ask before sending. With it on, knowledge-base text a tool found for a
// cloud session waits for the user before it joins the transcript, which
// is what every later request of the session carries: the user sees each
// passage and sends it, withholds some, or cancels the turn. Text already
// in the transcript was approved when it entered it.

// Passage is one piece of knowledge-base text a tool result would send.
type Passage struct {
	Title  string `json:"title"`
	Source string `json:"source,omitempty"` // how it is cited; empty for a whole tool result
	Text   string `json:"text"`
	Bytes  int    `json:"bytes"`
}

// WithheldPassage stands where a passage the user withheld was.
const WithheldPassage = "[passage withheld by the user]"

// withheldNotice tells the model that text is missing on purpose.
const withheldNotice = "Note: the user withheld %d of the passages above from you; their text is not here. Do not guess what they said, and say in your answer that part of the material was withheld."

// reviewedTools are the tools whose results carry knowledge-base text or
// the user's own writing (a draft, often seeded from a note). Those that
// mark out passages (search_kb, get_document, read_file) are reviewed
// passage by passage, the others as one piece.
var reviewedTools = map[string]bool{
	"search_kb": true, "get_document": true, "read_file": true,
	"list_documents": true, "query_records": true, "timeline": true, "search_chat_history": true,
	"read_draft": true,
}

// Decision is the user's answer to a review: send (with the passages at
// the Withhold indexes replaced by WithheldPassage) or not at all.
type Decision struct {
	Send     bool  `json:"send"`
	Withhold []int `json:"withhold,omitempty"`
}

// offer notes the passages a tool result is made of, for the review.
func (l *Ledger) offer(ps ...Passage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.offered = append(l.offered, ps...)
}

func (l *Ledger) offeredCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.offered)
}

func (l *Ledger) offeredSince(n int) []Passage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Passage(nil), l.offered[n:]...)
}

// Asks reports whether the session asks before sending: its own switch
// when set, otherwise the default (ledger.ask_before_sending).
func (s *Session) Asks(def bool) bool {
	if s.AskBeforeSending != nil {
		return *s.AskBeforeSending
	}
	return def
}

// SetAsks switches asking before sending for this session.
func (s *Session) SetAsks(on bool) { s.AskBeforeSending = &on }

// Asks reports whether a turn of the session stops for the user before
// knowledge-base text goes to its model: only cloud models (a local one
// sends nothing off the machine), and never for an MCP client's session,
// where nobody is at this end to answer.
func (r *Runner) Asks(s *Session) bool {
	def := r.AskBeforeSending != nil && r.AskBeforeSending()
	return r.Confirm != nil && !s.PublicOnly && llm.IsCloud(s.ModelSpec()) && s.Asks(def)
}

// review shows a tool result's passages to the user and returns the
// result as the user allowed it: whole, with passages replaced by
// WithheldPassage and a note for the model, or an errs.Cancelled error
// that ends the turn with nothing sent.
func (r *Runner) review(ctx context.Context, t *turn, s *Session, tool string, out llm.ToolOutcome, passages []Passage) (llm.ToolOutcome, error) {
	if len(passages) == 0 {
		if strings.TrimSpace(out.Content) == "" {
			return out, nil
		}
		passages = []Passage{{Title: "the result of " + tool, Text: out.Content}}
	}
	shown := make([]Passage, len(passages))
	total := 0
	docs := map[string]bool{}
	for i, p := range passages {
		p.Text = r.redact(p.Text) // shown as it would be sent
		p.Bytes = len(p.Text)
		total += p.Bytes
		docs[p.Source] = true
		shown[i] = p
	}
	text := fmt.Sprintf("Send %s (%s) to %s?", countPassages(len(shown), len(docs)), byteSize(total), s.ModelSpec())
	t.send(EventStatus, "waiting for you to review what would be sent", nil)
	d, err := r.Confirm.Review(ctx, text, map[string]any{"passages": shown, "bytes": total, "model": s.ModelSpec(), "tool": tool})
	if err != nil {
		return llm.ToolOutcome{}, err
	}
	if !d.Send {
		return llm.ToolOutcome{}, errs.New(errs.Cancelled, "chat.review", "you cancelled sending; nothing of it went to the model")
	}
	withheld := 0
	for _, i := range dedupeInts(d.Withhold) {
		if i < 0 || i >= len(passages) {
			return llm.ToolOutcome{}, errs.New(errs.Invalid, "chat.review", "there is no passage %d to withhold", i+1)
		}
		withheld++
		p := passages[i]
		if p.Source == "" || p.Text == "" || !strings.Contains(out.Content, p.Text) {
			// The whole result, or a passage not found as it was offered:
			// nothing of the result goes rather than too much.
			out.Content = WithheldPassage
			withheld = len(passages)
			break
		}
		out.Content = strings.Replace(out.Content, p.Text, WithheldPassage+"\n", 1)
	}
	if withheld > 0 {
		out.Content += "\n" + fmt.Sprintf(withheldNotice, withheld)
		t.send(EventStatus, fmt.Sprintf("withheld %d of %d passages", withheld, len(passages)), nil)
	}
	return out, nil
}

// A tool that makes model requests of its own (add_document: a paper's
// summary, its metadata, figure captions) goes to the session's model
// too; in a session that asks before sending, each such request's text is
// shown first, and kept back unless the user sends it whole.

type modelReviewKey struct{}

// modelReview shows what a tool's own model request would send (what it
// is, its text) and returns nil to send it or an errs.Cancelled error.
type modelReview func(ctx context.Context, what, text string) error

func withModelReview(ctx context.Context, rv modelReview) context.Context {
	return context.WithValue(ctx, modelReviewKey{}, rv)
}

func modelReviewFrom(ctx context.Context) modelReview {
	rv, _ := ctx.Value(modelReviewKey{}).(modelReview)
	return rv
}

func (r *Runner) reviewModelRequest(t *turn, s *Session, tool string) modelReview {
	return func(ctx context.Context, what, text string) error {
		p := Passage{Title: what, Text: r.redact(text)} // shown as it would be sent
		p.Bytes = len(p.Text)
		t.send(EventStatus, "waiting for you to review what would be sent", nil)
		d, err := r.Confirm.Review(ctx, fmt.Sprintf("Send %s (%s) to %s?", what, byteSize(p.Bytes), s.ModelSpec()),
			map[string]any{"passages": []Passage{p}, "bytes": p.Bytes, "model": s.ModelSpec(), "tool": tool})
		if err != nil {
			return err
		}
		if !d.Send || len(d.Withhold) > 0 { // one piece: withholding it is not sending it
			return errs.New(errs.Cancelled, "chat.review", "you kept %s from the model; nothing of it was sent", what)
		}
		return nil
	}
}

// reviewedModel puts a review before each of a model's requests.
type reviewedModel struct {
	ingest.Model
	review modelReview
}

func (m reviewedModel) Complete(ctx context.Context, messages []llm.Message, maxTokens, contextLength int) (string, error) {
	var text []string
	for _, msg := range messages {
		for _, b := range msg.Content {
			if b.Type == llm.BlockText {
				text = append(text, b.Text)
			}
		}
	}
	if err := m.review(ctx, "a request about the paper (its metadata)", strings.Join(text, "\n\n")); err != nil {
		return "", err
	}
	return m.Model.Complete(ctx, messages, maxTokens, contextLength)
}

func (m reviewedModel) Summarize(ctx context.Context, title, text, pdfPath string, maxTokens int) (string, error) {
	if err := m.review(ctx, fmt.Sprintf("the text of %q, to summarise", title), text); err != nil {
		return "", err
	}
	return m.Model.Summarize(ctx, title, text, pdfPath, maxTokens)
}

func (m reviewedModel) DescribeImage(ctx context.Context, image []byte, about string) (string, error) {
	if err := m.review(ctx, fmt.Sprintf("a figure of %q, to caption", about), fmt.Sprintf("(an image of %s)", byteSize(len(image)))); err != nil {
		return "", err
	}
	return m.Model.DescribeImage(ctx, image, about)
}

func countPassages(n, docs int) string {
	p := "passages"
	if n == 1 {
		p = "passage"
	}
	d := "documents"
	if docs == 1 {
		d = "document"
	}
	return fmt.Sprintf("%d %s from %d %s", n, p, docs, d)
}

func byteSize(n int) string {
	if n >= 1024 {
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%d bytes", n)
}

func dedupeInts(xs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
