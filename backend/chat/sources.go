package chat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
)

// ReadSource is create_draft_from's source reader: a vault note (its
// Markdown as it is on disk), a paper, a digest entry, a past conversation
// or a standalone note, named as search results cite it. A cloud caller is
// answered about a private source exactly as about a missing one; the
// result says whether the source was private, so the draft inherits that.
func (k *KB) ReadSource(ctx context.Context, source string, c drafts.Caller) (title, text string, private bool, err error) {
	const op = "create_draft_from"
	source = strings.TrimSpace(source)
	if source == "" {
		return "", "", false, errs.New(errs.Invalid, op, "source is empty")
	}
	kc := kbtools.Caller{Cloud: c.Cloud, Who: "drafts", Ledger: LedgerFrom(ctx)}
	chunks, err := k.FindDocument(ctx, kc, op, source)
	if errs.Is(err, errs.NotFound) && strings.EqualFold(filepath.Ext(source), ".md") && !strings.Contains(source, "://") {
		// A vault note not indexed (yet): read it where it lies.
		n, nerr := k.ReadNote(ctx, kc, op, source)
		if nerr == nil || !errs.Is(nerr, errs.NotFound) {
			return strings.TrimSuffix(filepath.Base(source), filepath.Ext(source)), n.Text, n.Visibility == kb.Private, nerr
		}
	}
	if err != nil {
		return "", "", false, err
	}
	m := chunks[0].Meta
	for _, ch := range chunks {
		private = private || ch.Meta.Visibility == kb.Private
	}
	title = m.Title
	if title == "" {
		title = source
	}
	switch {
	case m.Source == kb.SourceVault && m.FilePath != "":
		if n, err := k.ReadNote(ctx, kc, op, m.FilePath); err == nil {
			return title, n.Text, private || n.Visibility == kb.Private, nil
		}
	case m.DocType == kb.DocNote && strings.HasPrefix(m.Source, "file://"):
		// A standalone note the user added: its file, while it is there.
		if st, err := os.Stat(m.FilePath); err == nil && st.Mode().IsRegular() && st.Size() <= kbtools.MaxReadFile {
			if b, err := os.ReadFile(m.FilePath); err == nil {
				return title, string(b), private, nil
			}
		}
	}
	return title, joinChunks(chunks), private, nil
}

// joinChunks rebuilds a document's text from its chunks: a heading where
// the section changes, and the overlap consecutive chunks of one section
// share written once (the pieces of one passage cut for size are joined
// back into it).
func joinChunks(chunks []kb.Chunk) string {
	var b strings.Builder
	section, prev := "", ""
	for _, c := range chunks {
		if s := c.Meta.Section; s != section {
			section, prev = s, ""
			if s != "" {
				b.WriteString("\n\n## " + s)
			}
		}
		text, sep := c.Content, "\n\n"
		if n := overlap(prev, text); n > 0 {
			text, sep = text[n:], ""
		}
		prev = c.Content
		if text = strings.TrimRightFunc(text, unicode.IsSpace); strings.TrimSpace(text) != "" {
			b.WriteString(sep + text)
		}
	}
	return strings.TrimSpace(b.String()) + "\n"
}

// minOverlap keeps a common word ("the") from being taken for an overlap.
const minOverlap = 16

// overlap is the length of the longest start of next that ends prev (at
// least minOverlap bytes), or 0.
func overlap(prev, next string) int {
	for i := max(len(prev)-len(next), 0); i <= len(prev)-minOverlap; i++ {
		if strings.HasPrefix(next, prev[i:]) {
			return len(prev) - i
		}
	}
	return 0
}
