package kbtools

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// KB is the knowledge base the operations run over.
type KB struct {
	Searcher    *kb.Searcher
	Store       *kb.Store
	VaultRoot   string
	PrivateDirs []string
	NResults    int    // results of a search that asks for none
	ImagesDir   string // the viewer's PNG copies of WebP images (config.ImagesDir)
}

// notFound returns an operation's not-found error. When a cloud caller
// asked for something that exists only privately, the ledger (the user,
// never the caller) is told that it was kept back; the error is the same.
func (k *KB) notFound(ctx context.Context, c Caller, f kb.Filter, err error) error {
	if !c.Cloud {
		return err
	}
	f.Visibility = []string{kb.Private}
	docs, lerr := k.Store.List(ctx, f, 1)
	if lerr != nil {
		return lerr
	}
	c.withheld(len(docs))
	return err
}
