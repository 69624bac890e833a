package chat

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// scripted is a provider that runs a scripted turn body.
type scripted struct {
	body func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error)
}

func (p *scripted) Name() string  { return "ollama" }
func (p *scripted) Model() string { return "m" }
func (p *scripted) Complete(context.Context, []llm.Message, int, int) (string, error) {
	return "", nil
}
func (p *scripted) Summarize(context.Context, string, string, string, int) (string, error) {
	return "", nil
}
func (p *scripted) AgenticTurn(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
	return p.body(ctx, req)
}
func (p *scripted) DescribeImage(context.Context, []byte, string) (string, error) { return "", nil }
func (p *scripted) PopUsage() *llm.Usage                                          { return nil }

type noTools struct{}

func (noTools) Definitions(*Session) []llm.Tool { return nil }
func (noTools) Dispatch(context.Context, *Session, llm.Block, func(Event)) (llm.ToolOutcome, error) {
	return llm.ToolOutcome{}, nil
}

type recorder struct {
	mu     gosync.Mutex
	events []Event
}

func (r *recorder) emit(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }
func (r *recorder) kinds() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var k []string
	for _, e := range r.events {
		k = append(k, e.Kind)
	}
	return strings.Join(k, ",")
}

// runTurnToEnd starts a turn of s with message and waits for it to end;
// the recorder holds every event it sent.
func runTurnToEnd(t *testing.T, r *Runner, s *Session, message string) *recorder {
	t.Helper()
	rec := &recorder{}
	done, err := r.Start(context.Background(), s, message, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	return rec
}

func newRunner(t *testing.T, body func(context.Context, llm.TurnRequest) (llm.TurnResult, error)) (*Runner, *Session) {
	st := &Sessions{Dir: filepath.Join(t.TempDir(), "s")}
	r := &Runner{Sessions: st, Tools: noTools{},
		Provider: func(string) (llm.Provider, error) { return &scripted{body: body}, nil },
		System:   func(*Session) (string, error) { return "sys", nil },
		Redact:   llm.Redactor{"sk-secret-123456"}.Redact}
	return r, st.New(llm.Spec{Provider: "ollama", Model: "m"}, false)
}

func TestTurnCommitsReplyAndSaves(t *testing.T) {
	r, s := newRunner(t, func(_ context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		return llm.TurnResult{Messages: []llm.Message{llm.Text(llm.RoleAssistant, "answer")}, Reply: "answer"}, nil
	})
	rec := runTurnToEnd(t, r, s, "question")
	if s.Title != "question" {
		t.Fatalf("the first question names the session: %q", s.Title)
	}
	if rec.kinds() != "status,reply" || len(s.Messages) != 2 || s.TurnStarts[0] != 0 {
		t.Fatalf("events %s messages %d", rec.kinds(), len(s.Messages))
	}
	for i, e := range rec.events {
		if e.Seq != i+1 {
			t.Fatal("events must carry increasing sequence numbers")
		}
	}
	if got, err := r.Sessions.Load(s.ID); err != nil || len(got.Display) != 2 {
		t.Fatalf("saved: %v", err)
	}
}

func TestBusySessionRefusesSecondTurnAndStopRollsBackAtOnce(t *testing.T) {
	release := make(chan struct{})
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		<-release // a provider stuck waiting for its first token, ignoring ctx
		return llm.TurnResult{Messages: []llm.Message{llm.Text(llm.RoleAssistant, "late")}, Reply: "late"}, nil
	})
	rec := &recorder{}
	done, _ := r.Start(context.Background(), s, "q", rec.emit)
	if _, err := r.Start(context.Background(), s, "again", rec.emit); !errs.Is(err, errs.Conflict) {
		t.Fatalf("second turn: %v", err)
	}
	start := time.Now()
	if !r.Stop(s.ID) {
		t.Fatal("stop found no turn")
	}
	if time.Since(start) > 50*time.Millisecond || !strings.Contains(rec.kinds(), "stopped") {
		t.Fatal("stop must return immediately and announce itself")
	}
	close(release) // the worker finishes late; its reply must be discarded
	<-done
	if len(s.Messages) != 0 || strings.Contains(rec.kinds(), "reply") {
		t.Fatalf("a stopped turn left a trace: %d messages, events %s", len(s.Messages), rec.kinds())
	}
	if r.Busy(s.ID) {
		t.Fatal("session still busy")
	}
}

func TestPrivacyErrorDropsTurnAndReturnsMessage(t *testing.T) {
	r, s := newRunner(t, func(context.Context, llm.TurnRequest) (llm.TurnResult, error) {
		return llm.TurnResult{}, errs.New(errs.Privacy, "search_kb", "only private notes matched")
	})
	rec := runTurnToEnd(t, r, s, "my secret question")
	last := rec.events[len(rec.events)-1]
	if last.Kind != EventError || last.Data.(map[string]any)["restore_input"] != "my secret question" || len(s.Messages) != 0 {
		t.Fatalf("privacy: %+v, %d messages", last, len(s.Messages))
	}
}

func TestFailedTurnSavedWithRedactedWarning(t *testing.T) {
	r, s := newRunner(t, func(context.Context, llm.TurnRequest) (llm.TurnResult, error) {
		return llm.TurnResult{}, errs.New(errs.LLM, "anthropic", "401 invalid key sk-secret-123456")
	})
	runTurnToEnd(t, r, s, "q")
	saved, err := r.Sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	reply := saved.Display[len(saved.Display)-1].Text
	if !strings.HasPrefix(reply, "⚠️") || strings.Contains(reply, "sk-secret-123456") || !strings.Contains(reply, llm.Redacted) {
		t.Fatalf("saved warning: %q", reply)
	}
}

func TestPrivateSessionRefusesCloudResume(t *testing.T) {
	r, s := newRunner(t, nil)
	s.Provider, s.Model = "anthropic", "claude"
	s.MarkPrivate()
	if _, err := r.Start(context.Background(), s, "q", nil); !errs.Is(err, errs.Privacy) {
		t.Fatalf("err = %v", err)
	}
}

// streamOllamaParts writes each part as one flushed, unfinished line of
// Ollama's NDJSON chat stream, so the runner sees them arrive one by one.
func streamOllamaParts(w http.ResponseWriter, parts ...string) {
	for _, part := range parts {
		fmt.Fprintf(w, `{"message":{"role":"assistant","content":%q},"done":false}`+"\n", part)
		w.(http.Flusher).Flush()
	}
}

// ollamaTurn runs one turn ("q") of a fresh runner against the fake
// Ollama server srv, which it closes when the test ends, and waits for
// the turn to end.
func ollamaTurn(t *testing.T, srv *httptest.Server) (*Runner, *Session, *recorder) {
	t.Helper()
	t.Cleanup(srv.Close)
	r, s := newRunner(t, nil)
	r.Provider = func(string) (llm.Provider, error) { return &llm.Ollama{BaseURL: srv.URL, ModelID: "m"}, nil }
	return r, s, runTurnToEnd(t, r, s, "q")
}

func TestReplyTextStreamsAsDeltaEvents(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		streamOllamaParts(w, "Tomatoes ", "like ", "sun.")
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":""},"done":true}`)
	}))
	_, _, rec := ollamaTurn(t, srv)
	var live strings.Builder
	for _, e := range rec.events {
		if e.Kind == EventDelta {
			live.WriteString(e.Text)
		}
	}
	if live.String() != "Tomatoes like sun." || rec.kinds() != "status,delta,delta,delta,reply" {
		t.Fatalf("events %s, streamed %q", rec.kinds(), live.String())
	}
}

func TestModelServerDyingMidAnswerKeepsThePartialAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		streamOllamaParts(w, "Water deeply ", "twice a week")
		conn, _, err := w.(http.Hijacker).Hijack() // the server dies: no done line
		if err == nil {
			conn.Close()
		}
	}))
	r, s, rec := ollamaTurn(t, srv)
	saved, err := r.Sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	reply := saved.Display[len(saved.Display)-1].Text
	if !strings.HasPrefix(reply, "Water deeply twice a week") || !strings.Contains(reply, "Interrupted") {
		t.Fatalf("the partial answer must be kept and labelled: %q (events %s)", reply, rec.kinds())
	}
}
