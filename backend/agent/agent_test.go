package agent_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// startAgent starts an agent over a fresh data directory (JARVIS_HOME in
// a temporary directory) and an empty environment; configure, if not nil,
// first points the configuration at a test's fake servers. The caller
// closes the agent.
func startAgent(t *testing.T, configure func(*config.Config)) (*agent.Agent, *config.Config) {
	t.Helper()
	cfg := configtest.New(t)
	if configure != nil {
		configure(cfg)
	}
	ag, err := agent.New(cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return ag, cfg
}

// Starting the agent puts every prompt on disk, before any turn needs one,
// so a user can edit them in any editor from the first launch.
func TestStartSeedsEveryPrompt(t *testing.T) {
	ag, cfg := startAgent(t, nil)
	defer ag.Close()
	for _, n := range prompts.Names {
		if _, err := os.Stat(filepath.Join(cfg.PromptsDir(), n+".md")); err != nil {
			t.Fatalf("%s not seeded at start: %v", n, err)
		}
	}
}

// What the user asked Jarvis to remember reaches the next session's model;
// a private fact never reaches the cloud provider (the loopback Anthropic
// fake, through the real client), and a local model gets it only in a
// session that is private already. "remember" saves from a private session
// as private.
func TestMemoryReachesTheNextSessionAndPrivateFactsStayLocal(t *testing.T) {
	cloud, local := &fakeCloud{}, &fakeOllama{}
	cloudSrv, localSrv := httptest.NewServer(cloud), httptest.NewServer(local)
	defer cloudSrv.Close()
	defer localSrv.Close()
	ag, _ := startAgent(t, func(cfg *config.Config) {
		cfg.Anthropic.BaseURL, cfg.Anthropic.APIKey, cfg.Chat.OllamaURL = cloudSrv.URL, apiKey, localSrv.URL
	})
	defer ag.Close()
	ask := func(s *chat.Session, message string) {
		t.Helper()
		done, err := ag.Runner.Start(context.Background(), s, message, func(chat.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		<-done
	}
	turn := func(s *chat.Session) { t.Helper(); ask(s, "hello") }

	// A private session asks to remember something: the fact is private.
	private := ag.Sessions.New(llm.ParseSpec(localSpec), false)
	private.MarkPrivate()
	local.expect(&call{Tool: "remember", Args: map[string]any{"fact": "I am treated for cnryillness"}})
	ask(private, "Remember that I am treated for cnryillness.")
	if _, err := ag.Memory.Add("Answer in British English", false); err != nil {
		t.Fatal(err)
	}
	facts, _ := ag.Memory.List()
	if len(facts) != 2 || facts[0].Text != "I am treated for cnryillness" || !facts[0].Private {
		t.Fatalf("the private session's fact is private: %+v", facts)
	}

	cloud.expect(nil)
	turn(ag.Sessions.New(llm.ParseSpec(cloudSpec), false))
	bodies := bytes.Join(cloud.seen(), nil)
	if !bytes.Contains(bodies, []byte("Answer in British English")) {
		t.Fatal("the public preference did not reach the next session's model")
	}
	if bytes.Contains(bodies, []byte("cnryillness")) {
		t.Fatalf("a private fact reached the cloud provider:\n%s", bodies)
	}

	local.expect(nil)
	turn(ag.Sessions.New(llm.ParseSpec(localSpec), false))
	if b := bytes.Join(local.seen(), nil); !bytes.Contains(b, []byte("British English")) || bytes.Contains(b, []byte("cnryillness")) {
		t.Fatalf("a public local session gets the public facts only:\n%s", b)
	}
	again := ag.Sessions.New(llm.ParseSpec(localSpec), false)
	again.MarkPrivate()
	local.expect(nil)
	turn(again)
	if b := bytes.Join(local.seen(), nil); !bytes.Contains(b, []byte("cnryillness")) {
		t.Fatal("a private local session gets the private fact too")
	}
}

// The model saves nothing the user did not ask for: a scripted model (the
// Anthropic fake, through the real client) calls remember on a turn whose
// message asks nothing of the kind, and nothing is stored; the tool result
// it gets back says why and to ask the user. Asked ("remember that…"),
// the same call saves. Saving from Settings needs no such message.
func TestTheModelSavesAMemoryOnlyWhenTheUserAsked(t *testing.T) {
	cloud := &fakeCloud{}
	srv := httptest.NewServer(cloud)
	defer srv.Close()
	ag, _ := startAgent(t, func(cfg *config.Config) { cfg.Anthropic.BaseURL, cfg.Anthropic.APIKey = srv.URL, apiKey })
	defer ag.Close()
	ask := func(message string) ([][]byte, []chat.Event) {
		t.Helper()
		cloud.expect(&call{Tool: "remember", Args: map[string]any{"fact": "The user prefers British English"}})
		var events []chat.Event
		s := ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
		done, err := ag.Runner.Start(context.Background(), s, message, func(e chat.Event) { events = append(events, e) })
		if err != nil {
			t.Fatal(err)
		}
		<-done
		return cloud.seen(), events
	}

	bodies, events := ask("I prefer British English spelling. What is the colour of chlorophyll?")
	if facts, _ := ag.Memory.List(); len(facts) != 0 {
		t.Fatalf("saved without being asked: %+v", facts)
	}
	if len(bodies) < 2 {
		t.Fatalf("the turn did not go on to the model with the tool result (%d requests)", len(bodies))
	}
	result := string(bodies[len(bodies)-1])
	if !strings.Contains(result, `"tool_result"`) || !strings.Contains(result, "nothing was saved") || !strings.Contains(result, "does not ask to remember") ||
		!strings.Contains(result, "ask the user") {
		t.Fatalf("the model was not told why nothing was saved:\n%s", result)
	}
	failed := false
	for _, e := range events {
		failed = failed || e.Kind == chat.EventTool && strings.Contains(e.Text, "remember failed")
	}
	if !failed {
		t.Fatalf("the window was not shown the refused save: %+v", events)
	}

	ask("Remember that I prefer British English.")
	facts, _ := ag.Memory.List()
	if len(facts) != 1 || facts[0].Text != "The user prefers British English" || facts[0].Private {
		t.Fatalf("asked to remember, saved %+v", facts)
	}
	// Settings is the user's own hand: no message needed.
	if _, err := ag.Memory.Add("Cite DOIs", false); err != nil {
		t.Fatal(err)
	}
	if facts, _ = ag.Memory.List(); len(facts) != 2 {
		t.Fatalf("a fact added in Settings: %+v", facts)
	}
}
