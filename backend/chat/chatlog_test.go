package chat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// failingTools answers every call with a recoverable tool error.
type failingTools struct{ noTools }

func (failingTools) Dispatch(context.Context, *Session, llm.Block, func(Event)) (llm.ToolOutcome, error) {
	return llm.ToolOutcome{IsError: true, Content: "no document src-42 (key sk-secret-123456)"}, nil
}

func TestToolErrorsAndFailedTurnsGoToChatLogRedacted(t *testing.T) {
	dir := t.TempDir()
	if _, err := logs.Open(dir); err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		if _, err := req.Dispatch(ctx, llm.Block{Type: llm.BlockToolCall, ID: "c1", Name: "get_document"}); err != nil {
			return llm.TurnResult{}, err
		}
		return llm.TurnResult{}, errors.New("upstream 500 for key sk-secret-123456")
	})
	r.Tools = failingTools{}
	done, err := r.Start(context.Background(), s, "question", (&recorder{}).emit)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	logs.Close()
	b, err := os.ReadFile(filepath.Join(dir, logs.ChatFileName))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"tool error", "tool=get_document", "no document src-42", "turn failed", "upstream 500", "session=" + s.ID} {
		if !strings.Contains(got, want) {
			t.Errorf("chat.log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "sk-secret-123456") {
		t.Fatalf("a secret reached chat.log:\n%s", got)
	}
}

func TestUnreadableSessionsAreLoggedNotDropped(t *testing.T) {
	dir := t.TempDir()
	if _, err := logs.Open(dir); err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	st := &Sessions{Dir: filepath.Join(t.TempDir(), "s")}
	good := st.New(llm.Spec{Provider: "ollama", Model: "m"}, false)
	good.Messages = append(good.Messages, llm.Text(llm.RoleUser, "hello"))
	if err := st.Save(good); err != nil {
		t.Fatal(err)
	}
	bad := good.ID[:len(good.ID)-4] + "beef"
	if bad == good.ID {
		bad = good.ID[:len(good.ID)-4] + "cafe"
	}
	if err := os.WriteFile(filepath.Join(st.Dir, bad+".json"), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, problems := st.List()
	if len(list) != 1 || len(problems) != 1 {
		t.Fatalf("list %v problems %v", list, problems)
	}
	logs.Close()
	b, _ := os.ReadFile(filepath.Join(dir, logs.FileName))
	if !strings.Contains(string(b), "session file skipped") || !strings.Contains(string(b), bad) {
		t.Fatalf("the unreadable session must be logged:\n%s", b)
	}
}
