package agent_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// Starting the agent puts every prompt on disk, before any turn needs one,
// so a user can edit them in any editor from the first launch.
func TestStartSeedsEveryPrompt(t *testing.T) {
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agent.New(cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
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
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cloud, local := &fakeCloud{}, &fakeOllama{}
	cloudSrv, localSrv := httptest.NewServer(cloud), httptest.NewServer(local)
	defer cloudSrv.Close()
	defer localSrv.Close()
	cfg.Anthropic.BaseURL, cfg.Anthropic.APIKey, cfg.Chat.OllamaURL = cloudSrv.URL, apiKey, localSrv.URL
	ag, err := agent.New(cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	turn := func(s *chat.Session) {
		t.Helper()
		done, err := ag.Runner.Start(context.Background(), s, "hello", func(chat.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		<-done
	}

	// A private session asks to remember something: the fact is private.
	private := ag.Sessions.New(llm.ParseSpec(localSpec), false)
	private.MarkPrivate()
	local.expect(&call{Tool: "remember", Args: map[string]any{"fact": "I am treated for cnryillness"}})
	turn(private)
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
