package kb

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/analysis"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Languages counts up to n chunks by their main language
// (analysis.Language), sampled across the whole store — what the setup
// panel needs to say whether the English embedding model fits this
// vault. Past chats are left out: they echo the notes.
func (s *Store) Languages(ctx context.Context, n int) (map[string]int, error) {
	// A multiplicative hash of the id spreads the sample over old and new
	// chunks alike, the same sample each time. The ids are chosen first, so
	// only the sampled chunks' text is read, not every chunk's on each
	// panel refresh.
	rows, err := s.db.QueryContext(ctx, `SELECT content FROM chunks WHERE id IN
		(SELECT id FROM chunks WHERE doc_type != ? ORDER BY (id * 2654435761) % 4294967296 LIMIT ?)`, DocChat, n)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "kb.Languages", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return nil, errs.Wrap(errs.Internal, "kb.Languages", err)
		}
		out[analysis.Language(text)]++
	}
	return out, errs.Wrap(errs.Internal, "kb.Languages", rows.Err())
}
