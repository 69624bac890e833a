package askcmd

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm/wiretest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// askAgainst points a fresh data directory's config at a case's loopback
// server, runs `ask`, and returns stdout, stderr, the error and the config.
func askAgainst(t *testing.T, c wiretest.Case, url string, opts *Options, question string) (string, string, error, *config.Config) {
	t.Helper()
	cfg := configtest.New(t)
	switch c.Provider {
	case "anthropic":
		cfg.Chat.Provider, cfg.Anthropic.BaseURL = "anthropic", url
	case "openrouter":
		cfg.Chat.Provider, cfg.OpenRouter.BaseURL = "openrouter:anthropic/claude-test", url
	default:
		cfg.Chat.Provider, cfg.Chat.OllamaURL = "ollama", url
	}
	getenv := func(name string) string {
		switch name {
		case "ANTHROPIC_API_KEY":
			return wiretest.Keys["anthropic"]
		case "OPENROUTER_API_KEY":
			return wiretest.Keys["openrouter"]
		}
		return ""
	}
	io, _, out, errb := iostreams.Test()
	err := Run(context.Background(), io, cfg, getenv, opts, question)
	return out.String(), errb.String(), err, cfg
}

// lastSession loads the one session the run stored.
func lastSession(t *testing.T, cfg *config.Config) *chat.Session {
	t.Helper()
	store := &chat.Sessions{Dir: cfg.SessionsDir()}
	list, problems := store.List()
	if len(problems) > 0 || len(list) != 1 {
		t.Fatalf("sessions = %+v, %v", list, problems)
	}
	s, err := store.Load(list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// assertNoKeyOnDisk greps every file under the data directory for any
// piece of the key.
func assertNoKeyOnDisk(t *testing.T, key string) {
	t.Helper()
	if key == "" {
		return
	}
	filepath.WalkDir(os.Getenv("JARVIS_HOME"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && wiretest.Leaks(string(b), key) {
			t.Errorf("%s holds a piece of the API key", path)
		}
		return nil
	})
}

// TestAskConformance runs the conformance cases marked `ask` through
// `jarvis-cli ask` with the agent's real tools: cut-off and refused answers
// reported as such (stdout, stderr, stored session), retries with
// retry-after, reasoning_details sent back, calls that share index 0, the
// provider's own error text, and no key in any file written.
func TestAskConformance(t *testing.T) {
	ran := 0
	for _, provider := range []string{"anthropic", "openrouter", "ollama"} {
		cases, err := wiretest.Load(provider)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.Ask == nil {
				continue
			}
			ran++
			t.Run(strings.TrimSuffix(c.File, ".yaml"), func(t *testing.T) {
				srv := wiretest.Serve(t, c)
				stdout, stderr, err, cfg := askAgainst(t, c, srv.URL, &Options{KBOnly: true}, "question")
				want := c.Ask
				if want.Code == "" && err != nil {
					t.Fatalf("ask failed: %v\nstderr:\n%s", err, stderr)
				}
				if want.Code != "" && errs.CodeOf(err) != errs.Code(want.Code) {
					t.Fatalf("ask error %v (code %s), want code %s\nstderr:\n%s", err, errs.CodeOf(err), want.Code, stderr)
				}
				said := stderr
				if err != nil {
					said += "\n" + err.Error() + " " + errs.HintOf(err)
					if c.Expect.Error != "" && !strings.Contains(err.Error(), c.Expect.Error) {
						t.Errorf("error %q lacks the provider's text %q", err, c.Expect.Error)
					}
					if c.Expect.Hint != "" && !strings.Contains(err.Error(), c.Expect.Hint) {
						t.Errorf("error %q lacks the hint %q", err, c.Expect.Hint)
					}
				}
				if want.Stdout != nil && strings.TrimSpace(stdout) != *want.Stdout {
					t.Errorf("stdout = %q, want %q", stdout, *want.Stdout)
				}
				for _, s := range want.NotStdout {
					if strings.Contains(stdout, s) {
						t.Errorf("stdout holds %q:\n%s", s, stdout)
					}
				}
				for _, s := range want.Stderr {
					if !strings.Contains(said, s) {
						t.Errorf("stderr lacks %q:\n%s", s, said)
					}
				}
				srv.CheckSent(t)
				assertNoKeyOnDisk(t, c.Key())
				if want.Display == "" && want.Notice == "" && !want.NoReply {
					return
				}
				s := lastSession(t, cfg)
				last := s.Display[len(s.Display)-1]
				if last.Role != "assistant" || !strings.Contains(last.Text, want.Display) || last.Notice != want.Notice && !strings.Contains(last.Notice, want.Notice) {
					t.Errorf("stored reply = %+v, want text %q notice %q", last, want.Display, want.Notice)
				}
				if want.NoReply {
					if len(s.Messages) != 0 || strings.Contains(last.Text, *c.Expect.Reply) {
						t.Errorf("a refused answer was stored as one: %+v / %+v", last, s.Messages)
					}
				}
			})
		}
	}
	if ran < 8 {
		t.Fatalf("only %d cases run through ask", ran)
	}
}

// TestAskContinuesACutOffAnswer: `ask --session ID --continue` sends the
// partial answer back with a request to go on, and stores the rest.
func TestAskContinuesACutOffAnswer(t *testing.T) {
	cases, err := wiretest.Load("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	var cut, end wiretest.Case
	for _, c := range cases {
		switch c.File {
		case "anthropic/max_tokens_partial.yaml":
			cut = c
		case "anthropic/end_turn_two_text_blocks.yaml":
			end = c
		}
	}
	c := cut
	c.Exchanges = append(append([]wiretest.Exchange(nil), cut.Exchanges...), wiretest.Exchange{Body: end.Exchanges[0].Body,
		Sent: []wiretest.Check{
			{Path: "messages.1.content.0.text", Equals: "The deposit of 1200 EUR is returned in"},
			{Path: "messages.2.content.0.text", Equals: chat.ContinuePrompt},
		}})
	srv := wiretest.Serve(t, c)
	_, stderr, err, cfg := askAgainst(t, c, srv.URL, &Options{KBOnly: true}, "deposit?")
	if err != nil || !strings.Contains(stderr, "--continue") {
		t.Fatalf("%v\n%s", err, stderr)
	}
	id := lastSession(t, cfg).ID
	io, _, out, errb := iostreams.Test()
	if err := Run(context.Background(), io, cfg, func(n string) string {
		if n == "ANTHROPIC_API_KEY" {
			return c.Key()
		}
		return ""
	}, &Options{SessionID: id, Continue: true}, ""); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if strings.TrimSpace(out.String()) != "The deposit is returned\nwithin 30 days." {
		t.Fatalf("stdout = %q", out)
	}
	srv.CheckSent(t)
	s := lastSession(t, cfg)
	if chat.CanContinue(s) || len(s.Display) != 4 {
		t.Fatalf("display = %+v", s.Display)
	}
}
