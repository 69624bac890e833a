package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/ops"
)

// OpEvent is the event name of operation progress.
const OpEvent = "op"

// Add adds a local PDF, Markdown or text file as an operation and returns
// its id; progress arrives as "op" events. A PDF already stored under the
// same source is replaced.
func (l *Library) Add(path string, fullText bool) (string, error) {
	if l.ag.Engine == nil {
		_, err := l.store()
		return "", err
	}
	path = strings.TrimSpace(path)
	if !filepath.IsAbs(path) {
		return "", errs.WithHint(errs.New(errs.Invalid, "library.Add", "%q is not an absolute path", path), "paste the full path of the file")
	}
	mode := ingest.Summary
	if fullText {
		mode = ingest.FullText
	}
	return l.ops.Start("add", filepath.Base(path), func(ctx context.Context, report ops.Report) (string, error) {
		var model ingest.Model
		if p, err := l.ag.Provider(l.ag.Cfg.Chat.Provider); err == nil {
			model = p
		} else if mode == ingest.Summary {
			return "", errs.WithHint(err, "add it as full text, or configure a model")
		}
		step := 0
		res, err := l.ag.Engine.Adder(model).Add(ctx, ingest.AddRequest{Path: path, Paper: ingest.Paper{Mode: mode},
			Report: func(stage string) { step++; report(stage, step, 3) }})
		if err != nil {
			return "", err
		}
		msg := res.Message
		if len(res.Warnings) > 0 {
			msg += fmt.Sprintf(" (%d warning(s): %s)", len(res.Warnings), strings.Join(res.Warnings, "; "))
		}
		return msg, nil
	}), nil
}

// SyncVault runs an incremental vault sync as an operation.
func (l *Library) SyncVault() (string, error) {
	if l.ag.Engine == nil {
		_, err := l.store()
		return "", err
	}
	return l.ops.Start("vault", "Vault sync", func(ctx context.Context, report ops.Report) (string, error) {
		r := l.ag.Engine.Refresher()
		r.Progress = func(done, total int) { report("reading notes", done, total) }
		res, err := r.Refresh(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d added, %d updated, %d deleted, %d warnings", res.Added, res.Updated, res.Deleted, len(res.Warnings)), nil
	}), nil
}

// CancelOp stops a running operation.
func (l *Library) CancelOp(id string) bool { return l.ops.Cancel(id) }

// Ops lists recent operations (for a reopened window to resync).
func (l *Library) Ops() []ops.Op { return l.ops.List() }

// RetryOp runs a failed operation again (when its failure was transient).
func (l *Library) RetryOp(id string) (string, error) { return l.ops.Retry(id) }
