// Package mcpcmd implements `jarvis-cli mcp`: Jarvis as an MCP server for
// other AI apps (stdio, or Streamable HTTP on loopback), its call log, its
// HTTP token and the snippets that configure each client.
package mcpcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/mcpserver"
	"github.com/jarvis-kb/jarvis/backend/version"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// Options are the command's inputs.
type Options struct {
	IO     *iostreams.IO
	Load   func() (*config.Config, error)
	Getenv func(string) string
	HTTP   string // listen address; empty: stdio
	// Executable is this binary, for the client snippets.
	Executable func() (string, error)
}

// New builds the mcp command tree.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	o := &Options{IO: io, Load: load, Getenv: getenv, Executable: os.Executable}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the knowledge base to other AI apps over MCP",
		Long: `Runs Jarvis as a Model Context Protocol server, for Claude Desktop, Claude Code,
Cursor and any MCP client: over stdio (the client starts this command), or with
--http over Streamable HTTP on a loopback address with a bearer token.

An MCP client is a model Jarvis does not run: it sees public material only.
Private notes, drafts and conversations are absent from every answer unless
[mcp] allow_private is set. Every call is logged (jarvis-cli mcp log).
` + "`jarvis-cli mcp config`" + ` prints the setup snippet for each app.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return o.serve(ctx)
		},
	}
	cmd.Flags().StringVar(&o.HTTP, "http", "", "serve Streamable HTTP on this loopback address (127.0.0.1:PORT) instead of stdio")
	cmd.AddCommand(o.logCmd(), o.tokenCmd(), o.configCmd())
	return cmd
}

func (o *Options) serve(ctx context.Context) error {
	cfg, err := o.Load()
	if err != nil {
		return err
	}
	var ln net.Listener
	if o.HTTP != "" {
		// Refused before anything opens: the address is the user's mistake.
		if err := mcpserver.CheckLoopback(o.HTTP); err != nil {
			return err
		}
	}
	// stdout belongs to the protocol: every word for a person goes to stderr.
	ag, err := agent.New(cfg, agent.Options{Getenv: o.Getenv, Review: func(_ context.Context, p *drafts.Proposal) error {
		fmt.Fprintf(o.IO.Err, "jarvis mcp: %d change(s) to %s (draft %s) wait for your review in Jarvis's Drafts\n", len(p.Hunks), p.File, p.DraftID)
		return nil
	}})
	if err != nil {
		return err
	}
	defer ag.Close()
	if ag.EngineErr != nil {
		fmt.Fprintf(o.IO.Err, "jarvis mcp: the knowledge base is unavailable (%v); serving the drafts tools only\n", ag.EngineErr)
	}
	redact := llm.Redactor(llm.Secrets(cfg, o.Getenv)).Redact
	srv := mcpserver.New(ag, mcpserver.Options{Version: version.Version, AllowPrivate: cfg.MCP.AllowPrivate, Getenv: o.Getenv,
		Log: mcpserver.NewCallLog(cfg.MCPDir(), redact)})
	if cfg.MCP.AllowPrivate {
		fmt.Fprintln(o.IO.Err, "jarvis mcp: [mcp] allow_private is on: this client sees private notes; use it only with a model that runs on this computer")
	}
	if o.HTTP == "" {
		return srv.ServeStdio(ctx, o.IO.In, o.IO.Out)
	}
	token, err := mcpserver.Token(cfg.MCPDir())
	if err != nil {
		return err
	}
	if ln, err = net.Listen("tcp", o.HTTP); err != nil {
		return errs.WithHint(errs.Wrap(errs.Internal, "mcp.http", err), "pick another port")
	}
	fmt.Fprintf(o.IO.Err, "jarvis mcp: serving http://%s/ (send Authorization: Bearer <token>; `jarvis-cli mcp token` prints it)\n", ln.Addr())
	return srv.ServeHTTP(ctx, ln, token)
}

func (o *Options) logCmd() *cobra.Command {
	var n int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Show what MCP clients were sent",
		Long:  "Each MCP call: when, which client, the tool and its arguments, the sources returned and the bytes sent (secrets redacted).",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := o.Load()
			if err != nil {
				return err
			}
			entries, err := mcpserver.NewCallLog(cfg.MCPDir(), nil).Tail(n)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(o.IO.Out)
				for _, e := range entries {
					if err := enc.Encode(e); err != nil {
						return errs.Wrap(errs.Internal, "mcp log", err)
					}
				}
				return nil
			}
			if len(entries) == 0 {
				fmt.Fprintln(o.IO.Err, "no MCP calls yet")
				return nil
			}
			for _, e := range entries {
				fmt.Fprintln(o.IO.Out, e.Line())
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&n, "number", "n", 20, "show the last N calls (0: all kept)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per call")
	return cmd
}

func (o *Options) tokenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "token",
		Short: "Print the bearer token HTTP clients send",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := o.Load()
			if err != nil {
				return err
			}
			tok, err := mcpserver.Token(cfg.MCPDir())
			if err != nil {
				return err
			}
			fmt.Fprintln(o.IO.Out, tok)
			return nil
		},
	}
}

func (o *Options) configCmd() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:       "config [claude-desktop|claude-code|cursor|codex|stdio|http]",
		Short:     "Print the snippet that adds Jarvis to an AI app",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"claude-desktop", "claude-code", "cursor", "codex", "stdio", "http"},
		RunE: func(_ *cobra.Command, args []string) error {
			cfg, err := o.Load()
			if err != nil {
				return err
			}
			exe, err := o.Executable()
			if err != nil {
				return errs.Wrap(errs.Internal, "mcp config", err)
			}
			if resolved, err := filepath.EvalSymlinks(exe); err == nil {
				exe = resolved
			}
			l := mcpserver.Launch{CLI: exe, Home: cfg.Home}
			if addr != "" {
				if err := mcpserver.CheckLoopback(addr); err != nil {
					return err
				}
				if l.Token, err = mcpserver.Token(cfg.MCPDir()); err != nil {
					return err
				}
				l.HTTP = addr
			}
			for _, c := range mcpserver.ClientConfigs(l) {
				if len(args) == 1 && c.App != args[0] {
					continue
				}
				if len(args) == 1 {
					fmt.Fprintln(o.IO.Out, c.Snippet) // just the snippet: it can be piped into a file
					return nil
				}
				fmt.Fprintf(o.IO.Out, "# %s — %s\n%s\n\n", c.Name, c.Where, c.Snippet)
			}
			if len(args) == 1 {
				return errs.WithHint(errs.New(errs.NotFound, "mcp config", "no snippet for %q", args[0]), "the http snippet needs --http 127.0.0.1:PORT")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "also print the Streamable HTTP snippet for this loopback address")
	return cmd
}
