package kbtools

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// MoveFile records that a local document's file moved (no re-embedding);
// it returns the chunks updated.
func (k *KB) MoveFile(ctx context.Context, c Caller, source, newPath string) (int, error) {
	const op = "update_file_path"
	source, newPath = strings.TrimSpace(source), strings.TrimSpace(newPath)
	if !strings.HasPrefix(source, "file://") {
		return 0, errs.WithHint(errs.New(errs.Invalid, op, "only local documents (file:// sources) have a path"), "vault notes follow the vault; run index_vault after moving them")
	}
	if !filepath.IsAbs(newPath) {
		return 0, errs.New(errs.Invalid, op, "new_path must be absolute")
	}
	docs, err := k.Store.List(ctx, c.Scope(kb.Filter{Source: source}), 1)
	if err != nil {
		return 0, err
	}
	if len(docs) == 0 {
		return 0, k.notFound(ctx, c, kb.Filter{Source: source}, errs.WithHint(errs.New(errs.NotFound, op, "no document with source %q", source), "use list_documents to find the exact source"))
	}
	c.saw(docs[0].Visibility)
	noFile := errs.WithHint(errs.New(errs.NotFound, op, "no file at %s", newPath), "check the path; nothing was changed")
	fields := map[string]any{"file_path": newPath, "source": "file://" + filepath.ToSlash(newPath)}
	// Whether a file exists in a private vault folder is private, and a
	// document that now lives there is private too: its public entry must
	// not name a private file.
	if vault.InPrivateFolder(k.VaultRoot, newPath, k.PrivateDirs) {
		if c.Cloud {
			return 0, noFile
		}
		c.saw(kb.Private)
		if docs[0].DocType == kb.DocPaper || docs[0].DocType == kb.DocDigest {
			return 0, errs.New(errs.Invalid, op, "%s is in a private vault folder, and papers are always public", filepath.Base(newPath))
		}
		fields["visibility"] = kb.Private
	}
	if st, err := os.Stat(newPath); err != nil || !st.Mode().IsRegular() {
		return 0, noFile
	}
	return k.Store.UpdateFields(ctx, c.Scope(kb.Filter{Source: source}), fields)
}

// PaperMeta is a correction of a paper's identifying fields; empty fields
// stay as they are.
type PaperMeta struct {
	Source, Title, Authors, DOI string
}

// UpdatePaperMeta corrects a paper's title, authors or DOI (no
// re-embedding); it returns the chunks updated.
func (k *KB) UpdatePaperMeta(ctx context.Context, c Caller, m PaperMeta) (int, error) {
	const op = "update_document_metadata"
	source := strings.TrimSpace(m.Source)
	if m.Title == "" && m.Authors == "" && m.DOI == "" {
		return 0, errs.New(errs.Invalid, op, "give at least one of title, authors, doi")
	}
	paper := kb.Filter{Source: source, DocTypes: []string{kb.DocPaper}}
	docs, err := k.Store.List(ctx, c.Scope(paper), 1)
	if err != nil {
		return 0, err
	}
	if len(docs) == 0 {
		return 0, k.notFound(ctx, c, paper, errs.WithHint(errs.New(errs.NotFound, op, "no paper with source %q", source), "use list_documents kind=papers to find the exact source"))
	}
	c.saw(docs[0].Visibility)
	if err := c.NoWriteDown(op, docs[0].Visibility); err != nil {
		return 0, err
	}
	return k.Store.SetPaperMeta(ctx, source, m.Title, m.Authors, m.DOI)
}
