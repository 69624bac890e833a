// Package convertcmd implements `jarvis-cli convert-pdf`: a PDF's body as
// Markdown, followed by the reader's highlights and notes. The PDF is a
// local file or a paper named by arXiv link or id or by DOI, fetched by the
// rules `kb add` uses.
package convertcmd

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// Options are the command's flags.
type Options struct {
	Output   string
	Password string // an encrypted PDF's; used for the read, kept nowhere
}

// New builds the command; load is used only to reach the paper servers
// (digest.arxiv_url, digest.biorxiv_url) for a URL or id.
func New(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	opts := &Options{}
	cmd := &cobra.Command{
		Use:   "convert-pdf FILE|URL",
		Short: "Convert a PDF (a file, an arXiv link or id, or a DOI) to Markdown (headings, paragraphs, page markers, annotations)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			path, cleanup, err := fetch(c.Context(), io, load, args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			// Scanned pages are read by OCR when Tesseract is here ([pdf]).
			var eng *ocr.Engine
			if cfg, err := load(); err == nil {
				eng, _ = ingest.OCRFor(cfg.PDF) // without it, a scan says what to install
			}
			doc, err := pdf.Read(c.Context(), path, pdf.Options{OCR: eng, Password: opts.Password, Progress: func(p pdf.Progress) {
				if p.OCR {
					fmt.Fprintf(io.Err, "page %d/%d recognised\n", p.Page, p.Pages)
				}
			}})
			if err != nil {
				return err
			}
			var b strings.Builder
			b.WriteString(ocrFrontmatter(doc))
			md, bodyErr := doc.Markdown()
			marks := doc.Marks()
			if bodyErr != nil && len(marks) == 0 {
				return bodyErr
			}
			if bodyErr != nil {
				fmt.Fprintf(io.Err, "warning: %v\n", bodyErr)
			} else if doc.Repaired {
				fmt.Fprintf(io.Err, "warning: %s\n", pdf.RepairedWarning)
			}
			b.WriteString(md)
			if len(marks) > 0 {
				b.WriteString("\n## Annotations\n\n")
				for _, m := range marks {
					b.WriteString(listItem(m.String()))
				}
			}
			if opts.Output == "" {
				fmt.Fprint(io.Out, b.String())
				return nil
			}
			if err := fsutil.WriteFileAtomic(opts.Output, []byte(b.String()), 0o644); err != nil {
				return errs.Wrap(errs.Internal, "convert-pdf", err)
			}
			fmt.Fprintf(io.Err, "wrote %s (%d pages, %d annotations)\n", opts.Output, len(doc.Pages), len(marks))
			return nil
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write to this file instead of stdout")
	cmd.Flags().StringVar(&opts.Password, "password", "", "the password of an encrypted PDF (never stored)")
	return cmd
}

// fetch returns a local PDF for arg: arg itself when it names a file here,
// else the PDF of the paper it names, downloaded into a temporary folder
// that cleanup removes.
func fetch(ctx context.Context, io *iostreams.IO, load func() (*config.Config, error), arg string) (string, func(), error) {
	none := func() {}
	if _, err := os.Stat(arg); err == nil {
		return arg, none, nil
	}
	ref, remote, err := ingest.ParseRemote(arg)
	if err != nil || !remote {
		return arg, none, err // not remote: pdf.Read says what is wrong with the path
	}
	cfg, err := load()
	if err != nil {
		return "", none, err
	}
	server := ingest.NewRemote(cfg.Digest.ArxivURL, cfg.Digest.BiorxivURL)
	rp, err := server.Lookup(ctx, ref)
	if err != nil {
		return "", none, err
	}
	dir, err := os.MkdirTemp("", "jarvis-convert-")
	if err != nil {
		return "", none, errs.Wrap(errs.Internal, "convert-pdf", err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	path, err := server.Download(ctx, rp, dir)
	if err != nil {
		cleanup()
		return "", none, err
	}
	fmt.Fprintf(io.Err, "fetched %q (%s)\n", rp.Title, rp.Source)
	return path, cleanup, nil
}

// ocrFrontmatter marks a conversion whose text was partly or wholly
// recognised by OCR: which pages, and Tesseract's mean confidence over
// them. Empty when every page had its own text layer.
func ocrFrontmatter(doc *pdf.Document) string {
	var pages []string
	sum := 0.0
	for _, p := range doc.Pages {
		if p.OCR {
			pages = append(pages, strconv.Itoa(p.Number))
			sum += p.OCRConfidence
		}
	}
	if len(pages) == 0 {
		return ""
	}
	return fmt.Sprintf("---\n%s: tesseract\n%s: %.0f\nx_ocr_pages: [%s]\n---\n\n",
		kb.OCRField, kb.OCRConfidenceField, sum/float64(len(pages)), strings.Join(pages, ", "))
}

// listItem is a Markdown list item; a multi-line mark (its context, the
// reader's comment, paragraphs inside it) continues indented under it.
func listItem(text string) string {
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = "  " + lines[i]
		}
	}
	return "- " + strings.Join(lines, "\n") + "\n"
}
