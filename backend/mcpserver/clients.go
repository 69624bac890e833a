package mcpserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ClientConfig tells one AI app how to start Jarvis's MCP server.
type ClientConfig struct {
	App     string `json:"app"`     // "claude-desktop", "claude-code", "cursor", "codex", "stdio", "http"
	Name    string `json:"name"`    // shown to the user
	Where   string `json:"where"`   // the file it goes in, or where to run it
	Format  string `json:"format"`  // json, toml or shell
	Snippet string `json:"snippet"` // exactly what to paste or run
}

// Launch is how a client starts the server: the jarvis-cli binary and the
// data dir it serves. HTTP is the loopback address and token of a running
// `jarvis-cli mcp --http` (empty: left out).
type Launch struct {
	CLI   string // absolute path of jarvis-cli
	Home  string // the data dir (JARVIS_HOME)
	HTTP  string // e.g. 127.0.0.1:8765
	Token string
}

type stdioServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// ClientConfigs are the snippets for the apps researchers use, each
// naming this data dir explicitly so a second Jarvis home is not mixed up.
func ClientConfigs(l Launch) []ClientConfig {
	srv := stdioServer{Command: l.CLI, Args: []string{"mcp"}, Env: map[string]string{"JARVIS_HOME": l.Home}}
	mcpServers := mustJSON(map[string]any{"mcpServers": map[string]any{Name: srv}})
	out := []ClientConfig{
		{App: "claude-desktop", Name: "Claude Desktop", Where: "claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop",
			Format: "json", Snippet: mcpServers},
		{App: "claude-code", Name: "Claude Code", Where: "run in a terminal", Format: "shell",
			Snippet: fmt.Sprintf("claude mcp add %s --scope user -e JARVIS_HOME=%s -- %s mcp", Name, shellQuote(l.Home), shellQuote(l.CLI))},
		{App: "cursor", Name: "Cursor", Where: "~/.cursor/mcp.json", Format: "json", Snippet: mcpServers},
		{App: "codex", Name: "Codex CLI", Where: "~/.codex/config.toml", Format: "toml",
			Snippet: fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [\"mcp\"]\nenv = { JARVIS_HOME = %s }\n", Name, strconv.Quote(l.CLI), strconv.Quote(l.Home))},
		{App: "stdio", Name: "Any stdio client", Where: "the client's server settings", Format: "json", Snippet: mustJSON(srv)},
	}
	if l.HTTP != "" {
		out = append(out, ClientConfig{App: "http", Name: "Streamable HTTP clients", Where: "start `jarvis-cli mcp --http " + l.HTTP + "`, then in the client's server settings",
			Format: "json", Snippet: mustJSON(map[string]any{"mcpServers": map[string]any{Name: map[string]any{"type": "http", "url": "http://" + l.HTTP + "/",
				"headers": map[string]string{"Authorization": "Bearer " + l.Token}}}})})
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return string(b)
}

// shellQuote quotes for a POSIX shell when needed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r == ':' || r == '+' || r == '=' || r == ',' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Overview is what the window's "Use Jarvis from other AI apps" shows.
type Overview struct {
	Clients      []ClientConfig `json:"clients"`
	Token        string         `json:"token"` // for HTTP clients
	HTTPAddr     string         `json:"http_addr"`
	AllowPrivate bool           `json:"allow_private"`
	Recent       []Entry        `json:"recent"` // newest last
	CLIFound     bool           `json:"cli_found"`
}

// DefaultHTTPAddr is the address the snippets suggest for HTTP clients.
const DefaultHTTPAddr = "127.0.0.1:8765"

// ReadOverview is the overview of a data dir: the snippets (naming cli, or
// plain "jarvis-cli" when it was not found), the token, the switch and
// the last n calls.
func ReadOverview(home, mcpDir, cli string, allowPrivate bool, n int) (Overview, error) {
	o := Overview{AllowPrivate: allowPrivate, HTTPAddr: DefaultHTTPAddr, CLIFound: cli != ""}
	if cli == "" {
		cli = "jarvis-cli"
	}
	tok, err := Token(mcpDir)
	if err != nil {
		return o, err
	}
	o.Token = tok
	o.Clients = ClientConfigs(Launch{CLI: cli, Home: home, HTTP: DefaultHTTPAddr, Token: tok})
	if o.Recent, err = NewCallLog(mcpDir, nil).Tail(n); err != nil {
		return o, err
	}
	if o.Recent == nil {
		o.Recent = []Entry{}
	}
	return o, nil
}
