package kbcmd

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/analysis"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// The commands in this file can use the models: they open the engine, which
// loads whatever is installed and runs by keyword without.

// withEngine runs fn with the knowledge base and its installed models open.
func withEngine(load func() (*config.Config, error), fn func(ctx context.Context, e *engine.Engine, args []string) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		cfg, err := load()
		if err != nil {
			return err
		}
		e, err := engine.Open(cfg)
		if err != nil {
			return err
		}
		defer e.Close()
		return fn(c.Context(), e, args)
	}
}

// AddOptions are `kb add`'s flags.
type AddOptions struct {
	Private             bool
	FullText, Figures   bool
	Title, Authors, DOI string
	Yes                 bool
	Model               ingest.Model // tests inject one; nil builds the configured provider
	// Password opens encrypted PDFs; without it a terminal is asked. It is
	// used for the read and kept nowhere.
	Password string
}

func addEmbeddingCommands(cmd *cobra.Command, io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) {
	ao := &AddOptions{}
	add := &cobra.Command{
		Use:   "add FILE|URL...",
		Short: "Add PDFs, images and arXiv/DOI papers (as public documents) or Markdown/text files (as notes)",
		Long: "A PDF is added as a paper: its highlights and notes first, then an LLM summary (default)\n" +
			"or the full text (--full-text), optionally figure captions (--figures). An arXiv link or id\n" +
			"(abs or pdf, with or without a version) or a DOI (arXiv's or bioRxiv's, bare or as a doi.org\n" +
			"link) is fetched and added the same way, filed under its abs/doi.org link; a bioRxiv paper has\n" +
			"no PDF to fetch and is stored as a summary of its abstract. Adding a paper that is already\n" +
			"stored asks first and then replaces it, so a summary can be re-added with --full-text --figures. A Markdown file\n" +
			"is classified by the file it resolves to (links and .. followed): inside the vault it keeps\n" +
			"the vault's privacy rules, so a link to a note in a private folder adds it as private; one\n" +
			"elsewhere is public unless --private. Re-adding a file replaces its entry. Scanned pages, and\n" +
			"images (PNG, JPEG, TIFF, WebP: screenshots, photos of a whiteboard), are read by OCR when\n" +
			"Tesseract is installed ([pdf] ocr, ocr_languages); an image is stored in full.",
		Args: cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			failed := 0
			var first error
			in := bufio.NewReader(io.In)
			for _, arg := range args {
				msg, err := addOne(ctx, io, in, e, arg, ao, getenv)
				if err != nil {
					failed++
					first = cmp.Or(first, err)
					fmt.Fprintf(io.Err, "%s: %v\n", arg, err) // the error carries its hint
					continue
				}
				fmt.Fprintf(io.Out, "%s: %s\n", arg, msg)
			}
			if failed > 0 {
				// The first failure's class sets the exit status, as it would
				// from any other command that met the same file.
				return errs.New(errs.CodeOf(first), "kb add", "%d of %d files were not added", failed, len(args))
			}
			return nil
		}),
	}
	add.Flags().BoolVar(&ao.Private, "private", false, "mark the notes private (refused for PDFs, which are always public, and for notes in a public vault folder)")
	add.Flags().BoolVar(&ao.FullText, "full-text", false, "PDFs: store every chunk of the text instead of a summary")
	add.Flags().BoolVar(&ao.Figures, "figures", false, "PDFs: caption embedded figures with the vision model")
	add.Flags().StringVar(&ao.Title, "title", "", "PDFs: title (skips inference)")
	add.Flags().StringVar(&ao.Authors, "authors", "", "PDFs: authors (skips inference)")
	add.Flags().StringVar(&ao.DOI, "doi", "", "PDFs: DOI")
	add.Flags().BoolVarP(&ao.Yes, "yes", "y", false, "add duplicates without asking")
	add.Flags().StringVar(&ao.Password, "password", "", "PDFs: the password of an encrypted file (asked on a terminal when missing; never stored)")
	cmd.AddCommand(add)

	var n int
	var docType string
	var where []string
	var privateOK, verbose bool
	search := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the knowledge base: keyword (BM25), plus dense and rerank when the models are installed",
		Long: "Ranks chunks by keyword (stemmed BM25) and, when an embedding model is installed, by vector\n" +
			"similarity too (fused by reciprocal rank), then reranks with the cross-encoder when installed.\n" +
			"The mode that answered is printed on stderr.",
		Args: cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			f, err := whereFilter("kb search", where)
			if err != nil {
				return err
			}
			if docType != "" {
				f.DocTypes = strings.Split(docType, ",")
			}
			start := time.Now()
			res, err := e.Tools().Search(ctx, person(privateOK), kbtools.SearchArgs{Query: strings.Join(args, " "), N: n, Filter: f})
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Err, "search mode: %s\n", res.Mode)
			if verbose {
				printModels(ctx, io, e)
				fmt.Fprintf(io.Err, "searched %d chunks in %s\n", res.Mode.Pool, time.Since(start).Round(time.Microsecond))
			}
			if len(res.Hits) == 0 {
				fmt.Fprintln(io.Err, "no matches")
				return nil
			}
			marks := analysis.NewHighlighter(strings.Join(args, " "))
			for i, h := range res.Hits {
				printHit(io, i+1, h, marks)
			}
			return nil
		}),
	}
	search.Flags().IntVarP(&n, "n", "n", 0, "number of results (default rag.n_results)")
	search.Flags().StringVar(&docType, "type", "", "doc types, comma-separated (paper,note,chat,digest)")
	search.Flags().StringArrayVar(&where, "where", nil, whereHelp)
	search.Flags().BoolVar(&privateOK, "private", true, "include private notes (this is a local search; nothing leaves the machine)")
	search.Flags().BoolVarP(&verbose, "verbose", "v", false, "also print the models, the inference backend and the timing (stderr)")
	cmd.AddCommand(search)

	var tlLimit int
	var tlPrivate bool
	timeline := &cobra.Command{
		Use:     "timeline ENTITY",
		Short:   "Everything about a person, lab, project or journal in date order: its records, then what names it",
		Example: "  jarvis-cli kb timeline Tanaka",
		Args:    cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			items, err := e.Tools().Timeline(ctx, person(tlPrivate), strings.Join(args, " "), tlLimit)
			if err != nil {
				return err
			}
			for _, it := range items {
				how := "names it"
				if it.Record {
					how = "record: " + kbtools.SummaryIdentity(it.Doc)
				}
				fmt.Fprintf(io.Out, "%-10s  %s  %s — %s\n", cmp.Or(it.Date, "(no date)"), it.Citation.Source, cmp.Or(it.Doc.Title, it.Doc.Key), how)
			}
			fmt.Fprintf(io.Err, "%d items\n", len(items))
			return nil
		}),
	}
	timeline.Flags().IntVarP(&tlLimit, "n", "n", 50, "at most this many items")
	timeline.Flags().BoolVar(&tlPrivate, "private", true, "include private notes (a local listing; nothing leaves the machine)")
	cmd.AddCommand(timeline)

	cmd.AddCommand(&cobra.Command{
		Use:   "embed",
		Short: "Embed every chunk still waiting for a vector (resumable; search keeps working meanwhile)",
		Long: "Chunks are stored at once and found by keyword; this fills in their vectors with the configured\n" +
			"embedding model, one committed batch at a time. Stop it at any point: the next run (or the tray)\n" +
			"continues where it stopped. When the configured model differs from the one the store was built\n" +
			"with, this is a model switch: the old vectors serve until the last chunk is done, then the new\n" +
			"model takes over in one step.",
		Args: cobra.NoArgs,
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, _ []string) error {
			return embedPending(ctx, io, e)
		}),
	})

	var forceReindex bool
	reindex := &cobra.Command{
		Use:   "reindex",
		Short: "Re-embed with the configured model (a model switch; search keeps serving meanwhile)",
		Long: "Same as `kb embed`: switches the store to the configured embedding model in the background of\n" +
			"search. --force also drops the current model's vectors first and re-embeds everything with it.",
		Args: cobra.NoArgs,
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, _ []string) error {
			if forceReindex {
				emb := e.Embedder()
				if emb == nil {
					return noModel(ctx, e)
				}
				if err := e.Store.ForgetVectors(ctx, emb.Info().ID); err != nil {
					return err
				}
			}
			return embedPending(ctx, io, e)
		}),
	}
	reindex.Flags().BoolVar(&forceReindex, "force", false, "drop the configured model's vectors and re-embed every chunk")
	cmd.AddCommand(reindex)

	cmd.AddCommand(&cobra.Command{
		Use:   "add-digest FILE...",
		Short: "Import digest Markdown files: the digest as a document, papers scored 8+ as summaries",
		Args:  cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			idx := &ingest.DigestIndexer{Store: e.Store, Embed: e.Embedder(), Opts: ingest.OptionsFrom(e.Cfg)}
			for _, path := range args {
				data, err := os.ReadFile(path)
				if err != nil {
					return errs.Wrap(errs.NotFound, "kb add-digest", err)
				}
				out, err := idx.ImportDigest(ctx, path, string(data))
				if err != nil {
					return err
				}
				fmt.Fprintf(io.Out, "%s: %d summaries added, %d already stored, %d below 8 (searchable through the digest)\n",
					path, out.Summaries, out.Skipped, out.Low)
				if out.Updated > 0 {
					fmt.Fprintf(io.Out, "%s: %d of the summaries replace an older version of the same preprint\n", path, out.Updated)
				}
			}
			return nil
		}),
	})

	var force, noEmbed bool
	indexVault := &cobra.Command{
		Use:   "index-vault",
		Short: "Sync the Obsidian vault into the knowledge base (incremental; --force rebuilds)",
		Long: "Adds new notes, re-indexes changed ones and drops deleted ones; notes are searchable by keyword\n" +
			"as soon as they are stored, then their vectors are embedded (when a model is installed; --no-embed\n" +
			"leaves that to `kb embed` or the tray). Notes added with `kb add` from outside the vault are left\n" +
			"alone. --force clears every vault note first.",
		Args: cobra.NoArgs,
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, _ []string) error {
			if force {
				n, err := e.Store.DeleteWhere(ctx, kb.Filter{Source: kb.SourceVault})
				if err != nil {
					return errs.WithHint(errs.Wrap(errs.RAG, "kb index-vault", err), "the old vault index could not be cleared; nothing was rebuilt")
				}
				fmt.Fprintf(io.Err, "cleared %d note chunks\n", n)
			}
			r := e.Refresher()
			r.Progress = func(done, total int) { fmt.Fprintf(io.Err, "\rnotes %d/%d", done, total) }
			res, err := r.Refresh(ctx)
			endProgress(io.Err, res.Warnings)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "added %d, updated %d, deleted %d, reclassified %d\n", res.Added, res.Updated, res.Deleted, res.Reclassified)
			if res.Withdrawn > 0 {
				fmt.Fprintf(io.Out, "removed %d public copies of files that are private now\n", res.Withdrawn)
			}
			if err := e.Store.WarmIndex(ctx); err != nil { // leaves the snapshot a cold `kb search` starts from
				return err
			}
			if noEmbed || e.Embedder() == nil {
				st, err := e.Status(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintf(io.Err, "search mode: %s\n", st.Mode())
				return nil
			}
			return embedPending(ctx, io, e)
		}),
	}
	indexVault.Flags().BoolVar(&force, "force", false, "clear every vault note and rebuild from scratch")
	indexVault.Flags().BoolVar(&noEmbed, "no-embed", false, "store the notes (keyword search) and leave the vectors to kb embed or the tray")
	cmd.AddCommand(indexVault)
	cmd.AddCommand(newIndexZoteroCmd(io, load))
}

// addOne adds one file through the shared Adder; a PDF that is already
// stored is added again only after a "y" (or with --yes).
func addOne(ctx context.Context, io *iostreams.IO, in *bufio.Reader, e *engine.Engine, path string, ao *AddOptions, getenv func(string) string) (string, error) {
	model := ao.Model
	// A name that is a file here is that file, whatever it looks like.
	ref, remote, err := ingest.ParseRemote(path)
	if _, statErr := os.Stat(path); statErr == nil {
		remote, err = false, nil
	}
	if err != nil {
		return "", err
	}
	isPDF := remote || strings.EqualFold(filepath.Ext(path), ".pdf")
	isImage := !remote && ingest.IsImage(path)
	if model == nil && isPDF {
		p, err := agent.ProviderFactory(e.Cfg, getenv)(e.Cfg.Chat.Provider)
		if err != nil && !ao.FullText {
			return "", errs.WithHint(err, "summary mode needs a model; add --full-text to store the text without one")
		}
		if err == nil {
			model = p
		}
	}
	mode := ingest.Summary
	if ao.FullText || isImage {
		mode = ingest.FullText
	}
	figures := ao.Figures || e.Cfg.RAG.FigureCaptions
	adder := e.Adder(model)
	adder.Opts.Progress = pageProgress(io, filepath.Base(path))
	adder.Remote = ingest.NewRemote(e.Cfg.Digest.ArxivURL, e.Cfg.Digest.BiorxivURL)
	add := adder.Add
	if remote {
		add = func(ctx context.Context, req ingest.AddRequest) (ingest.AddResult, error) {
			return adder.AddRemote(ctx, ref, req)
		}
	}
	password := ao.Password
	req := ingest.AddRequest{Path: path, Private: ao.Private,
		Paper: ingest.Paper{Title: ao.Title, Authors: ao.Authors, DOI: ao.DOI, Mode: mode, Figures: &figures, Password: password},
		Duplicate: func(dups []kb.Duplicate) bool {
			for _, d := range dups {
				fmt.Fprintf(io.Err, "%s: already stored (same %s): %s\n", path, d.Reason, d.Doc.String())
			}
			if ao.Yes {
				return true
			}
			fmt.Fprint(io.Err, "Add it anyway? A same-source entry is replaced. [y/N] ")
			answer, _ := in.ReadString('\n') // EOF or a read error is no answer: "no"
			a := strings.ToLower(strings.TrimSpace(answer))
			return a == "y" || a == "yes"
		}}
	res, err := add(ctx, req)
	if errs.Is(err, errs.Locked) && password == "" {
		// An encrypted PDF: ask on the terminal, without echo, and try once.
		if req.Paper.Password, err = askPassword(io, path, err); err == nil {
			res, err = add(ctx, req)
		}
	}
	if err != nil {
		return "", err
	}
	msg := res.Message
	for _, w := range res.Warnings {
		msg += "\n  warning: " + w
	}
	return msg, nil
}

// pageProgress shows how far a document's pages are, once OCR makes them
// slow enough to watch (a text PDF reads in a blink and prints nothing).
func pageProgress(io *iostreams.IO, name string) func(pdf.Progress) {
	shown := false
	return func(p pdf.Progress) {
		if !p.OCR && !shown {
			return
		}
		shown = true
		how := "read"
		if p.OCR {
			how = "recognised"
		}
		fmt.Fprintf(io.Err, "\r%s: page %d/%d %-10s", name, p.Page, p.Pages, how)
		if p.Page == p.Pages {
			fmt.Fprintln(io.Err)
		}
	}
}

// askPassword reads an encrypted file's password from the terminal without
// echoing it; where stdin is not a terminal, locked (the refusal, whose
// hint names --password) is returned as it is.
func askPassword(io *iostreams.IO, path string, locked error) (string, error) {
	f, ok := io.In.(*os.File)
	if !ok || !io.Terminal || !term.IsTerminal(int(f.Fd())) {
		return "", locked
	}
	fmt.Fprintf(io.Err, "%s is encrypted. Password (not stored): ", filepath.Base(path))
	pw, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(io.Err)
	if err != nil || len(pw) == 0 {
		return "", locked
	}
	return string(pw), nil
}

// printHit prints one ranked chunk: where it comes from, then a snippet.
func printHit(io *iostreams.IO, rank int, h kb.Hit, marks analysis.Highlighter) {
	m := h.Chunk.Meta
	where := m.Title
	if where == "" {
		where = m.Source
	}
	// How the chat cites it: a note's path, a Zotero item's zotero:// link.
	if cite := kbtools.CiteName(m); cite != "" && cite != where {
		where += " (" + cite + ")"
	}
	if m.Page > 0 {
		where += fmt.Sprintf(" p.%d", m.Page)
	}
	badge := ""
	if m.Visibility == kb.Private {
		badge = " [private]"
	}
	if note := kb.OCRNote(m.Extra); note != "" {
		badge += " [" + note + "]"
	}
	fmt.Fprintf(io.Out, "%d. [%s] %s%s  score=%.3f\n", rank, m.DocType, where, badge, h.Score)
	if m.Section != "" {
		fmt.Fprintf(io.Out, "   § %s\n", m.Section)
	}
	fmt.Fprintf(io.Out, "   %s\n", excerpt(io, h.Chunk.Content, marks))
}

// excerptWidth is how many characters of a hit are shown.
const excerptWidth = 240

// excerpt is the part of a hit where the query matched, the matches in
// bold on a terminal.
func excerpt(io *iostreams.IO, text string, marks analysis.Highlighter) string {
	var b strings.Builder
	for _, s := range marks.Excerpt(text, excerptWidth) {
		if s.Match && io.Color {
			b.WriteString("\x1b[1m" + s.Text + "\x1b[22m")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// embedPending runs the backfill with progress on stderr, or says why there
// is nothing to embed with.
func embedPending(ctx context.Context, io *iostreams.IO, e *engine.Engine) error {
	if e.Embedder() == nil {
		return noModel(ctx, e)
	}
	// The user ran this and waits for it: it runs at the priority it was
	// started with (nice it to yield). Background embedding — the tray,
	// `sync` — lowers its own.
	start := time.Now()
	var last time.Time
	res, err := e.Backfill(ctx, kb.BackfillOptions{
		Wait: true, // another process (the tray) may be embedding: wait for it, then do what is left
		Waiting: func(holder string) {
			fmt.Fprintf(io.Err, "another Jarvis process (%s) is embedding; waiting for it to finish…\n", holder)
		},
		Progress: func(done, total int) {
			if time.Since(last) > time.Second || done == total {
				last = time.Now()
				rate := float64(done) / max(time.Since(start).Seconds(), 1e-3)
				fmt.Fprintf(io.Err, "\rembedding %d/%d chunks (%.1f/s)", done, total, rate)
			}
		}})
	if res.Embedded > 0 || err != nil {
		fmt.Fprintln(io.Err)
	}
	if err != nil {
		if res.Embedded > 0 {
			fmt.Fprintf(io.Err, "%d chunks embedded before the stop; run `jarvis-cli kb embed` to continue\n", res.Embedded)
		}
		return err
	}
	info := e.Embedder().Info()
	switch {
	case res.Embedded == 0:
		fmt.Fprintf(io.Out, "every chunk has its %s vector\n", info.ID)
	default:
		fmt.Fprintf(io.Out, "embedded %d chunks with %s (%d dims, %s backend) in %s\n",
			res.Embedded, info.ID, info.Dims, e.Backend(), time.Since(start).Round(time.Millisecond))
	}
	if res.Swapped {
		fmt.Fprintf(io.Out, "the knowledge base now searches with %s\n", info.ID)
	}
	return nil
}

// noModel explains keyword-only operation when no embedding model loads.
func noModel(ctx context.Context, e *engine.Engine) error {
	st, err := e.Status(ctx)
	if err != nil {
		return err
	}
	if st.Embed.Issue != nil {
		return errs.Wrap(errs.NotFound, "kb embed", st.Embed.Issue) // the issue carries its hint
	}
	return errs.WithHint(errs.New(errs.Invalid, "kb embed", "no embedding model is configured (rag.embed_model is empty)"),
		"keyword search needs none; set rag.embed_model to add dense search")
}

// printModels prints which models serve search (stderr: for --verbose).
func printModels(ctx context.Context, io *iostreams.IO, e *engine.Engine) {
	st, err := e.Status(ctx)
	if err != nil {
		fmt.Fprintf(io.Err, "models: %v\n", err)
		return
	}
	for _, m := range []struct {
		role string
		st   engine.ModelStatus
	}{{"embedding", st.Embed}, {"reranker", st.Rerank}} {
		switch {
		case m.st.Spec == "":
			fmt.Fprintf(io.Err, "%s model: off\n", m.role)
		case m.st.Loaded && m.st.Detail != "":
			fmt.Fprintf(io.Err, "%s model: %s (%s backend; %s)\n", m.role, m.st.Spec, m.st.Backed, m.st.Detail)
		case m.st.Loaded:
			fmt.Fprintf(io.Err, "%s model: %s (%s backend)\n", m.role, m.st.Spec, m.st.Backed)
		default:
			fmt.Fprintf(io.Err, "%s model: %s not loaded: %v\n", m.role, m.st.Spec, m.st.Issue)
		}
	}
	if st.BackendDetail != "" {
		fmt.Fprintf(io.Err, "inference: %s backend (%s)\n", st.Backend, st.BackendDetail)
	}
	fmt.Fprintf(io.Err, "store vectors: %s; %d of %d chunks waiting for a vector\n", st.Store, st.Pending, st.Chunks)
}
