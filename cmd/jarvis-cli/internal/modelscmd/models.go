// Package modelscmd implements `jarvis-cli models`: list, fetch, verify and
// offline install of the local embedding and reranking models.
package modelscmd

import (
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// New builds the models command group.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{Use: "models", Short: "List, download, verify and install the local models"}

	// resolve loads the configuration and the models a command acts on: the
	// named ones, or the configured embedding and reranking models.
	resolve := func(args []string) (*config.Config, []models.Model, error) {
		cfg, err := load()
		if err != nil {
			return nil, nil, err
		}
		m, err := models.Load()
		if err != nil {
			return nil, nil, err
		}
		ids := args
		if len(ids) == 0 {
			ids = []string{cfg.RAG.EmbedModel}
			if cfg.RAG.RerankModel != "" {
				ids = append(ids, cfg.RAG.RerankModel)
			}
		}
		out := make([]models.Model, 0, len(ids))
		for _, id := range ids {
			model, err := m.Find(id)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, model)
		}
		return cfg, out, nil
	}

	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "Show every model in the manifest and whether it is installed",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			m, err := models.Load()
			if err != nil {
				return err
			}
			for _, model := range m.Models {
				st := models.Inspect(cfg.RAG.ModelsDir, model)
				state := "installed"
				if !st.Installed {
					state = fmt.Sprintf("missing (%d files)", len(st.Missing))
				}
				fmt.Fprintf(io.Out, "%-40s %-7s %-12s %s\n", model.ID, model.Role, model.License, state)
			}
			fmt.Fprintf(io.Out, "models dir: %s\n", cfg.RAG.ModelsDir)
			return nil
		},
	})

	cmd.AddCommand(&cobra.Command{
		Use:   "fetch [ID...]",
		Short: "Download models from Hugging Face (default: the configured ones)",
		RunE: func(c *cobra.Command, args []string) error {
			cfg, list, err := resolve(args)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			f := models.NewFetcher(getenv)
			last := ""
			f.Progress = func(path string, n int64) {
				if path != last || n%(8<<20) < 32<<10 {
					fmt.Fprintf(io.Err, "\r  %s: %.1f MB", path, float64(n)/(1<<20))
					last = path
				}
			}
			for _, model := range list {
				fmt.Fprintf(io.Out, "fetching %s (%s)\n", model.ID, model.Revision)
				if err := f.Fetch(ctx, cfg.RAG.ModelsDir, model); err != nil {
					fmt.Fprintln(io.Err)
					return err
				}
				fmt.Fprintf(io.Err, "\n")
				fmt.Fprintf(io.Out, "installed %s into %s\n", model.ID, models.Dir(cfg.RAG.ModelsDir, model.ID))
			}
			return nil
		},
	})

	cmd.AddCommand(&cobra.Command{
		Use:   "verify [ID...]",
		Short: "Re-hash installed model files against the manifest and install lock",
		RunE: func(_ *cobra.Command, args []string) error {
			cfg, list, err := resolve(args)
			if err != nil {
				return err
			}
			for _, model := range list {
				if err := models.Verify(cfg.RAG.ModelsDir, model); err != nil {
					return err
				}
				fmt.Fprintf(io.Out, "ok %s\n", model.ID)
			}
			return nil
		},
	})

	var from string
	offline := &cobra.Command{
		Use:   "install-offline --from DIR [ID...]",
		Short: "Install models from a directory that ships the files (no network)",
		Long: `Copy model files from DIR (laid out like the model's hub repository) into the
models directory, checking them exactly as a download would. Use it on machines
that cannot reach Hugging Face.`,
		RunE: func(_ *cobra.Command, args []string) error {
			if from == "" {
				return errs.New(errs.Invalid, "models install-offline", "--from DIR is required")
			}
			cfg, list, err := resolve(args)
			if err != nil {
				return err
			}
			for _, model := range list {
				src := from
				if len(list) > 1 {
					src = models.Dir(from, model.ID)
				}
				if err := models.InstallFrom(src, cfg.RAG.ModelsDir, model); err != nil {
					return err
				}
				fmt.Fprintf(io.Out, "installed %s from %s\n", model.ID, src)
			}
			return nil
		},
	}
	offline.Flags().StringVar(&from, "from", "", "directory holding the model files")
	cmd.AddCommand(offline)
	return cmd
}
