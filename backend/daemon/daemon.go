// Package daemon wires the background jobs to the real work: vault refresh,
// PDF inbox, the paper digest and draft retention. jarvis-cli sync and the
// desktop app's tray process both run the scheduler with these jobs, so the
// two cannot drift apart.
package daemon

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	gosync "sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/prompts"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/backend/zotero"
)

// InboxSettle is how long an inbox file must hold still before it is read.
const InboxSettle = 2 * time.Second

// Services holds what the jobs share. The knowledge base is opened on first
// use and kept; a failure to open it (models missing) fails that job run
// with the reason and is retried on the next one.
type Services struct {
	Cfg    *config.Config
	Getenv func(string) string
	Log    func(format string, args ...any)
	Settle time.Duration // inbox settle wait; 0 means InboxSettle
	// Indexed is told when a job stored chunks (their vectors are pending):
	// the Background's Kick, so the backfill embeds them.
	Indexed func()

	mu     gosync.Mutex
	eng    *engine.Engine
	shared bool // eng was opened by someone else (Share); Close leaves it open
	// zoteroSeen is the zotero.sqlite fingerprint of the last successful
	// Zotero sync.
	zoteroSeen string
}

// Share makes the services use an engine the caller opened and keeps open
// (the window's agent), so a process holds one in-memory index.
func (s *Services) Share(e *engine.Engine) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eng, s.shared = e, true
}

// Engine returns the shared knowledge base, opening it if needed.
func (s *Services) Engine() (*engine.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng != nil {
		return s.eng, nil
	}
	e, err := engine.Open(s.Cfg)
	if err != nil {
		return nil, err
	}
	s.eng = e
	return e, nil
}

// Close releases the knowledge base (not a shared one: its owner does).
func (s *Services) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng == nil || s.shared {
		s.eng = nil
		return nil
	}
	err := s.eng.Close()
	s.eng = nil
	return err
}

func (s *Services) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(format, args...)
	}
}

// ingestOptions are the configured ingest limits with model for metadata
// and captions.
func (s *Services) ingestOptions(model ingest.Model) ingest.Options {
	o := ingest.OptionsFrom(s.Cfg)
	o.Model = model
	inBackground(&o)
	return o
}

// inBackground makes o's OCR run at low priority: the tray's scans of the
// inbox and of Zotero yield to the window.
func inBackground(o *ingest.Options) {
	if o.OCR != nil {
		o.OCR.Background = true
	}
}

// Provider builds the configured chat provider (for digest scoring,
// metadata inference and captions).
func (s *Services) Provider() (llm.Provider, error) {
	return agent.ProviderFactory(s.Cfg, s.Getenv)(s.Cfg.Chat.Provider)
}

// RefreshVault syncs the vault.
func (s *Services) RefreshVault(ctx context.Context) error {
	e, err := s.Engine()
	if err != nil {
		return err
	}
	res, err := e.BackgroundRefresher().Refresh(ctx)
	for _, w := range res.Warnings {
		s.logf("vault_refresh: warning: %s", w)
	}
	if err == nil {
		s.logf("vault_refresh: %d added, %d updated, %d deleted, %d reclassified", res.Added, res.Updated, res.Deleted, res.Reclassified)
	}
	s.indexed()
	return err
}

func (s *Services) indexed() {
	if s.Indexed != nil {
		s.Indexed()
	}
}

// ScanInbox ingests new and changed PDFs from the watch folder.
func (s *Services) ScanInbox(ctx context.Context) error {
	e, err := s.Engine()
	if err != nil {
		return err
	}
	var model ingest.Model
	if p, err := s.Provider(); err == nil {
		model = p
		s.logf("pdf_scan: metadata inference with %s:%s", p.Name(), p.Model())
	} else {
		s.logf("pdf_scan: no provider for metadata inference: %v", err)
	}
	in := ingest.InboxFor(s.Cfg, e.Store, nil, s.ingestOptions(model)) // vectors come from the backfill
	in.Settle, in.Log = cmp.Or(s.Settle, InboxSettle), s.logf
	res, err := in.Scan(ctx)
	s.indexed()
	if err != nil {
		return err
	}
	s.logf("pdf_scan: %s", res)
	if res.Failed > 0 {
		return fmt.Errorf("%d inbox file(s) failed: %s", res.Failed, strings.Join(res.Errors, "; "))
	}
	return nil
}

// SyncZotero applies what changed in the Zotero library since the last
// sync; an unchanged zotero.sqlite (same size and time as at the last
// successful sync) costs one stat.
func (s *Services) SyncZotero(ctx context.Context) error {
	print, err := zotero.Stat(s.Cfg.Zotero.DataDir)
	if err != nil {
		return err
	}
	e, err := s.Engine()
	if err != nil {
		return err
	}
	// The sync reads the private collections from config.toml too (the
	// window or jarvis-cli may have changed them since this process
	// started): a changed list counts as a changed library.
	z, err := e.ZoteroSync()
	if err != nil || z == nil {
		return err
	}
	inBackground(&z.Opts)
	print += "\nprivate " + strings.Join(z.PrivateCollections, "\n")
	s.mu.Lock()
	same := print == s.zoteroSeen
	s.mu.Unlock()
	if same {
		return nil
	}
	res, err := z.Sync(ctx)
	for _, w := range res.Warnings {
		s.logf("zotero_sync: warning: %s", w)
	}
	if err != nil {
		return err
	}
	if res.Added+res.Updated+res.Deleted > 0 {
		s.logf("zotero_sync: %d items: %d added, %d updated, %d deleted", res.Items, res.Added, res.Updated, res.Deleted)
		s.indexed()
	}
	s.mu.Lock()
	s.zoteroSeen = print
	s.mu.Unlock()
	return nil
}

// PruneLedger drops the request bodies older than ledger.keep_days from
// the cloud ledger; the records stay.
func (s *Services) PruneLedger(ctx context.Context) error {
	book, err := ledger.Shared(s.Cfg.LedgerDir(), s.Cfg.Ledger.KeepDays)
	if err != nil {
		return err
	}
	n, err := book.Prune(ctx, s.Cfg.Ledger.KeepDays)
	if n > 0 {
		s.logf("ledger_prune: dropped %d request bodies older than %d days", n, s.Cfg.Ledger.KeepDays)
	}
	return err
}

// PruneImages removes PNG copies of WebP images that no document names
// (those older removals left; a removal now takes its copy with it). An
// hour's grace spares a copy an add is about to name.
func (s *Services) PruneImages(ctx context.Context) error {
	e, err := s.Engine()
	if err != nil {
		return err
	}
	n, err := ingest.PruneImageCopies(ctx, e.Store, s.Cfg.ImagesDir(), time.Hour)
	if n > 0 {
		s.logf("image_copies_prune: removed %d unused image copies", n)
	}
	return err
}

// PruneDrafts applies draft retention.
func (s *Services) PruneDrafts(context.Context) error {
	ws, err := drafts.Open(s.Cfg.Drafts)
	if err != nil {
		return err
	}
	removed, err := ws.Prune(s.Cfg.Drafts.RetentionDays)
	if len(removed) > 0 {
		s.logf("draft_gc: removed %s", strings.Join(removed, ", "))
	}
	return err
}

// DigestOptions let tests point the digest at fake services.
type DigestOptions struct {
	Arxiv   *digest.Arxiv
	Biorxiv *digest.Biorxiv
	LLM     digest.Completer
	// Vision captions the figures of papers indexed in full text, when
	// rag.figure_captions is on; with LLM nil it is the configured provider.
	Vision ingest.Model
	Out    io.Writer // progress lines; nil discards
}

// completer adapts an llm.Provider to the digest's one-prompt interface.
type completer struct{ p llm.Provider }

func (c completer) CompleteText(ctx context.Context, prompt string, maxTokens, contextLength int) (string, error) {
	return c.p.Complete(ctx, []llm.Message{llm.Text(llm.RoleUser, prompt)}, maxTokens, contextLength)
}

// RunDigest fetches, scores, writes and indexes one digest. When the
// knowledge base cannot be opened the digest file is still written. Only one
// digest runs per data dir at a time, across processes: a second is an
// errs.Conflict naming the first.
func (s *Services) RunDigest(ctx context.Context, o DigestOptions) (digest.Outcome, error) {
	if err := s.Cfg.ValidateDigest(); err != nil {
		return digest.Outcome{}, err
	}
	lock, err := LockDigest(s.Cfg)
	if err != nil {
		return digest.Outcome{}, err
	}
	defer lock.Release()
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	store := prompts.Store{Dir: s.Cfg.PromptsDir()}
	model, name, vision := o.LLM, s.Cfg.Chat.Provider, o.Vision
	if model == nil {
		p, err := s.Provider()
		if err != nil {
			return digest.Outcome{}, err
		}
		if ol, ok := p.(*llm.Ollama); ok {
			if err := ol.Health(ctx); err != nil {
				return digest.Outcome{}, err
			}
		}
		model, name, vision = completer{p}, p.Name()+":"+p.Model(), p
	}
	arxiv, biorxiv := o.Arxiv, o.Biorxiv
	if arxiv == nil {
		arxiv = digest.NewArxivAt(s.Cfg.Digest.ArxivURL)
	}
	if biorxiv == nil {
		biorxiv = digest.NewBiorxivAt(s.Cfg.Digest.BiorxivURL)
	}
	pl := &digest.Pipeline{
		Cfg: s.Cfg.Digest, Arxiv: arxiv, Biorxiv: biorxiv, LLM: model, ModelName: name,
		Prompt: func() (string, error) { return store.Load(prompts.DigestScoring) },
		Log:    func(f string, a ...any) { fmt.Fprintf(out, f+"\n", a...) },
	}
	if e, err := s.Engine(); err != nil {
		fmt.Fprintf(out, "warning: the digest file will be written but not indexed: %v\n", err)
	} else {
		pl.Index = &ingest.DigestIndexer{Store: e.Store, Opts: s.ingestOptions(vision)} // vectors follow in the backfill
	}
	fmt.Fprintf(out, "running the digest with %s\n", name)
	s.logf("digest: scoring with %s", name)
	defer s.indexed()
	return pl.Run(ctx)
}

// Work is the scheduler's job bodies.
func (s *Services) Work() jsync.Work {
	return jsync.Work{
		RefreshVault: s.RefreshVault,
		ScanInbox:    s.ScanInbox,
		RunDigest: func(ctx context.Context) error {
			res, err := s.RunDigest(ctx, DigestOptions{Out: logWriter{s.logf}})
			if err == nil {
				s.logf("digest: %s; %d full text, %d summary fallback, %d summaries, %d known", res.DigestPath, res.FullText, res.SummaryFallback, res.Summaries, res.Skipped)
			}
			return err
		},
		PruneDrafts: s.PruneDrafts,
		PruneLedger: s.PruneLedger,
		PruneImages: s.PruneImages,
		SyncZotero:  s.SyncZotero,
	}
}

// logWriter turns written lines into log calls.
type logWriter struct{ logf func(string, ...any) }

func (w logWriter) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l != "" {
			w.logf("%s", l)
		}
	}
	return len(b), nil
}
