// Command jarvis-bridge serves the real frontend and the real Go services to
// a plain browser, for end-to-end tests. With -demo it seeds a throwaway
// home: a small vault (one private folder), embedding and reranking
// fixtures, and a local model server that speaks Ollama's streaming chat
// protocol with a scripted "brain" (search, cite, ask before removing, stream
// slowly when told to) and manages models as Ollama does (a pull streams
// its progress; the preload a chat's opening sends is recorded), so a test
// drives every path of a turn through the real client code. With -fresh it
// is a first launch instead: an empty home, no vault configured (a folder
// of notes waits to be chosen; its path is printed), no models (a loopback
// server serves the fixture models in Hugging Face's layout, through
// HF_ENDPOINT) and no chat model that answers (OLLAMA_HOST points at a
// closed port).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/jarvis-kb/jarvis/app"
	"github.com/jarvis-kb/jarvis/app/bridge"
	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/models/hubtest"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

var demoNotes = map[string]string{
	"garden/tomatoes.md": "---\ntype: howto\nstatus: tested\ndate: 2024-05-01\ntags: [garden, summer]\n---\n# Tomatoes\n\nTomato plants need full sun and deep watering twice a week.\n",
	"garden/roses.md":    "# Roses\n\nPrune roses in late winter before new growth.\n",
	"private/diary.md":   "# Diary\n\nWorried about the grant budget again today.\n",
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	dist := flag.String("dist", "frontend/dist", "built frontend")
	demo := flag.Bool("demo", false, "seed a throwaway home with a vault, fixture models and a scripted model server")
	fresh := flag.Bool("fresh", false, "a first launch: an empty home, a folder of notes to choose, models on a loopback hub, no chat model")
	seedHome := flag.String("seed-home", "", "seed this home and run only the scripted model server (for driving the real desktop app)")
	flag.Parse()
	if *seedHome != "" {
		if err := serveBrain(*seedHome); err != nil {
			fmt.Fprintln(os.Stderr, "jarvis-bridge:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*addr, *dist, *demo, *fresh); err != nil {
		fmt.Fprintln(os.Stderr, "jarvis-bridge:", err)
		os.Exit(1)
	}
}

func run(addr, dist string, demo, fresh bool) error {
	if fresh {
		stop, err := startFresh()
		if err != nil {
			return err
		}
		defer stop()
	}
	if demo {
		home, err := os.MkdirTemp("", "jarvis-e2e-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(home)
		os.Setenv("JARVIS_HOME", home)
		fmt.Printf("home: %s\n", home) // for jarvis-cli run beside the window
		stop, err := startDemo(home)
		if err != nil {
			return err
		}
		defer stop()
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	ag, err := agent.New(cfg, agent.Options{Getenv: os.Getenv})
	if err != nil {
		return err
	}
	var br *bridge.Bridge
	svc := app.NewServices(cfg, ag, func(name string, data any) { br.Emit(name, data) }, os.Getenv)
	defer svc.Close()
	br = bridge.New(svc.Bind()...)
	svc.Library.Pick = br.Dialog
	svc.Setup.PickFolder = br.Folder
	svc.Editor.PickSave = br.SavePath
	svc.SetLauncher(br.Launch)
	svc.Start()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("jarvis-bridge listening on http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: br.Handler(os.DirFS(dist))}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

// serveBrain seeds home and keeps the scripted model server up until
// interrupted, so the real desktop app can be pointed at home.
func serveBrain(home string) error {
	stop, err := startDemo(home)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("seeded %s\n", home)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	<-ctx.Done()
	return nil
}

// startDemo starts the scripted model server and seeds home to use it; the
// returned func stops the server.
func startDemo(home string) (func(), error) {
	llmURL, stop, err := startBrain()
	if err != nil {
		return nil, err
	}
	if err := seed(home, llmURL); err != nil {
		stop()
		return nil, err
	}
	fmt.Printf("model server: %s\n", llmURL) // the e2e test reads what the cloud model was sent
	return stop, nil
}

// writeNotes writes the demo notes under dir and returns the fixture
// models' vocabulary: their words and the questions the tests ask.
func writeNotes(dir string) ([]string, error) {
	var all []string
	for rel, text := range demoNotes {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, err
		}
		all = append(all, text)
	}
	return embedtest.Words(append(all, "how should I water my tomatoes", "what worries me")...), nil
}

// startFresh makes this process a first launch (see the package comment)
// and prints the folder of notes; the returned func removes it all.
func startFresh() (func(), error) {
	base, err := os.MkdirTemp("", "jarvis-e2e-fresh-")
	if err != nil {
		return nil, err
	}
	notes := filepath.Join(base, "user", "Notes")
	words, err := writeNotes(notes)
	if err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	repos, err := hubtest.WriteManifestModels(filepath.Join(base, "hub"), words)
	if err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	hub := httptest.NewServer(hubtest.Handler(repos))
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		hub.Close()
		os.RemoveAll(base)
		return nil, err
	}
	dead := closed.Addr().String()
	closed.Close() // nothing answers there: no chat model
	if err := writeZotero(filepath.Join(base, "user", "Zotero")); err != nil {
		hub.Close()
		os.RemoveAll(base)
		return nil, err
	}
	for k, v := range map[string]string{"JARVIS_HOME": filepath.Join(base, "home"), "HOME": filepath.Join(base, "user"),
		"HF_ENDPOINT": hub.URL, "OLLAMA_HOST": dead, "CHAT_PROVIDER": "", "VAULT_PATH": "", "ANTHROPIC_API_KEY": "", "OPENROUTER_API_KEY": "", "HF_TOKEN": ""} {
		os.Setenv(k, v)
	}
	fmt.Printf("notes folder: %s\n", notes)
	return func() { hub.Close(); os.RemoveAll(base) }, nil
}

// writeZotero puts a Zotero library where Zotero keeps one (~/Zotero), for
// the setup panel to find: a public item with a highlight made in Zotero's
// reader, and one filed under Grants/2027 for the user to make private.
func writeZotero(dir string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("writing the Zotero library: %v", r)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db := zoterotest.New(seedTB{}, dir)
	defer db.Close()
	db.AddItem(zotero.Item{Key: "RHUB2345", Type: "book", Title: "Rhubarb trials in the north", Fields: map[string]string{"title": "Rhubarb trials in the north", "date": "2019", "abstractNote": "Forced rhubarb under clay pots."},
		Creators: []zotero.Creator{{First: "Ann", Last: "Gardener", Type: "author"}}, Collections: []string{"Reading"}})
	db.AddItem(zotero.Item{Key: "GRANT234", Type: "preprint", Title: "Grant budget 2027", Fields: map[string]string{"title": "Grant budget 2027", "abstractNote": "Salaries for the allotment robot."},
		Collections: []string{"Grants/2027"}})
	return nil
}

// seedTB lets zoterotest build a library outside a test: a failure panics
// and writeZotero returns it.
type seedTB struct{}

func (seedTB) Helper()                           {}
func (seedTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (seedTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (seedTB) Skip(args ...any)                  { panic(fmt.Sprint(args...)) }

// seed writes the demo vault, fixture models and config, and indexes the vault.
func seed(home, llmURL string) error {
	vault := filepath.Join(home, "vault")
	words, err := writeNotes(vault)
	if err != nil {
		return err
	}
	emb, rr := filepath.Join(home, "models", "bow"), filepath.Join(home, "models", "overlap")
	if err := embedtest.WriteEmbedder(emb, words); err != nil {
		return err
	}
	if err := embedtest.WriteReranker(rr, words); err != nil {
		return err
	}
	for _, kv := range [][3]string{
		{"vault", "path", vault}, {"rag", "embed_model", emb}, {"rag", "rerank_model", rr},
		{"chat", "provider", "ollama"}, {"chat", "ollama_url", llmURL}, {"chat", "ollama_model", "demo"},
		// The cloud model a session can switch to: the same brain, on loopback.
		{"chat", "anthropic_model", cloudModel}, {"anthropic", "base_url", llmURL}, {"anthropic", "api_key", "sk-ant-demo-not-a-real-key-0000000000"},
	} {
		if err := config.SetIn(home, kv[0], kv[1], kv[2]); err != nil {
			return err
		}
	}
	if err := config.SetIn(home, "vault", "private_dirs", []string{"private"}); err != nil {
		return err
	}
	cfg, err := config.LoadFrom(home)
	if err != nil {
		return err
	}
	// A proposal made by another process before the window opened (as
	// `jarvis-cli ask` leaves one): the editor lists it on start.
	ws, err := drafts.Open(cfg.Drafts)
	if err != nil {
		return err
	}
	d, err := ws.Create("Reading list", "list.md", "# Reading list\n\n- Tomatoes\n", drafts.Public, "")
	if err != nil {
		return err
	}
	if _, err := ws.Propose(d.ID, "list.md", "# Reading list\n\n- Tomatoes\n- Roses in late winter\n", "add the roses", ""); err != nil {
		return err
	}
	e, err := engine.Open(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	if _, err := e.Refresher().Refresh(context.Background()); err != nil {
		return err
	}
	// The notes are stored first and embedded after, as the app's
	// background does; the demo starts with the vectors in place.
	_, err = e.Backfill(context.Background(), kb.BackfillOptions{})
	return err
}

// formattingAnswer exercises what answers may contain: a link, one-line
// display maths followed by text, inline maths, a table, a quote and code.
const formattingAnswer = "## Formatting\n\n" +
	"See the [Wails handbook](https://wails.io/docs/introduction) for the window.\n\n" +
	"$$E = mc^2$$ and more text after the formula.\n\n" +
	"Inline maths $a^2 + b^2 = c^2$ stays in the sentence, and $5 or $10 stay money.\n\n" +
	"| Plant | Water |\n| --- | --- |\n| Tomato | twice a week |\n| Rose | weekly |\n\n" +
	"> A quoted line.\n\n" +
	"```go\nfmt.Println(\"hello\")\n```\n"

// draftRE finds a created draft's id in an earlier tool result.
var draftRE = regexp.MustCompile(`Created draft (\S+)`)

// draftIDRE finds a draft id named in the question itself (jarvis-cli ask).
var draftIDRE = regexp.MustCompile(`\bdraft-[0-9a-f]{12}\b`)

// editorRE reads the line the editor's docked composer puts before a
// message (app.DraftContext): the draft and the open file.
var editorRE = regexp.MustCompile(`^\[Editing draft (\S+) "(?:[^"\\]|\\.)*", file ([^\]\n]+)\]`)

// sourceRE finds the first citation label in a tool result.
var sourceRE = regexp.MustCompile(`\[source: ([^\]]+)\]`)

// startBrain runs the scripted model on loopback, in Ollama's NDJSON
// streaming format.
func startBrain() (string, func(), error) {
	mux := http.NewServeMux()
	serveAnthropic(mux)
	serveOllamaModels(mux) // tags, pull with progress, the preload
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		line := func(v any) {
			b, _ := json.Marshal(v)
			w.Write(append(b, '\n'))
			w.(http.Flusher).Flush()
		}
		say := func(text string) {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": text}, "done": false})
		}
		call := func(name string, args map[string]any) {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "",
				"tool_calls": []any{map[string]any{"function": map[string]any{"name": name, "arguments": args}}}}, "done": false})
		}
		last := req.Messages[len(req.Messages)-1]
		var question string
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if m := req.Messages[i]; m.Role == "user" && !strings.HasPrefix(m.Content, "Summary of our earlier") {
				question = m.Content
				break
			}
		}
		switch {
		case last.Role == "tool":
			if m := sourceRE.FindStringSubmatch(last.Content); m != nil {
				say(fmt.Sprintf("From your notes: see [source: %s]. I also made up [source: invented/paper.md].", m[1]))
			} else {
				say("Done: " + strings.SplitN(last.Content, "\n", 2)[0])
			}
		case strings.Contains(question, "long story"):
			// Far longer than a window: the view must follow it to the end.
			for i := 1; i <= 40; i++ {
				time.Sleep(40 * time.Millisecond)
				say(fmt.Sprintf("Paragraph %d of the long answer: the garden grows a little every day, and so does this reply.\n\n", i))
			}
			say("That is the end of the long answer.")
		case strings.Contains(question, "formatting"):
			say(formattingAnswer)
		case strings.Contains(question, "crash midway"):
			say("Tomatoes need deep watering ")
			say("twice a week, and ")
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close() // the model server dies mid-answer
			}
			return
		case strings.Contains(question, "slow"):
			for i := 0; i < 100; i++ {
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
				say("word ")
			}
		case strings.Contains(question, "write a draft"):
			call("create_draft", map[string]any{"title": "Letter", "filename": "letter.md",
				"content": "# Letter\n\nDear team,\n\nThanks for the data.\n\nBest,\nAda\n"})
		case editorRE.MatchString(question) && strings.Contains(question, "warmer"):
			m := editorRE.FindStringSubmatch(question)
			call("propose_draft_edit", map[string]any{"draft_id": m[1], "filename": m[2], "summary": "a warmer closing",
				"new_text": "# Mine\n\nWritten with care.\n\nWith warm regards,\nAda\n"})
		case strings.Contains(question, "edit the draft"):
			id := draftIDRE.FindString(question)
			for _, m := range req.Messages {
				if mm := draftRE.FindStringSubmatch(m.Content); mm != nil && id == "" {
					id = mm[1]
				}
			}
			call("propose_draft_edit", map[string]any{"draft_id": id, "summary": "warmer greeting",
				"new_text": "# Letter\n\nDear colleagues,\n\nThanks for the data.\n\nBest wishes,\nAda\n"})
		case strings.Contains(question, "remove"):
			call("remove_document", map[string]any{"source": "garden/roses.md"})
		default:
			call("search_kb", map[string]any{"query": question})
		}
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}
