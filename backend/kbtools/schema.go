package kbtools

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// Schema counts chunks by metadata key, or, given a key, by that key's
// values, so a typo such as "stauts" shows up as its own key. The counts
// span every chunk, private ones included, so a cloud caller is refused
// rather than told a private key or value exists.
func (k *KB) Schema(ctx context.Context, c Caller, key string) (map[string]int, error) {
	const op = "kb_schema"
	if c.Cloud {
		return nil, errs.WithHint(errs.New(errs.Privacy, op, "metadata counts span private notes, so only a local caller may read them"),
			"use kb_stats, which counts public documents only")
	}
	var counts map[string]int
	var err error
	if key != "" {
		counts, err = k.Store.ValueCounts(ctx, key)
	} else {
		counts, err = k.Store.KeyCounts(ctx)
		// A field's ISO companion is Jarvis's, not one the notes have:
		// the field itself is listed, with its values as written.
		for key := range counts {
			if vault.IsDateField(key) {
				delete(counts, key)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if len(counts) > 0 {
		// The counts may come from private chunks: treat them as private.
		c.saw(kb.Private)
	}
	return counts, nil
}
