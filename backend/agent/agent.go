// Package agent assembles the chat agent from configuration: sessions, the
// turn runner with its provider factory and system prompt, and the tool box
// (drafts sandbox, knowledge base, papers, chat history). The desktop app
// and `jarvis-cli ask` build it the same way.
package agent

import (
	"context"
	"maps"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
	"github.com/jarvis-kb/jarvis/backend/memory"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// Agent is the assembled chat agent.
type Agent struct {
	Cfg       *config.Config
	Sessions  *chat.Sessions
	Runner    *chat.Runner
	Confirm   *chat.Confirmations
	Drafts    *drafts.Workspace
	Engine    *engine.Engine // nil when the knowledge base could not be opened
	EngineErr error          // why, shown to the user
	Prompts   prompts.Store
	Memory    *memory.Store // what the user asked Jarvis to remember
	// Provider builds a model client for a spec, with the paper-summary
	// prompt and local PDF conversion wired in.
	Provider func(spec string) (llm.Provider, error)
}

// Options adjust the assembly.
type Options struct {
	Getenv func(string) string
	// Review receives each draft-edit proposal for the human.
	Review drafts.ReviewChannel
	Arxiv  *digest.Arxiv // nil: the real arXiv API
	// Engine and Drafts reuse what an earlier agent opened (the window
	// rebuilds its agent when the vault changes; see reuse.go).
	Engine *engine.Engine
	Drafts *drafts.Workspace
}

// New builds the agent. The knowledge base opens with whatever models are
// installed (keyword search without them); a store that cannot be opened
// is not fatal either: the agent runs with the drafts tools and EngineErr
// says why.
func New(cfg *config.Config, o Options) (*Agent, error) {
	ws, err := o.workspace(cfg)
	if err != nil {
		return nil, err
	}
	// Every place a turn's text becomes durable — the session file, the
	// indexed history — passes through the same redaction as replies.
	redact := llm.Redactor(llm.Secrets(cfg, o.Getenv)).Redact
	a := &Agent{Cfg: cfg, Sessions: &chat.Sessions{Dir: cfg.SessionsDir(), Redact: redact}, Confirm: &chat.Confirmations{}, Drafts: ws,
		Prompts: prompts.Store{Dir: cfg.PromptsDir()}}
	// Every prompt is on disk from the first start, to edit in any editor.
	if err := a.Prompts.Seed(); err != nil {
		return nil, err
	}
	review := o.Review
	if review == nil {
		review = func(context.Context, *drafts.Proposal) error { return nil }
	}
	sandbox := &drafts.Agent{W: ws, Review: review}
	tools := chat.DraftTools(sandbox)
	a.Memory = &memory.Store{Path: cfg.MemoryFile(), Redact: redact}
	tools["remember"] = chat.RememberTool(a.Memory)
	provider := ProviderFactory(cfg, o.Getenv)
	a.Provider = provider
	var history *chat.HistoryIndexer
	var offline func(context.Context, *chat.Session, string, *chat.Ledger, string) (string, error)
	if a.Engine, a.EngineErr = o.engine(cfg); a.EngineErr == nil {
		eng := a.Engine
		history = &chat.HistoryIndexer{Store: eng.Store, Embed: eng.Embedder(), Redact: redact}
		a.Sessions.OnDelete = func(id string) error { return history.Forget(context.Background(), id) }
		k := &chat.KB{KB: *eng.Tools(), Refresh: eng.Refresher().Refresh, Confirm: a.Confirm}
		maps.Copy(tools, chat.KBTools(k))
		offline = k.OfflineAnswer // no model reachable: the best passages, cited
		sandbox.ReadSource = k.ReadSource
		arxiv := o.Arxiv
		if arxiv == nil {
			arxiv = digest.NewArxivAt(cfg.Digest.ArxivURL)
		}
		tools["add_document"] = chat.AddDocumentTool(k, &chat.Papers{Papers: kbtools.Papers{Arxiv: arxiv, Biorxiv: digest.NewBiorxivAt(cfg.Digest.BiorxivURL), Options: ingest.OptionsFrom(cfg)},
			Model: func(s *chat.Session) (ingest.Model, error) { return provider(s.ModelSpec()) }})
		if cfg.Sync.PDFWatchDir != "" {
			inbox := ingest.InboxFor(cfg, eng.Store, eng.Embedder(), ingest.OptionsFrom(cfg))
			tools["inbox_status"] = chat.InboxTool(inbox.Status)
		}
	} else {
		// Without the knowledge base there is nothing to copy from, and a
		// tool the model can call must work.
		delete(tools, "create_draft_from")
	}
	a.Runner = &chat.Runner{
		Sessions: a.Sessions,
		Provider: provider,
		Tools:    &chat.Toolbox{Tools: tools},
		System: func(s *chat.Session) (string, error) {
			text, err := a.Prompts.Load(prompts.System)
			if err != nil {
				return "", err
			}
			if cfg.Chat.ResponseStyle != "" {
				text += "\n\nResponse style: " + cfg.Chat.ResponseStyle
			}
			// Read fresh each turn, like the prompt: an edit in Settings
			// applies to the next answer.
			facts, err := a.Memory.List()
			if err != nil {
				return "", err
			}
			if block := memory.ForSession(facts, s.Private); block != "" {
				text += "\n\n" + block
			}
			return text, nil
		},
		Redact:       redact,
		MaxIter:      cfg.Chat.MaxIterations,
		AutoContinue: cfg.Chat.AutoContinue,
		CompactAfter: cfg.Chat.CompactAfterTokens,
		CompactKeep:  cfg.Chat.CompactKeepExchanges,
		History:      history,
		Offline:      offline,
		Confirm:      a.Confirm,
		// Read at each tool result: Settings may switch it while a window runs.
		AskBeforeSending: func() bool { return cfg.Ledger.AskBeforeSending },
	}
	return a, nil
}

// ProviderFactory builds model clients for specs the way every part of
// Jarvis needs them: the user's paper-summary prompt (read fresh) and local
// PDF conversion for providers that cannot read PDFs.
func ProviderFactory(cfg *config.Config, getenv func(string) string) func(spec string) (llm.Provider, error) {
	store := prompts.Store{Dir: cfg.PromptsDir()}
	return func(spec string) (llm.Provider, error) {
		book, err := ledger.Shared(cfg.LedgerDir(), cfg.Ledger.KeepDays)
		if err != nil {
			// Fail closed, and not as "no model": the model is there, but
			// nothing goes to it unrecorded.
			return nil, errs.WithHint(errs.Wrapf(errs.Privacy, "agent.provider", err, "nothing was sent: the record of what goes to models (the cloud ledger) cannot be written"),
				"make "+cfg.LedgerDir()+" a folder Jarvis can write to (see jarvis-cli doctor)")
		}
		return llm.MakeProvider(cfg, spec, llm.Options{Getenv: getenv, ConvertPDF: ingest.ConvertFile, Ledger: book,
			SummaryPrompt: func() (string, error) { return store.Load(prompts.PaperSummary) }})
	}
}

// Inbox is the PDF inbox over this agent's knowledge base, reading paper
// metadata with the configured provider when one can be built (as the
// tray's scans do).
func (a *Agent) Inbox() (*ingest.Inbox, error) {
	const op = "agent.Inbox"
	if a.Cfg.Sync.PDFWatchDir == "" {
		return nil, errs.WithHint(errs.New(errs.NotFound, op, "no PDF inbox is set up"), "choose a folder for sync.pdf_watch_dir in the setup panel or with jarvis-cli config set")
	}
	if a.Engine == nil {
		return nil, errs.Wrap(errs.NotFound, op, a.EngineErr)
	}
	opts := ingest.OptionsFrom(a.Cfg)
	if p, err := a.Provider(a.Cfg.Chat.Provider); err == nil {
		opts.Model = p
	}
	return ingest.InboxFor(a.Cfg, a.Engine.Store, a.Engine.Embedder(), opts), nil
}

// preloadFor is how long a preloaded local model stays in memory.
const preloadFor = "30m"

// Warmer returns the work that loads a local session's model into memory
// ahead of its first question, so the answer does not wait on a cold load;
// nil when there is nothing to warm (a cloud model, an unknown spec). The
// provider is made now, under the caller's settings lock; the returned
// function only talks to Ollama. A failure there only means the first
// answer is slower, so it is logged, not returned.
func (a *Agent) Warmer(spec string) func(ctx context.Context) {
	p, err := a.Provider(spec)
	if err != nil {
		return nil
	}
	ol, ok := p.(*llm.Ollama)
	if !ok {
		return nil
	}
	return func(ctx context.Context) {
		if err := ol.Preload(ctx, preloadFor); err != nil {
			logs.L().Info("ollama: preload failed", "model", ol.Model(), "err", err)
		}
	}
}

// PullModel downloads a local model through Ollama, reporting progress.
func (a *Agent) PullModel(ctx context.Context, name string, progress func(llm.PullProgress)) error {
	p, err := a.Provider("ollama:" + name)
	if err != nil {
		return err
	}
	ol, ok := p.(*llm.Ollama)
	if !ok {
		return errs.New(errs.Internal, "agent.PullModel", "ollama:%s is not a local model", name)
	}
	return ol.Pull(ctx, name, progress)
}

// Close releases the knowledge base.
func (a *Agent) Close() error {
	if a.Engine != nil {
		return a.Engine.Close()
	}
	return nil
}
