package agent

import (
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/engine"
)

// workspace is the drafts sandbox: the one given (its pending proposals
// stay under review), else a new one.
func (o Options) workspace(cfg *config.Config) (*drafts.Workspace, error) {
	if o.Drafts != nil {
		return o.Drafts, nil
	}
	return drafts.Open(cfg.Drafts)
}

// engine is the knowledge base: the one given (one in-memory index per
// process; the caller keeps closing it), else a newly opened one.
func (o Options) engine(cfg *config.Config) (*engine.Engine, error) {
	if o.Engine != nil {
		return o.Engine, nil
	}
	return engine.Open(cfg)
}
