package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/pdf"
)

// OpEvent is the event name of operation progress.
const OpEvent = "op"

// Add adds a local PDF, image, Markdown or text file as an operation and
// returns its id; progress arrives as "op" events (page by page while OCR
// reads a scan). A PDF already stored under the same source is replaced.
// password opens an encrypted PDF (the window asks for it when an add
// fails with code "locked"); it is used for this read and kept nowhere.
func (l *Library) Add(path string, fullText, private bool, password string) (string, error) {
	ag := l.core.agent()
	if ag.Engine == nil {
		return "", l.core.noStore("library.Add")
	}
	path = strings.TrimSpace(path)
	if !filepath.IsAbs(path) {
		return "", errs.WithHint(errs.New(errs.Invalid, "library.Add", "%q is not an absolute path", path), "paste the full path of the file")
	}
	mode := ingest.Summary
	if fullText || ingest.IsImage(path) {
		mode = ingest.FullText // an image's few words are kept whole
	}
	return l.core.ops.Start("add", filepath.Base(path), func(ctx context.Context, report ops.Report) (string, error) {
		var model ingest.Model
		if p, err := ag.Provider(ag.Cfg.Chat.Provider); err == nil {
			model = p
		} else if mode == ingest.Summary {
			return "", errs.WithHint(err, "add it as full text, or configure a model")
		}
		// Progress is the stages done (of 3) until pages are recognised,
		// then page k of n; the stages after the pages carry no count, so
		// the bar never runs back from a full page count to 2 of 3.
		stages, paged := 0, false
		// A file that resolves into a private vault folder is private
		// whatever is asked; private marks a note from elsewhere private too.
		adder := ag.Engine.Adder(model)
		adder.Opts.Progress = func(p pdf.Progress) {
			if p.OCR {
				paged = true
				report(fmt.Sprintf("recognising page %d of %d (OCR)", p.Page, p.Pages), p.Page, p.Pages)
			}
		}
		res, err := adder.Add(ctx, ingest.AddRequest{Path: path, Private: private, Paper: ingest.Paper{Mode: mode, Password: password},
			Report: func(stage string) {
				if paged {
					report(stage, 0, 0)
				} else {
					report(stage, stages, 3)
				}
				stages++
			}})
		if err != nil {
			return "", err
		}
		msg := res.Message
		if len(res.Warnings) > 0 {
			msg += fmt.Sprintf(" (%d warning(s): %s)", len(res.Warnings), strings.Join(res.Warnings, "; "))
		}
		l.core.bg.kick() // embed what was stored without vectors
		return msg, nil
	}), nil
}

// SyncVault runs an incremental vault sync as an operation.
func (l *Library) SyncVault() (string, error) {
	if l.core.agent().Engine == nil {
		return "", l.core.noStore("library.SyncVault")
	}
	return l.core.refreshVault("Vault sync", nil), nil
}

// CancelOp stops a running operation.
func (l *Library) CancelOp(id string) bool { return l.core.ops.Cancel(id) }

// Ops lists recent operations (for a reopened window to resync).
func (l *Library) Ops() []ops.Op { return l.core.ops.List() }

// RetryOp runs a failed operation again (when its failure was transient).
func (l *Library) RetryOp(id string) (string, error) { return l.core.ops.Retry(id) }
