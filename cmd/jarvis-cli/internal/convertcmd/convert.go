// Package convertcmd implements `jarvis-cli convert-pdf`: a PDF's body as
// Markdown, followed by the reader's highlights and notes.
package convertcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// Options are the command's flags.
type Options struct {
	Output string
}

// New builds the command.
func New(io *iostreams.IO) *cobra.Command {
	opts := &Options{}
	cmd := &cobra.Command{
		Use:   "convert-pdf FILE",
		Short: "Convert a PDF to Markdown (headings, paragraphs, page markers, annotations)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			doc, err := pdf.Read(c.Context(), args[0], pdf.Options{})
			if err != nil {
				return err
			}
			var b strings.Builder
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
	return cmd
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
